"""Frequent itemsets by level-wise counting on bit sets (the itemsets mlxtend's fp-growth finds, faster).

An *item* is ``feature = value``; an itemset fixes distinct features. Each item's rows are a bit
set (64 rows per word), an itemset's support is the population count of the AND of its items' bit
sets. Level ``k + 1`` extends every frequent ``k``-itemset by one item of a later feature, drops
candidates with an infrequent ``k``-subset (the Apriori property), and counts the rest, a block at
a time.

The support rule (:class:`~recoursesim.auditors.facts.support.SupportRule`) is mlxtend's plus an
optional minimum count, so the result is the same set of itemsets as
``mlxtend.frequent_patterns.fpgrowth`` (tested against it; :mod:`~recoursesim.auditors.facts.miners`
offers both). mlxtend's fp-growth is pure Python; on Adult this takes a few tenths of a second where
fp-growth took seconds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from recoursesim.auditors.facts.keys import MixedRadix
from recoursesim.auditors.facts.support import SupportRule

#: Candidate itemsets counted per block (bounds memory: block x words x 8 bytes).
BLOCK = 65_536


def popcount(words: np.ndarray) -> np.ndarray:
    """Return the number of set bits of each row of a ``(m, w)`` uint64 array."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    table = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
    return table[words.view(np.uint8)].sum(axis=1)


def bit_sets(hot: np.ndarray) -> np.ndarray:
    """Pack a ``(k, n)`` boolean matrix into ``(k, ceil(n / 64))`` uint64 bit sets (row ``i`` = bit ``i``)."""
    k, n = hot.shape
    width = -(-n // 64) * 8
    packed = np.zeros((k, width), dtype=np.uint8)
    packed[:, : -(-n // 8)] = np.packbits(hot, axis=1, bitorder="little")
    return packed.view(np.uint64)


def frequent(
    item_feature: np.ndarray,
    item_code: np.ndarray,
    item_bits: np.ndarray,
    n: int,
    rule: SupportRule,
    radix: list[int],
    progress: Callable[[int], object] | None = None,
) -> list[np.ndarray]:
    """Return the frequent itemsets, level by level, as arrays of item indices.

    Args:
        item_feature: ``(q,)`` feature of each candidate item, non-decreasing.
        item_code: ``(q,)`` value code of each item.
        item_bits: ``(q, w)`` uint64 bit set of the rows holding each item.
        n: Number of rows.
        rule: When an itemset is frequent (support fraction and minimum count).
        radix: Per feature, number of value codes plus one (keys for the Apriori check).
        progress: Called with the number of itemsets found, after each block of candidates.

    Returns:
        Per level ``k = 1, 2, ...``, a ``(m_k, k)`` int64 array of item indices, features increasing.
    """
    count = popcount(item_bits)
    keep = rule.frequent(count, n, single=True)
    level = np.flatnonzero(keep)[:, None]
    bits = item_bits[level[:, 0]]
    keys_radix = MixedRadix(radix)
    out = [level]
    if progress is not None:
        progress(len(level))
    # Items of a feature after f are the suffix item_after[f]: of the list sorted by feature.
    item_after = np.searchsorted(item_feature, np.arange(len(radix)), side="right")
    while len(level):
        last = item_feature[level[:, -1]]
        starts = item_after[last]
        extra = len(item_feature) - starts
        owner = np.repeat(np.arange(len(level)), extra)
        first = np.repeat(starts - np.cumsum(np.r_[0, extra[:-1]]), extra)
        item = first + np.arange(len(owner))
        if keys_radix.fits and level.shape[1] > 1:
            survive = _all_subsets_frequent(level, owner, item, item_feature, item_code, keys_radix)
            owner, item = owner[survive], item[survive]
        nxt, nxt_bits = [], []
        for lo in range(0, len(owner), BLOCK):
            o, i = owner[lo : lo + BLOCK], item[lo : lo + BLOCK]
            joined = bits[o] & item_bits[i]
            c = popcount(joined)
            ok = rule.frequent(c, n, single=False)
            nxt.append(np.column_stack([level[o[ok]], i[ok]]))
            nxt_bits.append(joined[ok])
            if progress is not None:
                progress(int(ok.sum()))
        if not nxt:
            break
        level = np.concatenate(nxt)
        bits = np.concatenate(nxt_bits)
        if len(level):
            out.append(level)
    return out


def _all_subsets_frequent(
    level: np.ndarray,
    owner: np.ndarray,
    item: np.ndarray,
    item_feature: np.ndarray,
    item_code: np.ndarray,
    radix: MixedRadix,
) -> np.ndarray:
    """Return which candidates (``level[owner]`` plus ``item``) have every one-smaller subset in ``level``."""
    assert radix.mult is not None
    place = radix.mult[item_feature] * (item_code.astype(np.int64) + 1)
    level_keys = place[level].sum(axis=1)
    known = np.sort(level_keys)
    full = level_keys[owner] + place[item]
    survive = np.ones(len(owner), dtype=bool)
    for position in range(level.shape[1]):  # dropping the new item gives level[owner] itself
        subset = full - place[level[owner, position]]
        found = np.searchsorted(known, subset)
        found = np.minimum(found, len(known) - 1)
        survive &= known[found] == subset
    return survive
