"""Reading a market's ledger: its lenders, its per-step ``(n, L)`` masks, and per-lender and market views.

A market run's ledger has one row per (step, agent, lender applied to): a categorical ``lender``
column (the lenders in declaration order), ``selected`` that lender's decision, ``threshold`` its
threshold, the ``rec_*`` columns its recommendation (missing where it accepted) and ``acted``
(the row whose recommendation the agent acted on). A single-lender ledger has no ``lender``
column; it reads here as a market of one lender, :data:`SINGLE_LENDER`.

The *views* are ordinary single-lender ledgers (one row per step and agent), so every measure of
a single lender (ETR, TTR, their disparities) applies to them unchanged:

- a lender's view keeps that lender's rows: success is being selected by that lender;
- the market view has one row per (step, agent) that applied anywhere: success is being selected
  by any lender it applied to. It is the ledger folded per applicant,
  :func:`recoursesim.ledger.by_applicant`, which every per-run metric of a market reads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.metrics.outcomes import group_categories, group_codes

#: The lender name a ledger without a ``lender`` column is read under.
SINGLE_LENDER = "lender"
#: The name of the market view (all lenders together) in tables keyed by lender.
MARKET = "market"


def is_market(ledger: pd.DataFrame) -> bool:
    """Whether ``ledger`` is a market run's ledger (it has a ``lender`` column)."""
    return "lender" in ledger.columns


def lender_names(ledger: pd.DataFrame) -> list[str]:
    """The lenders, in declaration order (the ``lender`` categories; :data:`SINGLE_LENDER` for one lender)."""
    if not is_market(ledger):
        return [SINGLE_LENDER]
    lender = ledger["lender"]
    if isinstance(lender.dtype, pd.CategoricalDtype):
        names = [str(c) for c in lender.cat.categories]
    else:
        names = list(dict.fromkeys(str(name) for name in lender))
    if MARKET in names:
        raise ConfigError("lenders.name", f"{MARKET!r} names the whole market", "give the lender another name")
    return names


def lender_codes(ledger: pd.DataFrame, names: list[str]) -> np.ndarray:
    """The lender code (index into ``names``) of every ledger row (all 0 without a ``lender`` column)."""
    if not is_market(ledger):
        return np.zeros(len(ledger), dtype=np.int64)
    return pd.Categorical(ledger["lender"].astype(str), categories=names).codes.astype(np.int64)


def recommended(ledger: pd.DataFrame) -> np.ndarray:
    """Per row: the lender refused and gave a valid recommendation.

    Read from ``recourse_found`` where the generator reported it, else from the ``rec_*`` columns
    (all present). ``False`` everywhere when the run kept no recommendations.
    """
    refused = ~ledger["selected"].to_numpy(dtype=bool)
    if "recourse_found" in ledger.columns:
        return refused & ledger["recourse_found"].fillna(False).to_numpy(dtype=bool)
    columns = [c for c in ledger.columns if c.startswith("rec_")]
    if not columns:
        return np.zeros(len(ledger), dtype=bool)
    return refused & ledger[columns].notna().all(axis=1).to_numpy()


def acted(ledger: pd.DataFrame) -> np.ndarray:
    """Per row: the agent acted on this row's recommendation (``acted``; without it, spent effort while refused)."""
    if "acted" in ledger.columns:
        return ledger["acted"].fillna(False).to_numpy(dtype=bool)
    return ~ledger["selected"].to_numpy(dtype=bool) & (ledger["effort"].to_numpy(dtype=float) > 0)


@dataclass(frozen=True)
class MarketMasks:
    """A market ledger laid out as one ``(n_t, L)`` block of masks per step, agents in id order.

    Attributes:
        steps: The steps, ascending.
        lenders: The lender names, in declaration order.
        groups: The group labels, in category order.
        offsets: Step ``steps[k]``'s agents are rows ``offsets[k]:offsets[k + 1]`` of the arrays below.
        agent_id: ``(N,)`` each (step, agent)'s agent id.
        group: ``(N,)`` its group code.
        applied: ``(N, L)`` it applied to the lender.
        accepted: ``(N, L)`` the lender accepted it.
        recommended: ``(N, L)`` the lender refused it with a valid recommendation.
        acted: ``(N, L)`` it acted on that lender's recommendation.
    """

    steps: np.ndarray
    lenders: list[str]
    groups: list[str]
    offsets: np.ndarray
    agent_id: np.ndarray
    group: np.ndarray
    applied: np.ndarray
    accepted: np.ndarray
    recommended: np.ndarray
    acted: np.ndarray

    def at(self, k: int) -> slice:
        """The rows of the ``k``-th step."""
        return slice(int(self.offsets[k]), int(self.offsets[k + 1]))


def market_masks(ledger: pd.DataFrame) -> MarketMasks:
    """Reshape a (market or single-lender) ledger into per-step ``(n, L)`` masks, without a loop over agents.

    Raises:
        ConfigError: a (step, agent, lender) appears twice.
    """
    lenders = lender_names(ledger)
    groups = group_categories(ledger)
    step = ledger["step"].to_numpy(dtype=np.int64)
    agent = ledger["agent_id"].to_numpy(dtype=np.int64)
    lender = lender_codes(ledger, lenders)
    pairs, row = np.unique(np.column_stack([step, agent]), axis=0, return_inverse=True)
    row = row.reshape(-1)
    n, width = pairs.shape[0], len(lenders)
    if np.unique(row * width + lender).size != len(ledger):
        raise ConfigError("ledger", "has two rows for one (step, agent, lender)", "give one row per lender applied to")

    def mask(values: np.ndarray) -> np.ndarray:
        out = np.zeros((n, width), dtype=bool)
        out[row, lender] = values
        return out

    group = np.zeros(n, dtype=np.int64)
    group[row] = group_codes(ledger, groups)
    steps, starts = np.unique(pairs[:, 0], return_index=True)
    return MarketMasks(
        steps=steps,
        lenders=lenders,
        groups=groups,
        offsets=np.append(starts, n),
        agent_id=pairs[:, 1],
        group=group,
        applied=mask(np.ones(len(ledger), dtype=bool)),
        accepted=mask(ledger["selected"].to_numpy(dtype=bool)),
        recommended=mask(recommended(ledger)),
        acted=mask(acted(ledger)),
    )


def lender_view(ledger: pd.DataFrame, lender: str) -> pd.DataFrame:
    """One lender's rows as a single-lender ledger: success = selected by that lender.

    ``effort`` is the effort the agent spent during the step (applying anywhere and acting on
    whichever lender's advice: acting moves its features for every lender), so a lender's ETR
    counts all the effort its eventual success took. The agent's time to recourse counts from its
    first refusal by this lender.
    """
    if not is_market(ledger):
        return ledger
    if lender not in lender_names(ledger):
        raise ConfigError("lender", f"{lender!r} is not a lender of this market", f"use one of {lender_names(ledger)}")
    effort = _step_effort(ledger)
    rows = ledger["lender"].astype(str).to_numpy() == lender
    view = ledger.loc[rows].drop(columns=["lender"]).assign(effort=effort[rows])
    return view.reset_index(drop=True)


def _step_effort(ledger: pd.DataFrame) -> np.ndarray:
    """Per row: the effort its agent spent during its step (applying and acting: the sum over its rows)."""
    key = ledger["step"].to_numpy(dtype=np.int64), ledger["agent_id"].to_numpy(dtype=np.int64)
    _, inverse = np.unique(np.column_stack(key), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    total = np.bincount(inverse, weights=ledger["effort"].to_numpy(dtype=float), minlength=0)
    return total[inverse]
