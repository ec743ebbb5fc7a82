"""The population as columns: one row per agent ever entered, rows never move."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

import numpy as np
import pandas as pd

from recoursesim._categories import category_dtype
from recoursesim.populations.base import Cohort


class Status(IntEnum):
    """Where an agent is."""

    WAITING = 0  # in the system, competing each step
    SELECTED = 1  # got the positive outcome and left
    GAVE_UP = 2  # left without a positive outcome (only with a finite patience)


class AgentTable:
    """Columnar state of every agent that has entered a run.

    Row ``i`` is agent id ``i``; ids are given in entry order, so ordering by id is ordering by
    entry step, then draw order. Arrays grow geometrically; the ``*_`` views below cover only the
    filled rows.

    Args:
        n_features: Number of features.
        capacity: Initial number of rows to allocate.
    """

    def __init__(self, n_features: int, capacity: int = 1024) -> None:
        capacity = max(int(capacity), 1)
        self.n = 0
        self._features = np.empty((capacity, n_features))
        self._group = np.empty(capacity, dtype=np.int16)
        self._effort = np.empty(capacity)
        self._entry_step = np.empty(capacity, dtype=np.int32)
        self._exit_step = np.empty(capacity, dtype=np.int32)
        self._status = np.empty(capacity, dtype=np.int8)
        self._score = np.empty(capacity)
        self._initial_score = np.empty(capacity)
        self._effort_spent = np.empty(capacity)

    def append(self, cohort: Cohort, entry_step: int) -> np.ndarray:
        """Add a cohort entering at ``entry_step``; return the new agents' ids."""
        m = len(cohort)
        if self.n + m > self._group.shape[0]:
            self._grow(self.n + m)
        rows = np.arange(self.n, self.n + m)
        self._features[rows] = cohort.features
        self._group[rows] = cohort.group
        self._effort[rows] = cohort.effort
        self._entry_step[rows] = entry_step
        self._exit_step[rows] = -1
        self._status[rows] = Status.WAITING
        self._score[rows] = np.nan
        self._initial_score[rows] = np.nan
        self._effort_spent[rows] = 0.0
        self.n += m
        return rows

    def _grow(self, needed: int) -> None:
        capacity = max(needed, 2 * self._group.shape[0])
        for name in (
            "_features",
            "_group",
            "_effort",
            "_entry_step",
            "_exit_step",
            "_status",
            "_score",
            "_initial_score",
            "_effort_spent",
        ):
            old = getattr(self, name)
            new = np.empty((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: self.n] = old[: self.n]
            setattr(self, name, new)

    @property
    def features(self) -> np.ndarray:
        """``(n, d)`` current (or, for agents who left, last) features."""
        return self._features[: self.n]

    @property
    def group(self) -> np.ndarray:
        """Group code of each agent."""
        return self._group[: self.n]

    @property
    def effort(self) -> np.ndarray:
        """Effort capacity of each agent (drawn on entry)."""
        return self._effort[: self.n]

    @property
    def entry_step(self) -> np.ndarray:
        """Step at which each agent was first scored."""
        return self._entry_step[: self.n]

    @property
    def exit_step(self) -> np.ndarray:
        """Step at which each agent left (``-1`` while waiting)."""
        return self._exit_step[: self.n]

    @property
    def status(self) -> np.ndarray:
        """:class:`Status` code of each agent."""
        return self._status[: self.n]

    @property
    def score(self) -> np.ndarray:
        """Score at the agent's latest scoring (NaN before its first)."""
        return self._score[: self.n]

    @property
    def effort_spent(self) -> np.ndarray:
        """Feature-space cost each agent has spent so far."""
        return self._effort_spent[: self.n]

    @property
    def initial_score(self) -> np.ndarray:
        """Score at the agent's first scoring (NaN before it)."""
        return self._initial_score[: self.n]

    def frame(self, group_names: Sequence[str]) -> pd.DataFrame:
        """One row per agent ever entered: group, entry and exit step, status, effort capacity."""
        table = self
        return pd.DataFrame(
            {
                "agent_id": np.arange(table.n, dtype=np.int64),
                "group": pd.Categorical.from_codes(table.group.astype(np.int64), dtype=category_dtype(group_names)),
                "entry_step": table.entry_step.copy(),
                "exit_step": table.exit_step.copy(),
                "status": pd.Categorical.from_codes(
                    table.status.astype(np.int64), dtype=category_dtype(s.name.lower() for s in Status)
                ),
                "effort_capacity": table.effort.copy(),
            }
        )
