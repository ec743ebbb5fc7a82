"""Effort-to-recourse (ETR) and time-to-recourse (TTR), per step and pooled, per group."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim.metrics.disparity import add_disparities
from recoursesim.metrics.outcomes import EffortMeasure, agent_outcomes


def recourse_over_time(
    ledger: pd.DataFrame, *, effort: EffortMeasure = "cost", reference_group: str | None = None
) -> pd.DataFrame:
    """Time-resolved metrics, paper §3.2: ``ETR_t`` and ``TTR_t`` for every step and group.

    ``D_t`` is the set of agents that had a negative outcome before ``t`` and a positive one at
    ``t``. ``ETR_t`` is the mean effort of ``D_t`` (see :func:`agent_outcomes` for the effort
    measure) and ``TTR_t`` the mean of (success step − first negative step) over ``D_t``.

    Args:
        ledger: A ledger frame.
        effort: ``"cost"`` or ``"score_gain"``.
        reference_group: If given, add ``retr`` and ``dttr`` against this group.

    Returns:
        One row per (step, group): ``n_scored``, ``n_selected``, ``selection_rate``, the utility
        of the selection (``mean_selected_score`` and ``mean_selected_initial_score``: the mean
        score now and on entry of the agents selected), ``n_recourse`` (``|D_t ∩ g|``), ``etr``,
        ``ttr`` (NaN when ``D_t ∩ g`` is empty) and, with a reference group, ``retr`` and ``dttr``.
    """
    groups = _categories(ledger)
    steps = np.sort(ledger["step"].unique()) if len(ledger) else np.empty(0, dtype=np.int64)
    grid = pd.MultiIndex.from_product([steps, groups], names=["step", "group"])
    keyed = ledger.assign(group=ledger["group"].astype(str), initial_score=_initial_scores(ledger))
    counts = keyed.groupby(["step", "group"], observed=True)["selected"].agg(n_scored="size", n_selected="sum")
    counts = counts.reindex(grid, fill_value=0)
    chosen = keyed.loc[keyed["selected"]].groupby(["step", "group"], observed=True)
    utility = chosen.agg(mean_selected_score=("score", "mean"), mean_selected_initial_score=("initial_score", "mean"))
    counts = counts.join(utility.reindex(grid))
    outcomes = agent_outcomes(ledger, effort)
    won = outcomes.loc[outcomes["outcome"] == "recourse"].assign(group=lambda f: f["group"].astype(str))
    stats = won.groupby(["success_step", "group"], observed=True).agg(
        n_recourse=("agent_id", "size"), etr=("effort", "mean"), ttr=("ttr", "mean")
    )
    stats.index = stats.index.set_names(["step", "group"])
    stats = stats.reindex(grid)
    frame = counts.join(stats).reset_index()
    frame["n_recourse"] = frame["n_recourse"].fillna(0).astype(np.int64)
    frame["n_scored"] = frame["n_scored"].astype(np.int64)
    frame["n_selected"] = frame["n_selected"].astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["selection_rate"] = frame["n_selected"] / frame["n_scored"].where(frame["n_scored"] > 0)
    frame = frame[
        [
            "step", "group", "n_scored", "n_selected", "selection_rate",
            "mean_selected_score", "mean_selected_initial_score", "n_recourse", "etr", "ttr",
        ]
    ]  # fmt: skip
    if reference_group is not None:
        frame = add_disparities(frame, reference_group, by=["step"])
    frame["group"] = pd.Categorical(frame["group"], categories=groups)
    return frame.sort_values(["step", "group"], ignore_index=True)


def utility_over_time(ledger: pd.DataFrame) -> pd.DataFrame:
    """Utility of each step's selection, all groups together.

    Args:
        ledger: A ledger frame.

    Returns:
        One row per step: ``n_selected``, ``mean_selected_score`` (mean score of the selected
        agents) and ``mean_selected_initial_score`` (their mean score when they entered), so the
        fairness–utility trade-off of a strategy is visible step by step.
    """
    keyed = ledger.assign(initial_score=_initial_scores(ledger))
    chosen = keyed.loc[keyed["selected"]].groupby("step")
    frame = chosen.agg(
        n_selected=("agent_id", "size"),
        mean_selected_score=("score", "mean"),
        mean_selected_initial_score=("initial_score", "mean"),
    )
    steps = np.sort(ledger["step"].unique()) if len(ledger) else np.empty(0, dtype=np.int64)
    frame = frame.reindex(steps)
    frame["n_selected"] = frame["n_selected"].fillna(0).astype(np.int64)
    return frame.rename_axis("step").reset_index()


def _initial_scores(ledger: pd.DataFrame) -> np.ndarray:
    """Each ledger row's agent's score at its entry step."""
    if ledger.empty:
        return np.empty(0)
    entry = ledger.loc[ledger["step"] == ledger["entry_step"], ["agent_id", "score"]]
    lookup = pd.Series(entry["score"].to_numpy(), index=entry["agent_id"].to_numpy())
    return lookup.reindex(ledger["agent_id"].to_numpy()).to_numpy()


def recourse_summary(
    ledger: pd.DataFrame, *, effort: EffortMeasure = "cost", reference_group: str | None = None
) -> pd.DataFrame:
    """Pooled per-group metrics over the whole run, and the agents they leave out.

    The pooled ETR and TTR are means over every recourse-successful agent of the group (agents
    selected after at least one negative outcome): with ``effort="score_gain"`` this is exactly
    the reference code's Table-1 aggregate (simulation.md §6). Agents selected on entry and
    agents still waiting at the end (right-censored) are excluded from ETR/TTR, and reported:

    Args:
        ledger: A ledger frame.
        effort: ``"cost"`` or ``"score_gain"``.
        reference_group: If given, add ``retr`` and ``dttr`` against this group.

    Returns:
        One row per group: ``entered``, ``selected_on_entry``, ``recourse`` (successes after
        recourse), ``censored``, ``gave_up``, ``etr``, ``ttr``, ``wasted_effort`` (total cost spent
        by censored and gave-up agents), ``wasted_effort_mean`` (per such agent),
        ``censored_mean_wait`` (steps the censored agents had waited), and ``retr``/``dttr``.
    """
    groups = _categories(ledger)
    outcomes = agent_outcomes(ledger, effort).assign(group=lambda f: f["group"].astype(str))
    counts = pd.crosstab(outcomes["group"], outcomes["outcome"]).reindex(
        index=groups, columns=["on_entry", "recourse", "censored", "gave_up"], fill_value=0
    )
    won = outcomes.loc[outcomes["outcome"] == "recourse"].groupby("group")
    failed = outcomes.loc[outcomes["outcome"].isin(["censored", "gave_up"])].groupby("group")["effort_spent"]
    censored = outcomes.loc[outcomes["outcome"] == "censored"]
    wait = (censored["last_step"] - censored["entry_step"] + 1).groupby(censored["group"]).mean()
    frame = pd.DataFrame(
        {
            "group": groups,
            "entered": counts.sum(axis=1).to_numpy(dtype=np.int64),
            "selected_on_entry": counts["on_entry"].to_numpy(dtype=np.int64),
            "recourse": counts["recourse"].to_numpy(dtype=np.int64),
            "censored": counts["censored"].to_numpy(dtype=np.int64),
            "gave_up": counts["gave_up"].to_numpy(dtype=np.int64),
            "etr": won["effort"].mean().reindex(groups).to_numpy(dtype=float),
            "ttr": won["ttr"].mean().reindex(groups).to_numpy(dtype=float),
            "wasted_effort": failed.sum().reindex(groups, fill_value=0.0).to_numpy(dtype=float),
            "wasted_effort_mean": failed.mean().reindex(groups).to_numpy(dtype=float),
            "censored_mean_wait": wait.reindex(groups).to_numpy(dtype=float),
        }
    )
    if reference_group is not None:
        frame = add_disparities(frame, reference_group)
    frame["group"] = pd.Categorical(frame["group"], categories=groups)
    return frame


def _categories(ledger: pd.DataFrame) -> list[str]:
    group = ledger["group"]
    if isinstance(group.dtype, pd.CategoricalDtype):
        return [str(c) for c in group.cat.categories]
    return sorted(str(g) for g in group.unique())
