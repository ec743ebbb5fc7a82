"""The fate of every recommendation: would carrying it out exactly be accepted at each later step?"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from recoursesim._categories import category_dtype
from recoursesim._validate import check_int
from recoursesim.engine.agent_table import Status
from recoursesim.errors import ConfigError

if TYPE_CHECKING:
    from recoursesim.engine.model import RecourseModel


#: Relative slack when comparing a recommendation's score with a cut-off: generators land exactly
#: on the cut-off, and a score recomputed there may differ from it in the last bits.
TOLERANCE = 1e-9


def recommendation_fates(model: RecourseModel, horizon: int = 5) -> pd.DataFrame:
    """One row per recommendation issued in ``model``'s run, judged under every later decision.

    A *recommendation* is a point ``x'`` a waiting agent was told to reach at step ``t`` that
    differs from where it stood (agents for whom no recourse was found are told to stay put and
    are left out). It is *valid at* step ``s`` when ``x'`` would be accepted then: its score under
    the model in force at ``s`` reaches the cut-off of the agent's group at ``s``
    (:class:`~recoursesim.durability.Decision`; a relative slack of :data:`TOLERANCE`). This is
    a counterfactual: nobody's features change, the run is as it was.

    Args:
        model: A model that has run (with recommendations recorded, the default).
        horizon: ``H``: the columns ``valid_1 … valid_H`` are filled in.

    Returns:
        Columns ``step`` (``t``), ``agent_id``, ``group``, ``effort`` (spent acting on it during
        ``t``), ``valid_0`` (valid at ``t`` itself), ``valid_1 … valid_H`` (valid at ``t + h``; NA
        after the run's last step), ``duration`` and ``expired``: the steps until the first step
        ``s > t`` at which it is not valid (``expired`` True), or, if it stayed valid, the steps it
        was followed for (``expired`` False: censored at the run's end or the agent's exit, the
        step it was selected or gave up).

    Raises:
        ConfigError: The run kept no recommendations, or ``horizon`` is not a positive integer.
    """
    horizon = check_int("horizon", horizon, minimum=1)
    ledger = model.ledger_store
    if not ledger.record_recommendations:
        raise ConfigError(
            "record_recommendations",
            "is off, so the recommendations to judge were not kept",
            "turn it on (model.record_recommendations = true in a scenario)",
        )
    decisions = model.decisions
    last = len(decisions) - 1
    issued = issued_recommendations(model)
    t, group = issued["step"], issued["group"]
    n = t.size
    cut = np.stack([decision.cutoff for decision in decisions]) if decisions else np.zeros((0, len(model.group_names)))
    with np.errstate(invalid="ignore"):
        bar = cut - TOLERANCE * (1 + np.abs(cut))  # (steps, groups): the score a recommendation must reach
    # known[i, s]: recommendation i had been issued by step s and its group had a cut-off then.
    known = (t[:, None] <= np.arange(last + 1)[None, :]) & ~np.isnan(cut).T[group]
    valid = np.zeros((n, last + 1), dtype=bool)
    scored: dict[int, np.ndarray] = {}
    first = int(t.min()) if n else last + 1
    for s in range(first, last + 1):
        key = id(decisions[s].scorer)
        if key not in scored:  # a fixed model scores the recommendations once
            scored[key] = np.asarray(decisions[s].scorer.score(issued["point"]), dtype=float)
        with np.errstate(invalid="ignore"):
            valid[:, s] = scored[key] >= bar[s][group]
    valid &= known
    columns: dict[str, object] = {
        "step": t.astype(np.int32),
        "agent_id": issued["agent_id"],
        "group": pd.Categorical.from_codes(group, dtype=category_dtype(model.group_names)),
        "effort": issued["effort"],
    }
    for h in range(horizon + 1):
        at = (np.arange(n), np.minimum(t + h, last))
        judged = (t + h <= last) & known[at]
        columns[f"valid_{h}"] = pd.arrays.BooleanArray(valid[at] & judged, ~judged)
    columns["duration"], columns["expired"] = _durations(t, issued["end"], valid, known)
    return pd.DataFrame(columns)


def issued_recommendations(model: RecourseModel) -> dict[str, np.ndarray]:
    """Every recommendation that asks for a move, in ledger order.

    Returns:
        ``step``, ``agent_id``, ``group`` (code), ``point`` (the recommended features), ``move``
        (``point`` minus where the agent stood), ``effort`` and ``end`` (the last step it is followed:
        the agent's exit, else the run's last step).
    """
    ledger, table = model.ledger_store, model.table
    last = len(model.decisions) - 1
    steps, agents, points, moves_, efforts = [], [], [], [], []
    for index in range(ledger.n_steps):
        record = ledger.step_record(index)
        recommendation = ledger.recommendation(index)
        if recommendation is None or recommendation.shape[0] == 0:
            continue
        waiting = np.flatnonzero(~record.selected)
        moves = np.any(recommendation != record.features[waiting], axis=1)
        moving = waiting[moves]
        steps.append(np.full(moving.size, record.step))
        agents.append(record.agent_id[moving])
        points.append(recommendation[moves])
        moves_.append(recommendation[moves] - record.features[moving])
        efforts.append(record.effort[moving])
    d = len(model.feature_names)
    agent_id = np.concatenate(agents).astype(np.int64) if agents else np.zeros(0, dtype=np.int64)
    exited = table.status[agent_id] != Status.WAITING
    return {
        "step": np.concatenate(steps).astype(np.int64) if steps else np.zeros(0, dtype=np.int64),
        "agent_id": agent_id,
        "group": table.group[agent_id].astype(np.int64),
        "point": np.concatenate(points) if points else np.zeros((0, d)),
        "move": np.concatenate(moves_) if moves_ else np.zeros((0, d)),
        "effort": np.concatenate(efforts).astype(float) if efforts else np.zeros(0),
        "end": np.where(exited, table.exit_step[agent_id], last).astype(np.int64),
    }


def _durations(t: np.ndarray, end: np.ndarray, valid: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Steps to the first invalid step after ``t`` within ``(t, end]``, or to the end of follow-up (censored).

    A step at which the group's cut-off is unknown ends the follow-up there.
    """
    width = valid.shape[1]
    if width == 0:  # no step has run: nothing was issued
        return np.zeros(t.shape[0], dtype=np.int32), np.zeros(t.shape[0], dtype=bool)
    steps = np.arange(width)[None, :]
    window = (steps > t[:, None]) & (steps <= end[:, None])
    unknown = window & ~known
    stop = np.where(unknown.any(axis=1), np.argmax(unknown, axis=1) - 1, end)
    window &= steps <= stop[:, None]
    failed = window & ~valid
    expired = failed.any(axis=1)
    first = np.argmax(failed, axis=1)
    duration = np.where(expired, first - t, np.maximum(stop - t, 0))
    return duration.astype(np.int32), expired
