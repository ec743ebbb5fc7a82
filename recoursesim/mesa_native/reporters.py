"""Scalar per-step reporters of a run, read from the model's columnar state (Mesa's reporters take scalars).

The numbers are the same as the ledger metrics' (:func:`~recoursesim.metrics.recourse_over_time`
for the latest step, :func:`~recoursesim.metrics.recourse_summary` for the run so far), summed in
the same order, so a Mesa data collector, ``mesa.batch_run`` and ``recoursesim sweep`` agree to
the last bit. They are computed in one vectorised pass over the agent table per step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from recoursesim.engine.agent_table import Status
from recoursesim.metrics.outcomes import EffortMeasure

if TYPE_CHECKING:
    from recoursesim.engine.model import RecourseModel

#: Per-group reporters: name prefix -> what it holds. Reporter names are ``<prefix>_<group>``.
GROUP_REPORTERS: dict[str, str] = {
    "n_scored": "agents of the group scored at the latest step",
    "n_selected": "agents of the group selected at the latest step",
    "selection_rate": "selected / scored at the latest step (NaN when none was scored)",
    "n_recourse": "agents selected at the latest step after at least one rejection (|D_t ∩ g|)",
    "etr": "ETR_t: mean effort of those agents (NaN when there is none)",
    "ttr": "TTR_t: mean steps from their first rejection to success (NaN when there is none)",
    "etr_pooled": "ETR over every recourse success of the run so far",
    "ttr_pooled": "TTR over every recourse success of the run so far",
    "waiting": "agents of the group waiting after the latest step",
    "cutoff": "mean threshold the group's scored agents faced at the latest step",
}
#: Model-level reporters that are not per group.
MODEL_REPORTERS: dict[str, str] = {
    "latest_step": "the latest step t (recoursesim counts from 0; Mesa's ``steps`` is t + 1)",
    "cutoff": "the cut-off s_t of the latest step (per-agent thresholds: their mean over the scored agents)",
    "n_waiting": "agents waiting after the latest step",
}


def reporter_names(group_names: tuple[str, ...]) -> list[str]:
    """Every reporter name of a model with these groups, model-level ones first."""
    return [*MODEL_REPORTERS, *(f"{prefix}_{group}" for prefix in GROUP_REPORTERS for group in group_names)]


def step_reporters(model: RecourseModel, effort: EffortMeasure = "cost") -> dict[str, float]:
    """The reporters after the model's latest step (all NaN before the first step).

    Args:
        model: A model that has run at least zero steps.
        effort: The scenario's effort measure (``metrics.effort``): ``"cost"`` or ``"score_gain"``.

    Returns:
        :func:`reporter_names` -> value; counts are floats so that every value is one dtype.
    """
    groups = model.group_names
    n_groups = len(groups)
    values = dict.fromkeys(reporter_names(groups), float("nan"))
    if model.ledger_store.n_steps == 0:
        return values
    record = model.ledger_store.step_record(-1)
    table = model.table
    t = record.step
    rows = record.agent_id.astype(np.int64)
    code = table.group[rows].astype(np.int64)
    n_scored = np.bincount(code, minlength=n_groups)
    n_selected = np.bincount(code[record.selected], minlength=n_groups)
    thresholds = np.broadcast_to(np.asarray(record.threshold, dtype=float), rows.shape)
    cutoff_sum = np.bincount(code, weights=thresholds, minlength=n_groups)
    winners = rows[record.selected]
    now = winners[table.entry_step[winners] < t]
    n_now, etr_now, ttr_now = _recourse_means(model, now, n_groups, effort)
    ever = np.flatnonzero(
        (table.status[: table.n] == Status.SELECTED) & (table.entry_step[: table.n] < table.exit_step[: table.n])
    )
    _, etr_all, ttr_all = _recourse_means(model, ever, n_groups, effort)
    waiting = np.bincount(table.group[model.waiting_ids].astype(np.int64), minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_group = {
            "n_scored": n_scored.astype(float),
            "n_selected": n_selected.astype(float),
            "selection_rate": np.where(n_scored > 0, n_selected / n_scored, np.nan),
            "n_recourse": n_now.astype(float),
            "etr": etr_now,
            "ttr": ttr_now,
            "etr_pooled": etr_all,
            "ttr_pooled": ttr_all,
            "waiting": waiting.astype(float),
            "cutoff": np.where(n_scored > 0, cutoff_sum / n_scored, np.nan),
        }
    values["latest_step"] = float(t)
    values["cutoff"] = float(record.threshold) if np.isscalar(record.threshold) else float(np.mean(thresholds))
    values["n_waiting"] = float(model.waiting_ids.size)
    for prefix, column in per_group.items():
        for j, group in enumerate(groups):
            values[f"{prefix}_{group}"] = float(column[j])
    return values


def _recourse_means(
    model: RecourseModel, ids: np.ndarray, n_groups: int, measure: EffortMeasure
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count, mean effort and mean time to recourse per group of recourse-successful agents ``ids`` (ascending).

    Effort follows the scenario's measure as :func:`~recoursesim.metrics.agent_outcomes` defines it:
    the cost spent over the agent's steps, or its score at success minus its score on entry.
    """
    table = model.table
    code = table.group[ids].astype(np.int64)
    effort = table.effort_spent[ids] if measure == "cost" else table.score[ids] - table.initial_score[ids]
    ttr = (table.exit_step[ids] - table.entry_step[ids]).astype(float)
    count = np.bincount(code, minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        etr = np.where(count > 0, np.bincount(code, weights=effort, minlength=n_groups) / count, np.nan)
        ttr_mean = np.where(count > 0, np.bincount(code, weights=ttr, minlength=n_groups) / count, np.nan)
    return count, etr, ttr_mean
