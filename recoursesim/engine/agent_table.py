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


class _Filled:
    """A column of :class:`AgentTable` as a view of its filled rows (the array ``_name`` up to ``n``)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.private = f"_{name}"

    def __get__(self, table: AgentTable, owner: type | None = None) -> np.ndarray:
        return getattr(table, self.private)[: table.n]


#: Each column's dtype and the value it starts with when an agent enters (``None``: the cohort's).
_COLUMNS: dict[str, tuple[type, float | None]] = {
    "features": (float, None),
    "group": (np.int16, None),
    "effort": (float, None),
    "entry_step": (np.int32, None),
    "exit_step": (np.int32, -1),
    "status": (np.int8, Status.WAITING),
    "score": (float, np.nan),
    "initial_score": (float, np.nan),
    "effort_spent": (float, 0.0),
}


class AgentTable:
    """Columnar state of every agent that has entered a run.

    Row ``i`` is agent id ``i``; ids are given in entry order, so ordering by id is ordering by
    entry step, then draw order. Arrays grow geometrically; the columns below are views of the
    filled rows only.

    Args:
        n_features: Number of features.
        capacity: Initial number of rows to allocate.
    """

    #: ``(n, d)`` current (or, for agents who left, last) features.
    features = _Filled()
    #: Group code of each agent.
    group = _Filled()
    #: Effort capacity of each agent (drawn on entry).
    effort = _Filled()
    #: Step at which each agent was first scored.
    entry_step = _Filled()
    #: Step at which each agent left (``-1`` while waiting).
    exit_step = _Filled()
    #: :class:`Status` code of each agent.
    status = _Filled()
    #: Score at the agent's latest scoring (NaN before its first).
    score = _Filled()
    #: Score at the agent's first scoring (NaN before it).
    initial_score = _Filled()
    #: Feature-space cost each agent has spent so far.
    effort_spent = _Filled()
    _group: np.ndarray  # its length is the capacity

    def __init__(self, n_features: int, capacity: int = 1024) -> None:
        capacity = max(int(capacity), 1)
        self.n = 0
        for name, (dtype, _) in _COLUMNS.items():
            shape = (capacity, n_features) if name == "features" else (capacity,)
            setattr(self, f"_{name}", np.empty(shape, dtype=dtype))

    def append(self, cohort: Cohort, entry_step: int) -> np.ndarray:
        """Add a cohort entering at ``entry_step``; return the new agents' ids."""
        m = len(cohort)
        if self.n + m > self._group.shape[0]:
            self._grow(self.n + m)
        rows = np.arange(self.n, self.n + m)
        given = {"features": cohort.features, "group": cohort.group, "effort": cohort.effort, "entry_step": entry_step}
        for name, (_, start) in _COLUMNS.items():
            getattr(self, f"_{name}")[rows] = given[name] if start is None else start
        self.n += m
        return rows

    def _grow(self, needed: int) -> None:
        capacity = max(needed, 2 * self._group.shape[0])
        for name in _COLUMNS:
            old = getattr(self, f"_{name}")
            new = np.empty((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: self.n] = old[: self.n]
            setattr(self, f"_{name}", new)

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
