"""Effort-to-recourse (ETR) and time-to-recourse (TTR), per step and pooled, per group."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim._categories import category_dtype
from recoursesim.ledger import by_applicant
from recoursesim.metrics.disparity import check_reference_group, disparity_values
from recoursesim.metrics.outcomes import EffortMeasure, agent_outcomes, group_categories, group_codes


def recourse_over_time(
    ledger: pd.DataFrame,
    *,
    effort: EffortMeasure = "cost",
    reference_group: str | None = None,
    outcomes: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Time-resolved metrics, paper §3.2: ``ETR_t`` and ``TTR_t`` for every step and group.

    ``D_t`` is the set of agents that had a negative outcome before ``t`` and a positive one at
    ``t``. ``ETR_t`` is the mean effort of ``D_t`` (see :func:`agent_outcomes` for the effort
    measure) and ``TTR_t`` the mean of (success step − first negative step) over ``D_t``.

    Args:
        ledger: A ledger frame.
        effort: ``"cost"`` or ``"score_gain"``.
        reference_group: If given, add ``retr`` and ``dttr`` against this group.
        outcomes: ``agent_outcomes(ledger, effort)`` if already computed (it is then not recomputed).

    Returns:
        One row per (step, group): ``n_scored``, ``n_selected``, ``selection_rate``, the utility
        of the selection (``mean_selected_score`` and ``mean_selected_initial_score``: the mean
        score now and on entry of the agents selected), ``n_recourse`` (``|D_t ∩ g|``), ``etr``,
        ``ttr`` (NaN when ``D_t ∩ g`` is empty) and, with a reference group, ``retr`` and ``dttr``.
        A market's ledger is read folded (:func:`~recoursesim.ledger.by_applicant`): a selection
        is a selection by any lender.
    """
    ledger = by_applicant(ledger)
    groups = group_categories(ledger)
    n_groups = len(groups)
    steps = np.unique(ledger["step"].to_numpy(dtype=np.int64))
    cells = steps.size * n_groups
    step_index = np.searchsorted(steps, ledger["step"].to_numpy(dtype=np.int64))
    key = step_index * n_groups + group_codes(ledger, groups)
    selected = ledger["selected"].to_numpy(dtype=bool)
    n_scored = np.bincount(key, minlength=cells)
    n_selected = np.bincount(key[selected], minlength=cells)
    score_sum = np.bincount(key[selected], weights=ledger["score"].to_numpy(dtype=float)[selected], minlength=cells)
    initial = _initial_scores(ledger)
    initial_sum = np.bincount(key[selected], weights=initial[selected], minlength=cells)
    outcomes = agent_outcomes(ledger, effort) if outcomes is None else outcomes
    won = outcomes["outcome"].to_numpy() == "recourse"
    won_key = (
        np.searchsorted(steps, outcomes["success_step"].to_numpy()[won]) * n_groups
        + outcomes["group"].cat.codes.to_numpy().astype(np.int64)[won]
    )
    n_recourse = np.bincount(won_key, minlength=cells)
    effort_sum = np.bincount(won_key, weights=outcomes["effort"].to_numpy()[won], minlength=cells)
    ttr_sum = np.bincount(won_key, weights=outcomes["ttr"].to_numpy()[won], minlength=cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        columns = {
            "step": np.repeat(steps, n_groups),
            "group": pd.Categorical.from_codes(np.tile(np.arange(n_groups), steps.size), dtype=category_dtype(groups)),
            "n_scored": n_scored.astype(np.int64),
            "n_selected": n_selected.astype(np.int64),
            "selection_rate": np.where(n_scored > 0, n_selected / n_scored, np.nan),
            "mean_selected_score": np.where(n_selected > 0, score_sum / n_selected, np.nan),
            "mean_selected_initial_score": np.where(n_selected > 0, initial_sum / n_selected, np.nan),
            "n_recourse": n_recourse.astype(np.int64),
            "etr": np.where(n_recourse > 0, effort_sum / n_recourse, np.nan),
            "ttr": np.where(n_recourse > 0, ttr_sum / n_recourse, np.nan),
        }
    if reference_group is not None:
        _add_disparities(columns, groups, reference_group, steps.size)
    return pd.DataFrame(columns)


def _add_disparities(columns: dict, groups: list[str], reference_group: str, n_keys: int) -> None:
    """Add ``retr`` and ``dttr`` to columns laid out as ``n_keys`` blocks of one row per group."""
    if n_keys * len(groups) == 0:
        columns["retr"], columns["dttr"] = np.empty(0), np.empty(0)
        return
    check_reference_group(reference_group, groups)
    reference = np.repeat(np.arange(n_keys) * len(groups) + groups.index(reference_group), len(groups))
    etr, ttr = columns["etr"], columns["ttr"]
    columns["retr"], columns["dttr"] = disparity_values(etr, ttr, etr[reference], ttr[reference])


def utility_over_time(ledger: pd.DataFrame) -> pd.DataFrame:
    """Utility of each step's selection, all groups together.

    Args:
        ledger: A ledger frame.

    Returns:
        One row per step: ``n_selected``, ``mean_selected_score`` (mean score of the selected
        agents) and ``mean_selected_initial_score`` (their mean score when they entered), so the
        fairness–utility trade-off of a strategy is visible step by step.
    """
    ledger = by_applicant(ledger)  # a market: selected by any lender
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
    ids = ledger["agent_id"].to_numpy(dtype=np.int64)
    entry = ledger["step"].to_numpy() == ledger["entry_step"].to_numpy()
    lookup = np.full(int(ids.max()) + 1, np.nan)
    lookup[ids[entry]] = ledger["score"].to_numpy(dtype=float)[entry]
    return lookup[ids]


def recourse_summary(
    ledger: pd.DataFrame,
    *,
    effort: EffortMeasure = "cost",
    reference_group: str | None = None,
    outcomes: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Pooled per-group metrics over the whole run, and the agents they leave out.

    The pooled ETR and TTR are means over every recourse-successful agent of the group (agents
    selected after at least one negative outcome): with ``effort="score_gain"`` this is exactly
    the reference code's Table-1 aggregate (docs/model.md, "Metrics"). Agents selected on entry and
    agents still waiting at the end (right-censored) are excluded from ETR/TTR, and reported.

    Args:
        ledger: A ledger frame.
        effort: ``"cost"`` or ``"score_gain"``.
        reference_group: If given, add ``retr`` and ``dttr`` against this group.
        outcomes: ``agent_outcomes(ledger, effort)`` if already computed (it is then not recomputed).

    Returns:
        One row per group: ``entered``, ``selected_on_entry``, ``recourse`` (successes after
        recourse), ``censored``, ``gave_up``, ``etr``, ``ttr``, ``wasted_effort`` (total cost spent
        by censored and gave-up agents), ``wasted_effort_mean`` (per such agent),
        ``censored_mean_wait`` (steps the censored agents had waited), and ``retr``/``dttr``.
    """
    groups = group_categories(ledger)
    n_groups = len(groups)
    outcomes = agent_outcomes(ledger, effort) if outcomes is None else outcomes
    code = outcomes["group"].cat.codes.to_numpy().astype(np.int64)
    kind = outcomes["outcome"].cat.codes.to_numpy().astype(np.int64)  # OUTCOMES order
    counts = np.bincount(code * 4 + kind, minlength=4 * n_groups).reshape(n_groups, 4)
    won = kind == 1
    failed = kind >= 2
    censored = kind == 2

    def per_group(mask: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        total = np.bincount(code[mask], weights=values[mask], minlength=n_groups)
        return total, np.bincount(code[mask], minlength=n_groups)

    with np.errstate(divide="ignore", invalid="ignore"):
        etr_sum, n_won = per_group(won, outcomes["effort"].to_numpy())
        ttr_sum, _ = per_group(won, outcomes["ttr"].to_numpy())
        wasted, n_failed = per_group(failed, outcomes["effort_spent"].to_numpy())
        waits = (outcomes["last_step"] - outcomes["entry_step"] + 1).to_numpy(dtype=float)
        wait_sum, n_censored = per_group(censored, waits)
        columns = {
            "group": pd.Categorical.from_codes(np.arange(n_groups), dtype=category_dtype(groups)),
            "entered": counts.sum(axis=1).astype(np.int64),
            "selected_on_entry": counts[:, 0].astype(np.int64),
            "recourse": counts[:, 1].astype(np.int64),
            "censored": counts[:, 2].astype(np.int64),
            "gave_up": counts[:, 3].astype(np.int64),
            "etr": np.where(n_won > 0, etr_sum / n_won, np.nan),
            "ttr": np.where(n_won > 0, ttr_sum / n_won, np.nan),
            "wasted_effort": wasted,
            "wasted_effort_mean": np.where(n_failed > 0, wasted / n_failed, np.nan),
            "censored_mean_wait": np.where(n_censored > 0, wait_sum / n_censored, np.nan),
        }
    if reference_group is not None:
        _add_disparities(columns, groups, reference_group, 1)
    return pd.DataFrame(columns)
