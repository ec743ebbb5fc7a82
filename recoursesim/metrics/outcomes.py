"""Per-agent outcomes derived from the ledger: who succeeded when, after how much effort."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from recoursesim._validate import check_choice

EffortMeasure = Literal["cost", "score_gain"]

#: Outcome categories of :func:`agent_outcomes`.
OUTCOMES = ("on_entry", "recourse", "censored", "gave_up")


def agent_outcomes(ledger: pd.DataFrame, effort: EffortMeasure = "cost") -> pd.DataFrame:
    """Summarise each agent's history in the ledger.

    Args:
        ledger: A ledger frame (:attr:`RecourseModel.ledger`).
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
    if ledger.empty:
        return _empty_outcomes(ledger)
    final_step = int(ledger["step"].max())
    ledger = ledger[["agent_id", "step", "group", "entry_step", "score", "selected", "effort"]]
    by_agent = ledger.groupby("agent_id", sort=True, observed=True)
    first = by_agent.first()
    last = by_agent.last()
    negatives = ledger.loc[~ledger["selected"]].groupby("agent_id", sort=True)["step"]
    first_negative = negatives.min().reindex(first.index, fill_value=-1).astype(np.int64)
    n_negative = negatives.size().reindex(first.index, fill_value=0).astype(np.int64)
    success = last["selected"].to_numpy()
    success_step = np.where(success, last["step"].to_numpy(), -1)
    recourse = success & (n_negative.to_numpy() > 0)
    censored = ~success & (last["step"].to_numpy() == final_step)
    outcome = np.select(
        [success & ~recourse, recourse, censored], ["on_entry", "recourse", "censored"], default="gave_up"
    )
    spent = by_agent["effort"].sum().to_numpy()
    score_entry = first["score"].to_numpy()
    score_last = last["score"].to_numpy()
    measure = spent if effort == "cost" else score_last - score_entry
    frame = pd.DataFrame(
        {
            "agent_id": first.index.to_numpy(dtype=np.int64),
            "group": first["group"].to_numpy(),
            "entry_step": first["entry_step"].to_numpy(dtype=np.int64),
            "last_step": last["step"].to_numpy(dtype=np.int64),
            "success_step": success_step.astype(np.int64),
            "first_negative_step": first_negative.to_numpy(),
            "n_negative": n_negative.to_numpy(),
            "effort_spent": spent,
            "effort": np.where(recourse, measure, np.nan),
            "ttr": np.where(recourse, success_step - first_negative.to_numpy(), np.nan),
            "score_entry": score_entry,
            "score_last": score_last,
            "outcome": pd.Categorical(outcome, categories=list(OUTCOMES)),
        }
    )
    frame["group"] = pd.Categorical(frame["group"], categories=_groups(ledger))
    return frame


def _groups(ledger: pd.DataFrame) -> list[str]:
    group = ledger["group"]
    if isinstance(group.dtype, pd.CategoricalDtype):
        return list(group.cat.categories)
    return sorted(group.unique())


def _empty_outcomes(ledger: pd.DataFrame) -> pd.DataFrame:
    columns = [
        "agent_id", "group", "entry_step", "last_step", "success_step", "first_negative_step", "n_negative",
        "effort_spent", "effort", "ttr", "score_entry", "score_last", "outcome",
    ]  # fmt: skip
    frame = pd.DataFrame({name: pd.Series(dtype=float) for name in columns})
    frame["group"] = pd.Categorical([], categories=_groups(ledger) if "group" in ledger else [])
    frame["outcome"] = pd.Categorical([], categories=list(OUTCOMES))
    return frame
