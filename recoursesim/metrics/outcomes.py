"""Per-agent outcomes derived from the ledger: who succeeded when, after how much effort."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from recoursesim._categories import category_dtype
from recoursesim._validate import check_choice
from recoursesim.ledger import by_applicant

EffortMeasure = Literal["cost", "score_gain"]

#: Outcome categories of :func:`agent_outcomes`.
OUTCOMES = ("on_entry", "recourse", "censored", "gave_up")


def group_categories(ledger: pd.DataFrame) -> list[str]:
    """The ledger's group labels, in category order (sorted labels for a non-categorical column)."""
    group = ledger["group"]
    if isinstance(group.dtype, pd.CategoricalDtype):
        return [str(c) for c in group.cat.categories]
    return sorted(str(g) for g in group.unique())


def group_codes(ledger: pd.DataFrame, categories: list[str]) -> np.ndarray:
    """Integer group code of every ledger row (index into ``categories``)."""
    group = ledger["group"]
    if isinstance(group.dtype, pd.CategoricalDtype) and [str(c) for c in group.cat.categories] == categories:
        return group.cat.codes.to_numpy().astype(np.int64)
    return pd.Categorical(group.astype(str), categories=categories).codes.astype(np.int64)


def agent_outcomes(ledger: pd.DataFrame, effort: EffortMeasure = "cost") -> pd.DataFrame:
    """Summarise each agent's history in the ledger.

    Args:
        ledger: A ledger frame (:attr:`RecourseModel.ledger`), rows in step order; a market's
            ledger is read folded (:func:`~recoursesim.ledger.by_applicant`: selected by any lender).
        effort: ``"cost"``: effort is the feature-space cost the agent spent (the ledger's
            ``effort``, summed over its steps; paper §3.2's ``C_t``). ``"score_gain"``: effort is
            the agent's score when it succeeded minus its score on entry (what the reference code
            reports in Table 1).

    Returns:
        One row per agent: ``agent_id, group, entry_step, last_step, success_step`` (``-1`` if
        none), ``first_negative_step`` (``-1`` if none), ``n_negative``, ``effort_spent`` (total
        cost over the agent's steps), ``effort`` (the chosen measure, for recourse-successful
        agents; NaN otherwise), ``ttr`` (success step minus first negative step, for
        recourse-successful agents), ``score_entry``, ``score_last`` and ``outcome``: ``on_entry``
        (selected the step it entered), ``recourse`` (selected after at least one negative
        outcome), ``censored`` (still waiting at the ledger's last step: right-censored), or
        ``gave_up`` (left earlier without success).
    """
    check_choice("effort", effort, ["cost", "score_gain"])
    ledger = by_applicant(ledger)
    categories = group_categories(ledger) if "group" in ledger else []
    if ledger.empty:
        return _empty_outcomes(categories)
    ids = ledger["agent_id"].to_numpy(dtype=np.int64)
    step = ledger["step"].to_numpy(dtype=np.int64)
    selected = ledger["selected"].to_numpy(dtype=bool)
    score = ledger["score"].to_numpy(dtype=float)
    spent_rows = ledger["effort"].to_numpy(dtype=float)
    codes = group_codes(ledger, categories)
    order = np.lexsort((step, ids))  # by agent, then step
    sorted_ids = ids[order]
    agents, first_pos, counts = np.unique(sorted_ids, return_index=True, return_counts=True)
    first = order[first_pos]
    last = order[first_pos + counts - 1]
    index = np.searchsorted(agents, ids)
    n_negative = np.bincount(index, weights=~selected, minlength=agents.size).astype(np.int64)
    negative_rows = order[~selected[order]]
    neg_agents, neg_first = np.unique(ids[negative_rows], return_index=True)
    first_negative = np.full(agents.size, -1, dtype=np.int64)
    first_negative[np.searchsorted(agents, neg_agents)] = step[negative_rows[neg_first]]
    spent = np.bincount(index, weights=spent_rows, minlength=agents.size)
    success = selected[last]
    last_step = step[last]
    success_step = np.where(success, last_step, -1)
    recourse = success & (n_negative > 0)
    censored = ~success & (last_step == step.max())
    outcome = np.select([success & ~recourse, recourse, censored], [0, 1, 2], default=3)
    score_entry = score[first]
    score_last = score[last]
    measure = spent if effort == "cost" else score_last - score_entry
    return pd.DataFrame(
        {
            "agent_id": agents,
            "group": pd.Categorical.from_codes(codes[first], dtype=category_dtype(categories)),
            "entry_step": ledger["entry_step"].to_numpy(dtype=np.int64)[first],
            "last_step": last_step,
            "success_step": success_step,
            "first_negative_step": first_negative,
            "n_negative": n_negative,
            "effort_spent": spent,
            "effort": np.where(recourse, measure, np.nan),
            "ttr": np.where(recourse, success_step - first_negative, np.nan).astype(float),
            "score_entry": score_entry,
            "score_last": score_last,
            "outcome": pd.Categorical.from_codes(outcome, dtype=category_dtype(OUTCOMES)),
        }
    )


def until_first_success(ledger: pd.DataFrame) -> pd.DataFrame:
    """Each agent's rows up to and including its first positive outcome (all rows if it has none).

    With an outcome component (:class:`~recoursesim.engine.model.RecourseModel`'s ``outcome``) the
    selected agents stay and apply again, so an agent may have several positive outcomes; effort
    and time to recourse are measured to the first one, which is what this ledger keeps.
    """
    if ledger.empty:
        return ledger
    ids = ledger["agent_id"].to_numpy(dtype=np.int64)
    step = ledger["step"].to_numpy(dtype=np.int64)
    selected = ledger["selected"].to_numpy(dtype=bool)
    first = np.full(int(ids.max()) + 1, np.iinfo(np.int64).max)
    np.minimum.at(first, ids[selected], step[selected])
    return ledger.loc[step <= first[ids]].reset_index(drop=True)


def _empty_outcomes(categories: list[str]) -> pd.DataFrame:
    integer = ["agent_id", "entry_step", "last_step", "success_step", "first_negative_step", "n_negative"]
    real = ["effort_spent", "effort", "ttr", "score_entry", "score_last"]
    frame = pd.DataFrame({name: np.empty(0, dtype=np.int64) for name in integer})
    for name in real:
        frame[name] = np.empty(0)
    frame.insert(1, "group", pd.Categorical([], categories=categories))
    frame["outcome"] = pd.Categorical([], categories=list(OUTCOMES))
    return frame
