"""Durability measures per group and step, computed from a run's recommendation fates."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recoursesim.durability.survival import kaplan_meier

#: Horizons reported by default (steps after the recommendation was issued).
HORIZONS: tuple[int, ...] = (1, 3, 5)


def _validity(valid: pd.Series) -> float:
    """Share of the judged recommendations (not NA) that are valid; NaN when none can be judged."""
    known = valid.dropna()
    return float(known.astype(bool).mean()) if len(known) else float("nan")


def expired_effort_share(fates: pd.DataFrame) -> float:
    """Share of effort spent chasing recommendations that had expired by the step the move could pay off.

    Effort spent at step ``t`` goes toward the recommendation issued at ``t``; the move is judged
    at ``t + 1``. Recommendations issued at the run's last step (never judged) are left out.
    """
    judged = fates["valid_1"].notna().to_numpy()
    effort = fates["effort"].to_numpy(dtype=float)[judged]
    lost = ~fates["valid_1"].to_numpy(dtype=bool, na_value=True)[judged]
    total = effort.sum()
    return float(effort[lost].sum() / total) if total > 0 else float("nan")


def durability_summary(fates: pd.DataFrame, horizons: Sequence[int] = HORIZONS) -> pd.DataFrame:
    """Per group: how many recommendations, their validity at each horizon, the effort lost, the median duration.

    Returns:
        One row per group: ``n_recommendations``, ``valid_at_issue``, ``validity_<h>`` (share of the
        recommendations still valid ``h`` steps later, among those the run lasted long enough to
        judge), ``survival_<h>`` (the Kaplan–Meier probability that a recommendation stayed valid at
        every step up to ``h``), ``median_duration`` (the first ``h`` with survival at or below one
        half; NaN if it stays above) and ``expired_effort_share``.
    """
    rows = []
    for group, part in fates.groupby("group", observed=False, sort=True):
        row: dict[str, object] = {
            "group": group,
            "n_recommendations": len(part),
            "valid_at_issue": _validity(part["valid_0"]),
        }
        for h in horizons:
            row[f"validity_{h}"] = _validity(part[f"valid_{h}"]) if f"valid_{h}" in part else float("nan")
        curve = kaplan_meier(part["duration"].to_numpy(), part["expired"].to_numpy())
        for h in horizons:
            row[f"survival_{h}"] = _survival_at(curve, h)
        below = curve.loc[curve["survival"] <= 0.5, "time"]
        row["median_duration"] = float(below.iloc[0]) if len(below) and len(part) else float("nan")
        row["expired_effort_share"] = expired_effort_share(part)
        rows.append(row)
    return pd.DataFrame(rows)


def _survival_at(curve: pd.DataFrame, h: int) -> float:
    """``S(h)`` from a Kaplan–Meier table (NaN past the last time anyone was followed)."""
    at = curve.loc[curve["time"] == h]
    if at.empty or at["at_risk"].iloc[0] == 0:
        return float("nan")
    return float(at["survival"].iloc[0])


def durability_by_step(fates: pd.DataFrame, horizons: Sequence[int] = HORIZONS) -> pd.DataFrame:
    """Per issue step and group: the number of recommendations and their validity ``h`` steps later."""
    grouped = fates.groupby(["step", "group"], observed=False, sort=True)
    out = grouped.size().rename("n_recommendations").reset_index()
    for h in (h for h in horizons if f"valid_{h}" in fates):
        out[f"validity_{h}"] = grouped[f"valid_{h}"].agg(_validity).to_numpy()
    return out[out["n_recommendations"] > 0].reset_index(drop=True)


def survival_by_group(fates: pd.DataFrame) -> pd.DataFrame:
    """The Kaplan–Meier table (:func:`~recoursesim.durability.kaplan_meier`) of each group, stacked."""
    frames = []
    for group, part in fates.groupby("group", observed=False, sort=True):
        curve = kaplan_meier(part["duration"].to_numpy(), part["expired"].to_numpy())
        frames.append(curve.assign(group=group))
    if not frames:
        return pd.DataFrame(columns=["group", "time", "at_risk", "expired", "censored", "survival", "std_error"])
    out = pd.concat(frames, ignore_index=True)
    return out[["group", *[c for c in out.columns if c != "group"]]]


def group_gaps(summary: pd.DataFrame, reference: str, columns: Sequence[str], by: Sequence[str] = ()) -> pd.DataFrame:
    """Each group's ``columns`` minus the reference group's, within each ``by`` key (for example the seed).

    Returns:
        ``by``, ``group`` and one ``<column>_gap`` per column (the reference group's gaps are 0).
    """
    keys = list(by)
    ref = summary[summary["group"].astype(str) == reference][[*keys, *columns]]
    if keys:
        merged = summary.merge(ref, on=keys, how="left", suffixes=("", "_ref"))
    else:
        merged = summary.assign(**{f"{c}_ref": float(ref[c].iloc[0]) if len(ref) else np.nan for c in columns})
    out = merged[[*keys, "group"]].copy()
    for column in columns:
        out[f"{column}_gap"] = merged[column] - merged[f"{column}_ref"]
    return out
