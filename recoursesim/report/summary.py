"""A short plain-language summary of what a report's numbers say."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim.metrics import EIGHTY_PERCENT_BAND
from recoursesim.report.aggregate import run_selection_rates
from recoursesim.stats import NO_INTERVAL


def _interval(row: pd.Series, column: str, digits: int = 2) -> str:
    mean, low, high = row[f"{column}_mean"], row[f"{column}_low"], row[f"{column}_high"]
    if row[f"{column}_n"] > 1:
        return f"{mean:.{digits}f} (95% CI {low:.{digits}f} to {high:.{digits}f})"
    return f"{mean:.{digits}f} ({NO_INTERVAL})"


def _band_verdict(row: pd.Series, low: float, high: float) -> str:
    """Where rETR lies against the 80% rule's band: its CI with several seeds, its value with one."""
    lower, upper = (row["retr_low"], row["retr_high"]) if row["retr_n"] > 1 else (row["retr_mean"], row["retr_mean"])
    if low <= lower and upper <= high:
        return "inside the 80% rule's band"
    if upper < low or lower > high:
        return "outside the 80% rule's band"
    return "straddling the edge of the 80% rule's band"


def plain_summary(
    *,
    scenario_name: str,
    n_seeds: int,
    steps: int,
    reference: str,
    pooled: pd.DataFrame,
    counts: pd.DataFrame,
    step_frame: pd.DataFrame,
) -> list[str]:
    """Return a few sentences describing the pooled disparities, the agents left out and selection rates.

    Args:
        scenario_name: The scenario's name.
        n_seeds: Number of seeds.
        steps: ``T``.
        reference: The reference group.
        pooled: :func:`~recoursesim.report.aggregate.pooled_over_seeds`.
        counts: :func:`~recoursesim.report.aggregate.outcome_counts`.
        step_frame: :func:`~recoursesim.report.aggregate.step_metrics` (per seed, step and group).

    Returns:
        One string per sentence group.
    """
    low, high = EIGHTY_PERCENT_BAND
    seeds = f"{n_seeds} seed{'s' if n_seeds != 1 else ''}"
    lines = [f"Scenario {scenario_name}, steps 0 to {steps}, {seeds}; disparities are measured against {reference}."]
    pooled = pooled.set_index("group")
    counts = counts.set_index("group")
    for group in pooled.index:
        if group == reference:
            continue
        row = pooled.loc[group]
        if np.isfinite(row["retr_mean"]):
            lines.append(
                f"{group.capitalize()} agents who reached recourse spent {_interval(row, 'retr')} times the effort "
                f"of {reference} agents (rETR), {_band_verdict(row, low, high)} [{low}, {high}]."
            )
        if np.isfinite(row["dttr_mean"]):
            if row["dttr_n"] > 1 and row["dttr_low"] <= 0 <= row["dttr_high"]:
                lines.append(
                    f"Their time to recourse did not differ from {reference} agents' by more than the uncertainty "
                    f"across seeds (dTTR {_interval(row, 'dttr')})."
                )
            else:
                longer = "longer" if row["dttr_mean"] > 0 else "shorter"
                lines.append(
                    f"They waited {abs(row['dttr_mean']):.2f} steps {longer} on average than {reference} agents "
                    f"(dTTR {_interval(row, 'dttr')})."
                )
    never = []
    for group in counts.index:
        row = counts.loc[group]
        share = row["never_successful_mean"] / row["entered_mean"] if row["entered_mean"] > 0 else np.nan
        never.append(f"{share:.0%} of {group} agents ({row['never_successful_mean']:.0f} per run)")
    lines.append(
        "Never successful by the end (censored or gave up): " + "; ".join(never) + ". These agents are not in ETR/TTR."
    )
    per_run = run_selection_rates(step_frame, reference).groupby("group")[["rate", "ratio"]].mean()
    rates, ratios = per_run["rate"], per_run["ratio"]
    if reference in rates and rates[reference] > 0:
        parts = [
            f"{group} {rates[group]:.3f} ({ratios[group]:.2f} times {reference})"
            for group in rates.index
            if group != reference
        ]
        lines.append(
            f"Selection rate over all steps (mean over runs of selected / scored agent-steps): {reference} "
            f"{rates[reference]:.3f}; " + "; ".join(parts) + " (demographic parity is 1)."
        )
    return lines
