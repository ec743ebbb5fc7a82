"""Across-seed means and confidence intervals of the per-step and pooled metrics of a results directory."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recoursesim.metrics import agent_outcomes, until_first_success, utility_over_time
from recoursesim.report.results import Results
from recoursesim.stats import describe_groups, format_interval

#: Per-step metrics averaged across seeds (columns of ``metrics.parquet`` plus demographic parity).
STEP_METRICS = (
    "etr",
    "ttr",
    "retr",
    "dttr",
    "selection_rate",
    "dp_ratio",
    "dp_difference",
    "mean_selected_score",
    "mean_selected_initial_score",
)


#: Bounded per-step quantities: their interval across seeds is the percentile bootstrap's, which
#: stays inside the range; every other quantity gets the interval ``method`` names.
BOUNDED = frozenset({"selection_rate", "dp_difference"})
#: Quantities that cannot be negative (efforts, times, their ratios): a Student-t interval that reaches
#: below 0 is replaced by the percentile bootstrap's, which stays inside the seeds' range
#: (:func:`recoursesim.stats.bounded_interval` for one sample).
NON_NEGATIVE = frozenset({"etr", "ttr", "retr", "dp_ratio"})


def mean_ci(
    frame: pd.DataFrame, by: Sequence[str], columns: Sequence[str], confidence: float = 0.95, method: str = "t"
) -> pd.DataFrame:
    """Mean and interval across rows (seeds) of each column, per ``by`` key.

    The statistics are :func:`recoursesim.stats.describe_groups`'s: non-finite values are left
    out; with one finite value the bounds are NaN (no interval), with none everything is NaN.
    A column missing from ``frame`` counts as all NaN. ``method`` is ``"t"`` (Student-t) or
    ``"bootstrap"`` (percentile bootstrap, which keeps a bounded quantity's bounds inside its range);
    the bounded quantities of :data:`BOUNDED` always get the bootstrap, and those of
    :data:`NON_NEGATIVE` get it for every key whose t-interval would reach below 0.

    Returns:
        One row per key (sorted) with ``<column>_n``, ``<column>_mean``, ``<column>_low``, ``<column>_high``.
    """
    keys = list(by)
    out = frame[keys].drop_duplicates().sort_values(keys, kind="stable", na_position="last", ignore_index=True)
    for column in columns:
        values = frame[[*keys, column]] if column in frame else frame[keys].assign(**{column: np.nan})
        chosen = "bootstrap" if column in BOUNDED else method
        described = describe_groups(values, keys, column, confidence, chosen)
        below = (described["ci_low"] < 0).to_numpy()
        if column in NON_NEGATIVE and chosen == "t" and below.any():
            bootstrap = describe_groups(values, keys, column, confidence, "bootstrap")  # same keys, same order
            for bound in ("ci_low", "ci_high"):
                described.loc[below, bound] = bootstrap.loc[below, bound].to_numpy()
        names = {"n": f"{column}_n", "mean": f"{column}_mean", "ci_low": f"{column}_low", "ci_high": f"{column}_high"}
        renamed = described[[*keys, *names]].rename(columns=names)
        out = out.merge(renamed, on=keys, how="left")
    return out


def interval_texts(summary: pd.DataFrame, column: str, digits: int = 3) -> list[str]:
    """``column``'s ``mean [low, high]`` per row of a :func:`mean_ci` table."""
    parts = (summary[f"{column}_{part}"] for part in ("mean", "low", "high", "n"))
    return [format_interval(m, lo, hi, int(n), digits) for m, lo, hi, n in zip(*parts, strict=True)]


def interval_columns(
    frame: pd.DataFrame, columns: dict[str, str], digits: int = 3, keys: Sequence[str] = ("group",)
) -> pd.DataFrame:
    """A table of ``mean [low, high]`` texts (:func:`interval_texts`) per ``keys``: ``columns`` maps column to label."""
    out = frame[list(keys)].copy()
    for column, label in columns.items():
        out[label] = interval_texts(frame, column, digits)
    return out


def reference_group(results: Results) -> str:
    """The group disparities are measured against (the scenario's, else the first group)."""
    groups = group_names(results)
    return results.scenario.reference_group or groups[0]


def group_names(results: Results) -> list[str]:
    """Group names, in the ledger's category order."""
    group = results.runs[0].summary["group"]
    return (
        [str(g) for g in group.cat.categories]
        if isinstance(group.dtype, pd.CategoricalDtype)
        else [str(g) for g in group]
    )


def step_metrics(results: Results) -> pd.DataFrame:
    """Per (seed, step, group): the run's metrics plus demographic parity against the reference group.

    ``dp_ratio`` is the group's selection rate over the reference group's, ``dp_difference`` their
    difference (1 and 0 are parity).
    """
    frame = results.stacked("metrics")
    frame["group"] = frame["group"].astype(str)
    reference = reference_group(results)
    ref = frame.loc[frame["group"] == reference, ["seed", "step", "selection_rate"]].rename(
        columns={"selection_rate": "ref_rate"}
    )
    frame = frame.merge(ref, on=["seed", "step"], how="left")
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["dp_ratio"] = frame["selection_rate"] / frame["ref_rate"]
    frame["dp_difference"] = frame["selection_rate"] - frame["ref_rate"]
    return frame.drop(columns="ref_rate")


def steps_over_seeds(results: Results, confidence: float = 0.95) -> pd.DataFrame:
    """Mean and CI across seeds of :data:`STEP_METRICS` per (step, group)."""
    return mean_ci(step_metrics(results), ["step", "group"], STEP_METRICS, confidence)


def utility_over_seeds(results: Results, confidence: float = 0.95) -> pd.DataFrame:
    """Mean and CI across seeds of the whole selection's mean score now and on entry, per step."""
    columns = ["mean_selected_score", "mean_selected_initial_score"]
    if not results.has_ledgers:  # a sweep: the whole selection's means from the per-group means
        return mean_ci(_utility_from_metrics(results.stacked("metrics"), columns), ["step"], columns, confidence)
    frames = [
        utility_over_time(ledger).assign(seed=run.seed_label)
        for run, ledger in zip(results.runs, results.ledgers(), strict=True)
    ]
    return mean_ci(pd.concat(frames, ignore_index=True), ["step"], columns, confidence)


def _utility_from_metrics(metrics: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Per (seed, step): each column's mean over every selected agent, from the per-group means and counts."""
    frame = metrics.loc[metrics["n_selected"] > 0, ["seed", "step", "n_selected", *columns]].copy()
    for column in columns:
        frame[column] = frame[column] * frame["n_selected"]
    sums = frame.groupby(["seed", "step"], sort=True)[["n_selected", *columns]].sum().reset_index()
    for column in columns:
        sums[column] = sums[column] / sums["n_selected"]
    return sums.drop(columns="n_selected")


def outcomes(results: Results) -> pd.DataFrame:
    """Every agent of every run: group, outcome, effort, TTR and a qualification label.

    ``qualification`` is ``"high"`` when the agent's score on entry is at or above the median
    score on entry of its run, else ``"low"``.
    """
    effort = results.scenario.effort_measure
    frames = []
    if not results.has_ledgers:
        return pd.DataFrame()
    for run, ledger in zip(results.runs, results.ledgers(), strict=True):
        if results.scenario.reapplies:  # the recourse measures stop at each agent's first success
            ledger = until_first_success(ledger)
        frame = agent_outcomes(ledger, effort).assign(seed=run.seed_label)
        median = frame["score_entry"].median()
        frame["qualification"] = np.where(frame["score_entry"] >= median, "high", "low")
        frame["group"] = frame["group"].astype(str)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def outcome_counts(results: Results, confidence: float = 0.95) -> pd.DataFrame:
    """Per group: mean and CI across seeds of the agent counts by outcome (never successful = censored + gave up)."""
    frame = results.stacked("summary")
    frame["group"] = frame["group"].astype(str)
    frame["never_successful"] = frame["censored"] + frame["gave_up"]
    columns = ["entered", "selected_on_entry", "recourse", "censored", "gave_up", "never_successful"]
    return mean_ci(frame, ["group"], columns, confidence)


def pooled_over_seeds(results: Results, confidence: float = 0.95) -> pd.DataFrame:
    """Per group: mean and CI across seeds of the pooled ETR, TTR, rETR and dTTR."""
    frame = results.stacked("summary")
    frame["group"] = frame["group"].astype(str)
    return mean_ci(frame, ["group"], ["etr", "ttr", "retr", "dttr"], confidence)


def run_selection_rates(step_frame: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Each run's whole-run selection rate per group, and its ratio and difference to the reference group.

    The one definition of a run's selection rate everywhere in recoursesim (reports, summaries,
    comparisons): the agent-steps at which a group's agents were selected over those at which
    they were scored, ``Σ_t selected_t(g) / Σ_t scored_t(g)``, per run. Across seeds the mean
    of these per-run rates is reported, never a rate of pooled counts.

    Args:
        step_frame: Per (seed, step, group) ``n_selected`` and ``n_scored`` (:func:`step_metrics`).
        reference: The reference group.

    Returns:
        One row per (seed, group): ``rate``, ``ratio`` (rate over the reference's) and ``difference``.
    """
    totals = step_frame.groupby(["seed", "group"], observed=True)[["n_selected", "n_scored"]].sum().reset_index()
    totals["rate"] = totals["n_selected"] / totals["n_scored"].where(totals["n_scored"] > 0)
    ref = totals.loc[totals["group"] == reference, ["seed", "rate"]].rename(columns={"rate": "ref"})
    totals = totals.merge(ref, on="seed")
    with np.errstate(divide="ignore", invalid="ignore"):
        totals["ratio"] = totals["rate"] / totals["ref"]
    totals["difference"] = totals["rate"] - totals["ref"]
    return totals[["seed", "group", "rate", "ratio", "difference"]]
