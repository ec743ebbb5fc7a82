"""Mixed-radix int64 keys: one integer per row of small non-negative digits.

FACTS de-duplicates many kinds of code rows (counterfactual rows, a subgroup's value rows, the
changes an action makes). A row of digits ``r`` with ``0 <= r[j] < radix[j]`` is packed into the
single integer ``sum(r[j] * mult[j])`` with ``mult[j] = radix[0] * ... * radix[j - 1]``; distinct
rows get distinct keys, and a key unpacks back to its row. The packing is only exact while the
product of the radices stays below ``2**62``; callers fall back to row-wise de-duplication beyond.
"""

from __future__ import annotations

import math

import numpy as np

#: Keys are exact while the product of the radices is below this bound.
KEY_LIMIT = 2**62


class MixedRadix:
    """Pack rows of digits into int64 keys and back.

    Args:
        radix: ``(c,)`` number of possible digits per column (each >= 1).

    Attributes:
        radix: The radices, int64.
        mult: ``(c,)`` int64 place value of each column, or ``None`` when the product of the
            radices reaches :data:`KEY_LIMIT` (then :attr:`fits` is False and nothing can be packed).
    """

    def __init__(self, radix: np.ndarray | list[int]) -> None:
        self.radix = np.asarray(radix, dtype=np.int64)
        self.mult: np.ndarray | None = None
        if math.prod(self.radix.tolist()) < KEY_LIMIT:
            self.mult = np.concatenate([[1], np.cumprod(self.radix)[:-1]]).astype(np.int64)

    @property
    def fits(self) -> bool:
        """Return whether every row fits one int64 key."""
        return self.mult is not None

    def pack(self, digits: np.ndarray, columns: np.ndarray | list[int] | None = None) -> np.ndarray:
        """Return the key of each row of ``digits``.

        Args:
            digits: ``(n, c')`` non-negative digits, each below its column's radix.
            columns: Which columns ``digits`` holds (default: all, in order); the other columns
                count as digit 0.
        """
        if self.mult is None:
            raise ValueError("the rows do not fit int64 keys (check MixedRadix.fits first)")
        mult = self.mult if columns is None else self.mult[columns]
        return (digits.astype(np.int64) * mult[None, :]).sum(axis=1)

    def unpack(self, keys: np.ndarray) -> np.ndarray:
        """Return the ``(n, c)`` int64 digit rows of ``keys`` (the inverse of :meth:`pack`)."""
        if self.mult is None:
            raise ValueError("the rows do not fit int64 keys (check MixedRadix.fits first)")
        return (keys[:, None] // self.mult[None, :]) % self.radix[None, :]


def code_radix(values: tuple[np.ndarray, ...]) -> MixedRadix:
    """Return the radix of code rows stored as ``code + 1`` (digit 0 = blank or missing).

    Args:
        values: Per feature, its distinct values (a code is an index into them).
    """
    return MixedRadix([len(v) + 1 for v in values])
