"""Frequent itemsets (bit-set miner or mlxtend's fp-growth, same result) as subgroups and actions, in array form."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from recoursesim.auditors.facts.apriori import bit_sets, frequent
from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.keys import KEY_LIMIT
from recoursesim.auditors.facts.miners import mlxtend_levels
from recoursesim.auditors.facts.support import SupportRule

#: Feature masks are int64 up to this many features (bit 63 is the sign bit), Python ints beyond.
INT64_FEATURES = 62


@dataclass(frozen=True)
class Itemsets:
    """A list of itemsets, each a conjunction ``feature = value`` over distinct features.

    Attributes:
        values: ``(m, d)`` int32: the value code each itemset fixes per feature, -1 where free.
        masks: ``(m,)`` bit masks of the features each itemset fixes (bit ``j`` = feature ``j``):
            int64 when there are at most :data:`INT64_FEATURES` features, otherwise an object array
            of Python ints (arbitrary width), so wide data never overflows. Both support ``&``,
            ``|``, ``==``, :func:`numpy.unique` and ``int(mask)`` alike.
    """

    values: np.ndarray
    masks: np.ndarray

    def __len__(self) -> int:
        return len(self.masks)


def frequent_itemsets(
    space: ItemSpace,
    rows: np.ndarray,
    features: list[int],
    min_support: float | SupportRule,
    miner: str = "bitset",
    progress: Callable[[int], object] | None = None,
) -> Itemsets:
    """Mine the frequent itemsets of ``rows``.

    Args:
        space: The encoded data.
        rows: Indices of the rows to mine.
        features: Feature indices whose values may appear in itemsets.
        min_support: The support rule, or a fraction of ``rows`` in (0, 1] (no minimum count).
        miner: One of :data:`~recoursesim.auditors.facts.miners.MINERS`.
        progress: Called with the number of itemsets found so far, block by block.

    Returns:
        The frequent itemsets (the empty itemset excluded).
    """
    rule = min_support if isinstance(min_support, SupportRule) else SupportRule(float(min_support), 1)
    d = len(space.features)
    if len(rows) == 0 or not features:
        return _empty(d)
    features = sorted(features)  # items in feature order (the miner extends itemsets by later features)
    codes = space.codes[rows][:, features]
    item_feature, item_code, hot = [], [], []
    for position, j in enumerate(features):
        column = codes[:, position]
        counts = np.bincount(column[column >= 0], minlength=len(space.values[j]))
        for value in np.flatnonzero(rule.frequent(counts, len(rows), single=True)):
            item_feature.append(j)
            item_code.append(int(value))
            hot.append(column == value)
    if not hot:
        return _empty(d)
    feature, code = np.array(item_feature, dtype=np.int64), np.array(item_code, dtype=np.int64)
    radix = [len(values) + 1 for values in space.values]
    if miner == "mlxtend":
        levels = mlxtend_levels(np.array(hot), len(rows), rule)
        if progress is not None:
            progress(sum(len(level) for level in levels))
    else:
        levels = frequent(feature, code, bit_sets(np.array(hot)), len(rows), rule, radix, progress)
    values = np.full((sum(len(level) for level in levels), d), -1, dtype=np.int32)
    row = 0
    for level in levels:
        for position in range(level.shape[1]):
            items = level[:, position]
            values[np.arange(row, row + len(level)), feature[items]] = code[items]
        row += len(level)
    del levels  # item-index arrays as large as ``values``: free them before sorting
    return _from_values(values)


def _empty(d: int) -> Itemsets:
    return Itemsets(np.zeros((0, d), dtype=np.int32), feature_masks(np.zeros((0, d), dtype=bool)))


def mask_columns(mask: int, d: int) -> list[int]:
    """Return the columns (of ``d``) whose bits are set in the feature mask ``mask`` (see :func:`feature_masks`)."""
    return [j for j in range(d) if mask >> j & 1]


def feature_masks(fixed: np.ndarray) -> np.ndarray:
    """Return the bit mask of each row of the ``(m, d)`` boolean matrix ``fixed`` (bit ``j`` = column ``j``).

    int64 for ``d <=`` :data:`INT64_FEATURES`; otherwise the rows are packed into bytes and read
    as Python ints (an object array), which has no width limit.
    """
    m, d = fixed.shape
    if d <= INT64_FEATURES:
        masks = np.zeros(m, dtype=np.int64)
        for j in range(d):  # column by column: no (m, d) int64 temporary
            masks |= fixed[:, j].astype(np.int64) << j
        return masks
    packed = np.packbits(fixed, axis=1, bitorder="little")
    out = np.empty(m, dtype=object)
    out[:] = [int.from_bytes(row.tobytes(), "little") for row in packed]
    return out


def _from_values(values: np.ndarray) -> Itemsets:
    fixed = values >= 0
    masks = feature_masks(fixed)
    order = np.lexsort((*reversed(lex_keys(values)), fixed.sum(axis=1)))
    del fixed
    return Itemsets(np.ascontiguousarray(values[order]), masks[order])


def lex_keys(values: np.ndarray) -> list[np.ndarray]:
    """Return int64 keys, most significant first, that order the rows of ``values`` lexicographically.

    Consecutive columns are packed into one key while their digits (``value + 1``, so -1 is 0)
    fit :data:`~recoursesim.auditors.facts.keys.KEY_LIMIT`, the first column most significant, so
    sorting by the keys equals sorting by the columns (``np.lexsort`` over a few keys instead of
    every column).

    Args:
        values: ``(m, d)`` integer codes, each at least -1.
    """
    m, d = values.shape
    radix = values.max(axis=0, initial=-1).astype(np.int64) + 2
    keys, start = [], 0
    while start < d:
        stop, total = start, 1
        while stop < d and (stop == start or total * int(radix[stop]) < KEY_LIMIT):
            total *= int(radix[stop])
            stop += 1
        key = np.zeros(m, dtype=np.int64)
        for j in range(start, stop):
            key = key * radix[j] + (values[:, j].astype(np.int64) + 1)
        keys.append(key)
        start = stop
    return keys


def intersect(first: Itemsets, second: Itemsets) -> Itemsets:
    """Return the itemsets present in both (as a deterministic, size-then-value sorted list)."""
    a = {row.tobytes() for row in first.values}
    keep = np.fromiter((row.tobytes() in a for row in second.values), dtype=bool, count=len(second))
    return _from_values(second.values[keep])
