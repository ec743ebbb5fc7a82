"""Selection-boundary shift: the cut-off ``s_t`` of each step and how it moves."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim._validate import check_int
from recoursesim.component import Component
from recoursesim.observers import PopulationSnapshot
from recoursesim.registry import register
from recoursesim.shift._common import check_name, cut_off, rows, run_ledger


@register("observer", "selection_boundary")
class SelectionBoundaryObserver(Component):
    """The cut-off ``s_t`` of the step just run, its change since the last observation and since step 0.

    With one threshold for everybody (top-k, threshold selection) ``s_t`` is that number; with
    per-agent thresholds (for example circumstance-normalised selection) the overall row is their
    median and each group gets the median of its members' thresholds.

    Args:
        every: Observe every ``every`` steps.
        name: Observer name in the observations.
    """

    def __init__(self, every: int = 1, name: str = "selection_boundary") -> None:
        self.every = every
        check_int("every", every, minimum=1)
        self.name = name
        check_name(name)
        self._first: dict[object, float] = {}
        self._last: dict[object, float] = {}

    def observe(self, snapshot: PopulationSnapshot) -> pd.DataFrame:
        """Return rows ``group, metric, value`` with ``threshold``, ``change`` and ``drift``.

        ``change`` is ``s_t`` minus the cut-off at the previous observation (NaN at the first),
        ``drift`` is ``s_t - s_0``. Per-group rows appear only with per-agent thresholds.
        """
        ledger = run_ledger(snapshot)
        if snapshot.step == 0:
            self._first, self._last = {}, {}
        record = ledger.step_record(ledger.n_steps - 1)
        values: dict[object, float] = {pd.NA: cut_off(record.threshold)}
        if np.ndim(record.threshold) == 1:
            group = np.asarray(snapshot.group_of)[record.agent_id].astype(np.int64)
            thresholds = np.asarray(record.threshold, dtype=float)
            for code, group_name in enumerate(snapshot.group_names):
                values[group_name] = cut_off(thresholds[group == code])  # NaN when no one in the group was scored
        entries: list[tuple[object, str, float]] = []
        for label, value in values.items():
            first = self._first.setdefault(label, value)
            previous = self._last.get(label, float("nan"))
            self._last[label] = value
            entries += [
                (label, "threshold", value),
                (label, "change", value - previous),
                (label, "drift", value - first),
            ]
        return rows(entries)
