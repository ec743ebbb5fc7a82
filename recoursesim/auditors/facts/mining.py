"""Frequent itemsets (the same as mlxtend's fp-growth finds) as subgroups and actions, in a compact array form."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recoursesim.auditors.facts.apriori import bit_sets, frequent
from recoursesim.auditors.facts.encoding import ItemSpace

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

    def sizes(self) -> np.ndarray:
        """Return the number of features each itemset fixes."""
        return (self.values >= 0).sum(axis=1)


def frequent_itemsets(space: ItemSpace, rows: np.ndarray, features: list[int], min_support: float) -> Itemsets:
    """Mine the itemsets with support at least ``min_support`` among ``rows``.

    Args:
        space: The encoded data.
        rows: Indices of the rows to mine.
        features: Feature indices whose values may appear in itemsets.
        min_support: Minimum fraction of ``rows`` an itemset must cover, in (0, 1].

    Returns:
        The frequent itemsets (the empty itemset excluded).
    """
    d = len(space.features)
    if len(rows) == 0 or not features:
        return _empty(d)
    features = sorted(features)  # items in feature order (the miner extends itemsets by later features)
    codes = space.codes[rows][:, features]
    item_feature, item_code, hot = [], [], []
    for position, j in enumerate(features):
        column = codes[:, position]
        counts = np.bincount(column[column >= 0], minlength=len(space.values[j]))
        for value in np.flatnonzero(counts >= min_support * len(rows) - 1e-9):
            item_feature.append(j)
            item_code.append(int(value))
            hot.append(column == value)
    if not hot:
        return _empty(d)
    feature, code = np.array(item_feature, dtype=np.int64), np.array(item_code, dtype=np.int64)
    radix = [len(values) + 1 for values in space.values]
    levels = frequent(feature, code, bit_sets(np.array(hot)), len(rows), min_support, radix)
    values = np.full((sum(len(level) for level in levels), d), -1, dtype=np.int32)
    row = 0
    for level in levels:
        for position in range(level.shape[1]):
            items = level[:, position]
            values[np.arange(row, row + len(level)), feature[items]] = code[items]
        row += len(level)
    return _from_values(values)


def _empty(d: int) -> Itemsets:
    return Itemsets(np.zeros((0, d), dtype=np.int32), feature_masks(np.zeros((0, d), dtype=bool)))


def feature_masks(fixed: np.ndarray) -> np.ndarray:
    """Return the bit mask of each row of the ``(m, d)`` boolean matrix ``fixed`` (bit ``j`` = column ``j``).

    int64 for ``d <=`` :data:`INT64_FEATURES`; otherwise the rows are packed into bytes and read
    as Python ints (an object array), which has no width limit.
    """
    m, d = fixed.shape
    if d <= INT64_FEATURES:
        weights = np.left_shift(np.int64(1), np.arange(d, dtype=np.int64))
        return (fixed * weights).sum(axis=1).astype(np.int64)
    packed = np.packbits(fixed, axis=1, bitorder="little")
    out = np.empty(m, dtype=object)
    out[:] = [int.from_bytes(row.tobytes(), "little") for row in packed]
    return out


def _from_values(values: np.ndarray) -> Itemsets:
    d = values.shape[1]
    masks = feature_masks(values >= 0)
    order = np.lexsort((*(values[:, j] for j in range(d - 1, -1, -1)), (values >= 0).sum(axis=1)))
    return Itemsets(np.ascontiguousarray(values[order]), masks[order])


def intersect(first: Itemsets, second: Itemsets) -> Itemsets:
    """Return the itemsets present in both (as a deterministic, size-then-value sorted list)."""
    if len(first) == 0 or len(second) == 0:
        return Itemsets(first.values[:0], first.masks[:0])
    a = {row.tobytes() for row in first.values}
    keep = np.fromiter((row.tobytes() in a for row in second.values), dtype=bool, count=len(second))
    return _from_values(second.values[keep])
