"""Observed panels: per-step, per-group aggregates a lender could publish, and the same from a run's ledger.

A *panel* has one row per (``step``, ``group``) and one column per statistic:

* ``applicants``: agents scored at that step (the ledger's rows);
* ``approvals``: of them, those selected;
* ``reapplicants``: of them, those applying again after a refusal: scored at an earlier step and not
  selected at the latest of those steps (a borrower who re-applies after a loan is not one);
* ``mean_score``: their mean score under the decision model.

:func:`panel_statistics` computes a panel from a ledger; observed and simulated panels both come from
it, so they are summarised identically. :func:`read_panel` reads and checks a CSV panel.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError

#: Statistic column -> what it holds.
PANEL_STATISTICS: dict[str, str] = {
    "applicants": "agents scored at the step",
    "approvals": "of them, those selected",
    "reapplicants": "of them, those refused when they last applied",
    "mean_score": "their mean score",
}
#: The statistics that are counts (non-negative whole numbers, at most ``applicants``).
COUNTS = ("applicants", "approvals", "reapplicants")


def panel_statistics(ledger: pd.DataFrame, groups: Sequence[str], steps: int) -> pd.DataFrame:
    """The panel of a run: one row per (step, group) for steps ``0 … steps`` and every group.

    A (step, group) with no applicant has zero counts and a ``mean_score`` of NaN.

    Args:
        ledger: The run's ledger (``step``, ``agent_id``, ``group``, ``score``, ``selected`` columns).
        groups: The scenario's group names, in order.
        steps: The last step ``T``.

    Returns:
        Columns ``step, group`` and :data:`PANEL_STATISTICS`, sorted by step then group order.
    """
    step = ledger["step"].to_numpy(dtype=np.int64)
    agent = ledger["agent_id"].to_numpy(dtype=np.int64)
    selected = ledger["selected"].to_numpy(dtype=bool)
    # A re-applicant's previous row (same agent, the latest earlier step) was a refusal.
    order = np.lexsort((step, agent))
    again = np.zeros(len(step), dtype=bool)
    again[order[1:]] = (agent[order[1:]] == agent[order[:-1]]) & ~selected[order[:-1]]
    names = list(groups)
    code = _group_codes(ledger["group"], names)
    keep = (code >= 0) & (step <= steps)
    cell = (step * len(names) + code)[keep]
    size = (steps + 1) * len(names)
    applicants = np.bincount(cell, minlength=size)
    scores = np.bincount(cell, weights=ledger["score"].to_numpy(dtype=float)[keep], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.where(applicants > 0, scores / np.maximum(applicants, 1), np.nan)
    return pd.DataFrame(
        {
            "step": np.repeat(np.arange(steps + 1, dtype=np.int64), len(names)),
            "group": np.tile(np.asarray(names, dtype=object), steps + 1),
            "applicants": applicants.astype(np.int64),
            "approvals": np.bincount(cell, weights=selected[keep].astype(float), minlength=size)
            .round()
            .astype(np.int64),
            "reapplicants": np.bincount(cell, weights=again[keep], minlength=size).round().astype(np.int64),
            "mean_score": mean_score,
        }
    )


def _group_codes(group: pd.Series, names: list[str]) -> np.ndarray:
    """Each row's index in ``names`` (-1 for a group not in it), from a categorical column's codes when it is one."""
    if isinstance(group.dtype, pd.CategoricalDtype):  # a run's ledger: recode the categories, not every row
        lookup = pd.Index(names).get_indexer(group.cat.categories.astype(str))
        codes = group.cat.codes.to_numpy(dtype=np.int64)
        return np.where(codes >= 0, lookup[codes], -1)
    return pd.Categorical(group.astype(str), categories=names).codes.astype(np.int64)


def read_panel(path: str | Path, groups: Sequence[str], steps: int) -> pd.DataFrame:
    """Read and check an observed panel (CSV), for a scenario with ``groups`` and steps ``0 … steps``.

    The file has columns ``step`` and ``group`` and one or more of :data:`PANEL_STATISTICS`. Each
    group it names is one of the scenario's and has a row for every step ``0 … S`` (``S ≤ steps``,
    the same ``S`` for every group); counts are non-negative whole numbers, ``approvals`` and
    ``reapplicants`` at most ``applicants``; every value is finite.

    Args:
        path: The CSV file.
        groups: The scenario's group names.
        steps: The scenario's last step ``T``.

    Returns:
        The panel, sorted by step and group order, with ``step`` as integers.

    Raises:
        ConfigError: An unreadable file or any of the problems above, naming the column and the fix.
    """
    field = f"--data {path}"
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ConfigError(
            field, f"cannot be read as CSV ({error})", "give a CSV file of step, group, statistics"
        ) from None
    _check_columns(field, frame)
    frame = frame.astype({"group": str})
    _check_values(field, frame)
    _check_groups_and_steps(field, frame, groups, steps)
    order = {name: i for i, name in enumerate(groups)}
    frame["step"] = frame["step"].astype(np.int64)
    frame = frame.sort_values(["step", "group"], key=lambda c: c.map(order) if c.name == "group" else c)
    return frame.reset_index(drop=True)


def _check_columns(field: str, frame: pd.DataFrame) -> None:
    missing = [c for c in ("step", "group") if c not in frame.columns]
    if missing:
        raise ConfigError(field, f"has no {' or '.join(missing)} column", "give columns step, group and statistics")
    unknown = [c for c in frame.columns if c not in ("step", "group", *PANEL_STATISTICS)]
    if unknown:
        raise ConfigError(
            field, f"has unknown column {unknown[0]!r}", f"use step, group and {', '.join(PANEL_STATISTICS)}"
        )
    if not any(c in frame.columns for c in PANEL_STATISTICS):
        raise ConfigError(field, "has no statistic column", f"give one or more of {', '.join(PANEL_STATISTICS)}")
    if len(frame) == 0:
        raise ConfigError(field, "has no rows", "give one row per step and group")


def _check_values(field: str, frame: pd.DataFrame) -> None:
    for column in ("step", *[c for c in PANEL_STATISTICS if c in frame.columns]):
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ConfigError(
                f"{field} column {column}", f"row {row + 2} is {frame[column].iloc[row]!r}", "give a finite number"
            )
        if column in ("step", *COUNTS):
            wrong = (values < 0) | (values != np.round(values))
            if wrong.any():
                row = int(np.flatnonzero(wrong)[0])
                raise ConfigError(
                    f"{field} column {column}", f"row {row + 2} is {values[row]:g}", "give a non-negative whole number"
                )
        frame[column] = values
    for column in ("approvals", "reapplicants"):
        if column in frame.columns and "applicants" in frame.columns:
            over = frame[column] > frame["applicants"]
            if over.any():
                row = int(np.flatnonzero(over.to_numpy())[0])
                raise ConfigError(f"{field} column {column}", f"row {row + 2} exceeds applicants", "fix the counts")


def _check_groups_and_steps(field: str, frame: pd.DataFrame, groups: Sequence[str], steps: int) -> None:
    unknown = sorted(set(frame["group"]) - set(groups))
    if unknown:
        raise ConfigError(
            f"{field} column group", f"{unknown[0]!r} is not a group of the scenario", f"use {', '.join(groups)}"
        )
    if frame.duplicated(["step", "group"]).any():
        step, group = frame.loc[frame.duplicated(["step", "group"]), ["step", "group"]].iloc[0]
        raise ConfigError(field, f"has two rows for step {int(step)}, group {group}", "give one row per step and group")
    last = int(frame["step"].max())
    if last > steps:
        raise ConfigError(
            f"{field} column step", f"reaches step {last}; the scenario ends at {steps}", "drop later steps"
        )
    for group, rows in frame.groupby("group"):
        missing = sorted(set(range(last + 1)) - set(rows["step"].astype(int)))
        if missing:
            raise ConfigError(
                f"{field} column step", f"group {group} has no row for step {missing[0]}", f"give steps 0 to {last}"
            )
