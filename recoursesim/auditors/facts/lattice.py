"""Subgroup membership and the lattice of feature masks.

Subgroups are itemsets over features; a subgroup's *mask* is the set of features it fixes (bit
``j`` for feature ``j``). The mined family of subgroups is downward closed, so the distinct masks
form a lattice in which every one-feature-smaller mask of a present mask is present too. These
helpers compute which rows each subgroup (and each mask) covers and propagate per-mask results
up or down that lattice.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from recoursesim.auditors.facts.apriori import bit_sets
from recoursesim.auditors.facts.mining import Itemsets


def membership(subgroups: Itemsets, codes: np.ndarray, chunk: int = 2048) -> sparse.csr_matrix:
    """Return the ``(m, n)`` CSR 0/1 matrix of which rows belong to which subgroup.

    Each (feature, value) item's rows are a bit set (64 rows per word); a subgroup's members are
    the AND of its items' bit sets, which are unpacked to column indices a block of subgroups at
    a time.

    Args:
        subgroups: The ``m`` subgroups.
        codes: ``(n, d)`` code matrix of the rows (-1 = missing, matching no item).
        chunk: Subgroups per block (bounds memory).

    Returns:
        float32 CSR matrix with sorted indices, 1 where row ``i`` is a member of subgroup ``p``.
    """
    m, n = len(subgroups), len(codes)
    if m == 0 or n == 0:
        return sparse.csr_matrix((m, n), dtype=np.float32)
    values = subgroups.values
    d = values.shape[1]
    sizes = [max(int(codes[:, j].max()), int(values[:, j].max())) + 1 for j in range(d)]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    free = sum(sizes)  # the row of a feature a subgroup leaves free: every row
    words = np.concatenate(
        [bit_sets(codes[:, j][None, :] == np.arange(sizes[j])[:, None]) for j in range(d)]
        + [bit_sets(np.ones((1, n), dtype=bool))]
    )
    item = np.where(values >= 0, offsets[None, :] + values, free)
    columns = []
    counts = np.zeros(m, dtype=np.int64)
    for lo in range(0, m, chunk):
        bits = np.bitwise_and.reduce(words[item[lo : lo + chunk]], axis=1)
        dense = np.unpackbits(bits.view(np.uint8), axis=1, count=n, bitorder="little")
        rows, cols = np.nonzero(dense)
        counts[lo : lo + chunk] = np.bincount(rows, minlength=len(bits))
        columns.append(cols.astype(np.int32))
    indptr = np.concatenate([[0], np.cumsum(counts)])
    indices = np.concatenate(columns)
    return sparse.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr), shape=(m, n))


def covered_by_mask(member: sparse.csr_matrix, s_index: np.ndarray, n_masks: int) -> np.ndarray:
    """Return ``covered[S, i]``: row ``i`` is in some subgroup whose mask is ``S``.

    Args:
        member: ``(m, n)`` CSR membership (from :func:`membership`).
        s_index: ``(m,)`` each subgroup's mask as an index into the distinct masks.
        n_masks: Number of distinct masks.
    """
    covered = np.zeros((n_masks, member.shape[1]), dtype=bool)
    rows = np.repeat(np.arange(member.shape[0]), np.diff(member.indptr))
    covered[s_index[rows], member.indices] = True
    return covered


def upward_closure(smasks: np.ndarray, position: dict[int, int], covered: np.ndarray, d: int) -> np.ndarray:
    """Return ``above[S]``: rows in some subgroup whose mask contains ``S`` (family is downward closed).

    Args:
        smasks: The distinct subgroup masks.
        position: Index of each mask in ``smasks``.
        covered: ``(len(smasks), n)`` rows covered by each mask (from :func:`covered_by_mask`).
        d: Number of features.
    """
    above = covered.copy()
    order = np.argsort([-int(m).bit_count() for m in smasks], kind="stable")
    for i in order:
        mask = int(smasks[i])
        for j in range(d):
            if not mask >> j & 1:
                k = position.get(mask | (1 << j))
                if k is not None:
                    above[i] |= above[k]
    return above


def recourse_cost_closure(smasks: np.ndarray, position: dict[int, int], best: np.ndarray, d: int) -> None:
    """Turn ``best[S]`` (cheapest working action fixing exactly S) into the min over subsets of S, in place.

    Args:
        smasks: The distinct subgroup masks.
        position: Index of each mask in ``smasks``.
        best: ``(len(smasks), n)`` recourse costs per mask, overwritten.
        d: Number of features.
    """
    order = np.argsort([int(m).bit_count() for m in smasks], kind="stable")
    for i in order:
        mask = int(smasks[i])
        for j in range(d):
            if mask >> j & 1:
                k = position.get(mask & ~(1 << j))
                if k is not None:
                    np.minimum(best[i], best[k], out=best[i])
