"""Counterfactual scoring: apply actions to individuals, de-duplicate the rows, ask the model in batches.

The costly step of FACTS is applying every valid action to every covered individual and asking
the model. Here it is done once per distinct counterfactual row: an action ``a`` fixing the
features ``F`` maps an individual ``x`` to a row that depends only on ``x``'s values outside
``F`` (its *context*), so all (individual, action) applications are collected as integer keys,
de-duplicated, decoded and scored in a few large batches. The number of model calls depends on
the number of distinct counterfactual rows, not on subgroups x actions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.keys import code_radix
from recoursesim.auditors.facts.mining import mask_columns

#: Rows per model call.
BATCH_ROWS = 250_000


class CounterfactualScorer:
    """Collect (context, action) counterfactuals, de-duplicate them, and score them in batches.

    When every row fits a mixed-radix int64 key, a counterfactual is the key of its context (the
    row with the action's features blanked) plus the key of the action; keys are de-duplicated
    across all plans, decoded once and scored in batches of :data:`BATCH_ROWS`. Otherwise the
    rows are de-duplicated within each plan only.

    Use: :meth:`add` one plan per action feature mask, :meth:`run` once, then read each plan's
    :meth:`result`.

    Args:
        space: The encoded data (its value counts fix the mixed radix).
        codes: ``(n, d)`` code matrix of the individuals the plans refer to.
        predict: Maps a code matrix to a boolean array, True for the favourable prediction.

    Attributes:
        n_rows: Distinct counterfactual rows scored (set by :meth:`run`).
        n_applications: (individual, action) applications queued.
        n_calls: Calls of ``predict``.
    """

    #: Pending keys are reduced to their distinct values once this many accumulate.
    FLUSH_KEYS = 4_000_000

    def __init__(self, space: ItemSpace, codes: np.ndarray, predict: Callable[[np.ndarray], np.ndarray]) -> None:
        self.space = space
        self.codes = codes
        self.predict = predict
        self.radix = code_radix(space.values)
        self.keyed = self.radix.fits
        self.plans: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.pending: list[np.ndarray] = []
        self.distinct: list[np.ndarray] = []
        self.n_pending = 0
        self.n_rows = 0
        self.n_applications = 0
        self.n_calls = 0
        self.index: pd.Index | None = None
        self.positive: np.ndarray | None = None
        self.starts: np.ndarray | None = None

    def add(self, fmask: int, avalues: np.ndarray, rows: np.ndarray) -> None:
        """Queue applying each of ``avalues`` (full-width action rows) to ``codes[rows]``.

        Args:
            fmask: Feature mask ``F`` the actions fix.
            avalues: ``(k, d)`` action rows (value codes on ``F``).
            rows: Indices into ``codes`` of the individuals to apply them to.
        """
        d = self.codes.shape[1]
        inside = np.zeros(d, dtype=bool)
        inside[mask_columns(fmask, d)] = True
        self.n_applications += len(rows) * len(avalues)
        if self.keyed:
            context = self.radix.pack(np.where(inside, 0, self.codes[rows] + 1))
            unique, inverse = np.unique(context, return_inverse=True)
            action_key = self.radix.pack(np.where(inside, avalues + 1, 0))
            self.plans.append((unique, inverse.astype(np.int32), action_key))
            self.pending.append((unique[:, None] + action_key[None, :]).ravel())
            self.n_pending += len(unique) * len(action_key)
            if self.n_pending >= self.FLUSH_KEYS:
                self._flush()
        else:
            context = np.where(inside, -1, self.codes[rows])
            unique, inverse = np.unique(context, axis=0, return_inverse=True)
            self.plans.append((unique, inverse.ravel().astype(np.int32), avalues))

    def _flush(self) -> None:
        """Reduce the pending keys to their distinct values (bounds memory)."""
        if self.pending:
            self.distinct.append(pd.unique(np.concatenate(self.pending)))
        self.pending, self.n_pending = [], 0

    def run(self) -> None:
        """Score all queued counterfactuals."""
        if self.keyed:
            self._flush()
            keys = pd.unique(np.concatenate(self.distinct)) if self.distinct else np.zeros(0, dtype=np.int64)
            self.distinct = []
            self.positive = self._score(np.asarray(keys, dtype=np.int64))
            self.index = pd.Index(keys)
            self.n_rows = len(keys)
            return
        blocks = []
        for unique, _, avalues in self.plans:
            rows = np.repeat(unique, len(avalues), axis=0)
            tiled = np.tile(avalues, (len(unique), 1))
            blocks.append(np.where(tiled >= 0, tiled, rows))
        stacked = np.concatenate(blocks) if blocks else np.zeros((0, self.codes.shape[1]), dtype=np.int32)
        self.starts = np.cumsum([0] + [len(b) for b in blocks])
        self.n_rows = len(stacked)
        self.positive = self._score(stacked)

    def result(self, plan_index: int) -> np.ndarray:
        """Return ``(len(rows), k)``: does each action work for each queued row.

        Args:
            plan_index: Position of the plan in the order of :meth:`add` calls (after :meth:`run`).
        """
        assert self.positive is not None  # set by run()
        unique, inverse, actions = self.plans[plan_index]
        if self.keyed:
            assert self.index is not None  # set by run() together with positive
            keys = (unique[:, None] + actions[None, :]).ravel()
            block = self.positive[self.index.get_indexer(keys)]
        else:
            assert self.starts is not None  # set by run() together with positive
            start = int(self.starts[plan_index])
            block = self.positive[start : start + len(unique) * len(actions)]
        return block.reshape(len(unique), len(actions))[inverse]

    def _score(self, rows: np.ndarray) -> np.ndarray:
        """Score code rows (mixed-radix keys when keyed, decoded a batch at a time) in batches."""
        out = np.zeros(len(rows), dtype=bool)
        for start in range(0, len(rows), BATCH_ROWS):
            batch = rows[start : start + BATCH_ROWS]
            out[start : start + BATCH_ROWS] = self.predict(
                (self.radix.unpack(batch) - 1).astype(np.int32) if self.keyed else batch
            )
            self.n_calls += 1
        return out
