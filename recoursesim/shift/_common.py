"""Helpers the shift and ground-truth observers share."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.ledger import Ledger, StepRecord
from recoursesim.observers import PopulationSnapshot

#: Columns of every observer result built here.
ROW_COLUMNS = ["group", "metric", "value"]


def check_name(name: object) -> str:
    """Validate an observer name (a non-empty string)."""
    if not isinstance(name, str) or not name:
        raise ConfigError("name", f"must be a non-empty string, got {name!r}", 'write name = "..."')
    return name


def run_ledger(snapshot: PopulationSnapshot) -> Ledger:
    """The run's ledger from the snapshot, or a clear error if the snapshot has none."""
    if snapshot.ledger is None or snapshot.ledger.n_steps == 0 or snapshot.group_of is None:
        raise ConfigError(
            "observers", "this observer needs the run's ledger", "run it inside a RecourseModel (as [[observers]])"
        )
    return snapshot.ledger


def step_zero(snapshot: PopulationSnapshot) -> tuple[StepRecord, np.ndarray]:
    """The ledger record of step 0 and the group codes of the agents scored there."""
    record = run_ledger(snapshot).step_record(0)
    groups = np.asarray(snapshot.group_of)[record.agent_id].astype(np.int64)
    return record, groups


def cut_off(threshold: float | np.ndarray) -> float:
    """One number for a step's cut-off: the value itself, or the median of per-agent thresholds."""
    values = np.asarray(threshold, dtype=float).ravel()
    finite = values[np.isfinite(values)]
    return float(np.median(finite)) if finite.size else float("nan")


def rows(entries: list[tuple[object, str, float]]) -> pd.DataFrame:
    """Build an observer result from ``(group, metric, value)`` triples (``group`` NA = everyone)."""
    return pd.DataFrame(entries, columns=ROW_COLUMNS, dtype=object).astype({"metric": str, "value": float})
