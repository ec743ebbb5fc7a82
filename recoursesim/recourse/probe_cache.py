"""Probe scores of agent profiles, remembered while the model stays the same.

The search generator scores every rejected agent with one feature changed at a time (its
*probes*). Those scores depend only on the agent's features, the action set and the model, so
an agent that is rejected again with the same features, or another agent with the same
profile (bootstrap samples repeat rows), needs no new probes. :class:`ProbeCache` keeps each
profile's probe scores and forgets them all when the model changes:

- the scorer is another object (trainers return a new scorer when they refit), or
- the scorer's score of a remembered profile differs from the one remembered with it (a model
  refitted in place).

:func:`score_distinct` scores a batch with each distinct row given to the model once (random
candidates and corrected points repeat rows).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def row_keys(rows: np.ndarray) -> np.ndarray:
    """One hashable, sortable key per row of a float array (its bytes)."""
    rows = np.ascontiguousarray(rows, dtype=float)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def score_distinct(scorer: Any, rows: np.ndarray) -> np.ndarray:
    """``scorer.score(rows)`` as floats, scoring each distinct row once.

    A model scores every row on its own, so a repeated row gets the score of its first copy:
    the result is the same as scoring every row, with fewer rows given to the model.
    """
    rows = np.asarray(rows, dtype=float)
    if rows.shape[0] < 2:
        return np.asarray(scorer.score(rows), dtype=float)
    _, first, inverse = np.unique(row_keys(rows), return_index=True, return_inverse=True)
    if first.size == rows.shape[0]:
        return np.asarray(scorer.score(rows), dtype=float)
    return np.asarray(scorer.score(rows[first]), dtype=float)[np.ravel(inverse)]


class ProbeCache:
    """Probe scores by agent profile for one model (see the module docstring).

    Attributes:
        layout: What the generator chose to probe for this model (``None`` until set); kept
            with the scores because they follow its columns.
        limit: Largest number of profiles kept; beyond it the oldest half is dropped.
    """

    def __init__(self, limit: int = 200_000) -> None:
        self.limit = limit
        self.layout: Any = None
        self._scorer: Any = None
        self._clear()

    def _clear(self) -> None:
        self.layout = None
        self._keys = np.zeros(0, dtype=np.dtype((np.void, 8)))  # in arrival order
        self._base = np.zeros(0)
        self._scores = np.zeros((0, 0))
        self._sorted = np.zeros(0, dtype=np.int64)  # order of _keys

    def __len__(self) -> int:
        return int(self._base.size)

    def lookup(self, scorer: Any, features: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Remembered probe scores of ``features`` under ``scorer``.

        Args:
            scorer: The model of this call; another object than last time empties the cache.
            features: ``(n, d)`` profiles.
            base: ``(n,)`` their scores now; a remembered profile whose score differs empties the cache.

        Returns:
            ``(hit, scores)``: which profiles are remembered, and their probe scores ``(hits, L)``.
        """
        if scorer is not self._scorer:
            self._clear()
            self._scorer = scorer
        hit, at = self._find(features)
        if hit.any() and not np.array_equal(self._base[at[hit]], np.asarray(base, dtype=float)[hit]):
            self._clear()
            return np.zeros(features.shape[0], dtype=bool), np.zeros((0, 0))
        return hit, self._scores[at[hit]]

    def store(self, features: np.ndarray, base: np.ndarray, scores: np.ndarray) -> None:
        """Remember the probe scores ``(n, L)`` of new profiles ``features`` (scored ``base``)."""
        if features.shape[0] == 0:
            return
        if self._base.size == 0:
            self._scores = np.zeros((0, scores.shape[1]))
        keys = row_keys(features)
        if self._base.size + keys.size > self.limit:
            keep = slice(max(self._base.size // 2, self._base.size + keys.size - self.limit), None)
            self._keys, self._base, self._scores = self._keys[keep], self._base[keep], self._scores[keep]
        self._keys = np.concatenate([self._keys, keys]) if self._base.size else keys
        self._base = np.concatenate([self._base, np.asarray(base, dtype=float)])
        self._scores = np.concatenate([self._scores, scores])
        self._sorted = np.argsort(self._keys, kind="stable")

    def _find(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = features.shape[0]
        if self._base.size == 0 or n == 0:
            return np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
        keys = row_keys(features)
        ordered = self._keys[self._sorted]
        position = np.minimum(np.searchsorted(ordered, keys), ordered.size - 1)
        hit = ordered[position] == keys
        return hit, self._sorted[position]

    def __getstate__(self) -> dict[str, Any]:
        """Pickle empty: the scores belong to a model the copy does not see."""
        return {"limit": self.limit}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["limit"])  # type: ignore[misc]
