"""The market measures of a run, from its ledger: per step, per lender and for the market, per group.

:func:`market_table` is the per-step table (``market.parquet`` of a market run);
:func:`market_summary` pools it over the run. Both are built on the mask measures of
:mod:`recoursesim.metrics.market` (via their counts, so that pooling over steps sums counts rather
than averaging ratios) and on the single-lender ETR/TTR of :mod:`recoursesim.metrics.recourse`
applied to the views of :mod:`recoursesim.metrics.market_ledger`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from recoursesim._categories import category_dtype
from recoursesim.errors import ConfigError
from recoursesim.ledger import by_applicant
from recoursesim.metrics.market import ALL, exclusion_counts
from recoursesim.metrics.market_ledger import MARKET, MarketMasks, lender_view, market_masks
from recoursesim.metrics.outcomes import EffortMeasure
from recoursesim.metrics.recourse import recourse_over_time, recourse_summary

#: Count columns of :func:`market_table` (they add up over steps).
COUNTS = (
    "n_applicants", "n_selected", "n_refused", "n_recommended", "n_acted",
    "n_excluded", "expected_excluded", "n_ported", "n_pairs",
)  # fmt: skip
#: Share and ratio columns and the counts they are made of: ``column = numerator / denominator``.
RATIOS = {
    "selection_rate": ("n_selected", "n_applicants"),
    "recourse_rate": ("n_recommended", "n_refused"),
    "acted_rate": ("n_acted", "n_refused"),
    "systemic_exclusion": ("n_excluded", "n_applicants"),
    "homogenization": ("n_excluded", "expected_excluded"),
    "portability": ("n_ported", "n_pairs"),
}
#: The ETR/TTR columns taken from the views.
RECOURSE = ("n_recourse", "etr", "ttr", "retr", "dttr")


def market_table(
    ledger: pd.DataFrame,
    group_names: list[str] | None = None,
    *,
    effort: EffortMeasure = "cost",
    reference_group: str | None = None,
) -> pd.DataFrame:
    """Per step × (each lender, then ``"market"``) × (each group, then ``"all"``): the market measures.

    For a lender's rows: its applicants, selections and selection rate, the refused it gave a
    valid recommendation (``recourse_rate`` = recommended / refused), those who acted on its advice
    (``acted_rate``), and the portability of its advice (its recommendations at ``t`` accepted by
    the *other* lenders at ``t + 1``). For the market's rows: applicants anywhere, selected
    anywhere, refused everywhere (``n_refused`` = ``n_excluded``), with any valid recommendation,
    who acted on one; systemic exclusion, homogenization (observed over independent-lender
    exclusion) and portability pooled over the recommending lenders. Systemic exclusion and
    homogenization are NaN on lender rows. The ETR/TTR columns come from
    :func:`~recoursesim.metrics.recourse_over_time` on the lender's view (success = selected by
    it) and on the market view (selected by any), with ``retr``/``dttr`` against
    ``reference_group`` (default: the first group); they are NaN on the ``"all"`` rows' ``retr``
    and ``dttr``. Every share is NaN where its denominator is 0. A single-lender ledger is a
    market of one lender: homogenization 1 and systemic exclusion = its rejection rate.

    Args:
        ledger: A ledger frame (market or single-lender).
        group_names: The groups, in order (default: the ledger's group categories).
        effort: The effort measure of ETR (``"cost"`` or ``"score_gain"``).
        reference_group: The group disparities are measured against.

    Returns:
        Columns ``step, lender, group``, :data:`COUNTS`, the :data:`RATIOS` and :data:`RECOURSE`.
    """
    masks = market_masks(ledger)
    groups = list(group_names) if group_names is not None else masks.groups
    if groups != masks.groups:
        masks = _regrouped(masks, groups)
    counts = _counts(masks)  # (steps, lenders + 1, groups + 1, counts)
    n_steps, n_lenders, n_groups = counts.shape[:3]
    lenders = [*masks.lenders, MARKET]
    columns: dict[str, object] = {
        "step": np.repeat(masks.steps, n_lenders * n_groups).astype(np.int64),
        "lender": pd.Categorical.from_codes(
            np.tile(np.repeat(np.arange(n_lenders), n_groups), n_steps), dtype=category_dtype(lenders)
        ),
        "group": pd.Categorical.from_codes(
            np.tile(np.arange(n_groups), n_steps * n_lenders), dtype=category_dtype([*groups, ALL])
        ),
    }
    flat = counts.reshape(-1, len(COUNTS))
    for position, name in enumerate(COUNTS):
        whole = name != "expected_excluded"
        columns[name] = np.rint(flat[:, position]).astype(np.int64) if whole else flat[:, position]
    table = with_ratios(pd.DataFrame(columns))
    recourse = _recourse_by_view(ledger, masks.lenders, groups, effort, reference_group or groups[0])
    table = table.merge(recourse, on=["step", "lender", "group"], how="left", sort=False)
    table["n_recourse"] = table["n_recourse"].fillna(0).astype(np.int64)
    return table


def market_summary(
    ledger: pd.DataFrame,
    table: pd.DataFrame | None = None,
    *,
    effort: EffortMeasure = "cost",
    reference_group: str | None = None,
) -> pd.DataFrame:
    """The market measures pooled over the run: per (lender | ``"market"``) × (group | ``"all"``).

    Counts are summed over steps and the shares recomputed from the sums (pooled systemic
    exclusion is excluded applications over applications; pooled homogenization is observed
    over expected exclusion). ETR, TTR and their disparities are
    :func:`~recoursesim.metrics.recourse_summary` of each view (means over every agent's recourse).

    Args:
        ledger: A ledger frame.
        table: ``market_table(ledger, ...)`` if already computed.
        effort: The effort measure of ETR.
        reference_group: The group disparities are measured against (default: the first group).
    """
    table = market_table(ledger, effort=effort, reference_group=reference_group) if table is None else table
    pooled = table.groupby(["lender", "group"], observed=False, sort=True)[list(COUNTS)].sum().reset_index()
    pooled = with_ratios(pooled)
    groups = [g for g in table["group"].cat.categories if g != ALL]
    reference = reference_group or groups[0]
    parts = []
    for name in table["lender"].cat.categories:
        view = by_applicant(ledger) if name == MARKET else lender_view(ledger, name)
        summary = recourse_summary(view, effort=effort, reference_group=reference)
        parts.append(summary.loc[:, ["group", "recourse", "etr", "ttr", "retr", "dttr"]].assign(lender=name))
    recourse = pd.concat(parts, ignore_index=True).rename(columns={"recourse": "n_recourse"})
    recourse["group"] = recourse["group"].astype(str)
    pooled["group"] = pooled["group"].astype(str)
    pooled["lender"] = pooled["lender"].astype(str)
    out = pooled.merge(recourse, on=["lender", "group"], how="left", sort=False)
    out["lender"] = pd.Categorical(out["lender"], dtype=table["lender"].dtype)
    out["group"] = pd.Categorical(out["group"], dtype=table["group"].dtype)
    return out


def with_ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the :data:`RATIOS` to ``frame`` (counts per lender and group) in place, and return it.

    A share is NaN where its denominator is 0; systemic exclusion and homogenization are NaN on lender rows.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, (numerator, denominator) in RATIOS.items():
            top, bottom = frame[numerator].to_numpy(dtype=float), frame[denominator].to_numpy(dtype=float)
            frame[name] = np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), np.nan)
    lender_rows = frame["lender"].astype(str).to_numpy() != MARKET
    frame.loc[lender_rows, ["systemic_exclusion", "homogenization"]] = np.nan
    return frame


def _regrouped(masks: MarketMasks, groups: list[str]) -> MarketMasks:
    """The masks with group codes into ``groups`` (a superset of the ledger's, in the caller's order)."""
    lookup = np.array([groups.index(g) if g in groups else -1 for g in masks.groups], dtype=np.int64)
    if (lookup < 0).any():
        missing = [g for g, i in zip(masks.groups, lookup, strict=True) if i < 0]
        raise ConfigError("group_names", f"lack the ledger's groups {missing}", "give every group of the ledger")
    return replace(masks, groups=groups, group=lookup[masks.group])


def _counts(masks: MarketMasks) -> np.ndarray:
    """The :data:`COUNTS` per step, lender (then the market) and group (then all): ``(S, L + 1, G + 1, C)``."""
    n_lenders, n_groups = len(masks.lenders), len(masks.groups)
    out = np.zeros((masks.steps.size, n_lenders + 1, n_groups + 1, len(COUNTS)))
    index = {name: position for position, name in enumerate(COUNTS)}
    for k in range(masks.steps.size):
        rows = masks.at(k)
        codes = masks.group[rows]
        applied, accepted = masks.applied[rows], masks.accepted[rows] & masks.applied[rows]
        refused = applied & ~accepted
        recommended, acted = masks.recommended[rows], masks.acted[rows]
        per_lender = {
            "n_applicants": applied,
            "n_selected": accepted,
            "n_refused": refused,
            "n_recommended": recommended,
            "n_acted": acted,
        }
        excluded = applied.any(axis=1) & ~accepted.any(axis=1)
        market = {
            "n_applicants": applied.any(axis=1),
            "n_selected": accepted.any(axis=1),
            "n_refused": excluded,
            "n_recommended": excluded & recommended.any(axis=1),
            "n_acted": excluded & acted.any(axis=1),
        }
        for name, mask in per_lender.items():
            out[k, :n_lenders, :n_groups, index[name]] = _by_group(mask, codes, n_groups).T
            out[k, n_lenders, :n_groups, index[name]] = _by_group(market[name][:, None], codes, n_groups)[:, 0]
        counts = exclusion_counts(applied, accepted, codes, n_groups)
        out[k, n_lenders, :n_groups, index["n_excluded"]] = counts.excluded
        out[k, n_lenders, :n_groups, index["expected_excluded"]] = counts.expected
        out[k, n_lenders, n_groups, index["expected_excluded"]] = counts.expected_pooled
        if k + 1 < masks.steps.size:
            _portability(masks, k, out, index)
    totals = out[:, :, :n_groups, :].sum(axis=2)
    expected_pooled = out[:, n_lenders, n_groups, index["expected_excluded"]].copy()
    out[:, :, n_groups, :] = totals
    out[:, n_lenders, n_groups, index["expected_excluded"]] = expected_pooled
    return out


def _by_group(mask: np.ndarray, codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Column sums of an ``(n, L)`` mask per group: ``(G, L)``."""
    onehot = np.zeros((n_groups, codes.size))
    onehot[codes, np.arange(codes.size)] = 1.0
    return onehot @ mask


def _portability(masks: MarketMasks, k: int, out: np.ndarray, index: dict[str, int]) -> None:
    """Fill the portability counts of step ``k``: each lender's advice at ``k``, judged by the others at ``k + 1``."""
    rows = masks.at(k)
    n_lenders, n_groups = len(masks.lenders), len(masks.groups)
    applied_next, accepted_next = _next_step(masks, k)
    advised = masks.recommended[rows]
    for name, later in (("n_pairs", applied_next), ("n_ported", accepted_next)):
        at_others = advised * (later.sum(axis=1, keepdims=True) - later)  # per agent and advising lender
        counts = _by_group(at_others, masks.group[rows], n_groups).T
        out[k, :n_lenders, :n_groups, index[name]] = counts
        out[k, n_lenders, :n_groups, index[name]] += counts.sum(axis=0)


def _next_step(masks: MarketMasks, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Step ``k``'s applicants' ``applied`` and ``accepted`` masks at step ``k + 1`` (all False if gone)."""
    rows, following = masks.at(k), masks.at(k + 1)
    agents, later = masks.agent_id[rows], masks.agent_id[following]
    position = np.clip(np.searchsorted(later, agents), 0, max(later.size - 1, 0))
    stayed = (later[position] == agents) if later.size else np.zeros(agents.size, dtype=bool)
    applied_next = np.zeros((agents.size, len(masks.lenders)), dtype=bool)
    accepted_next = np.zeros((agents.size, len(masks.lenders)), dtype=bool)
    applied_next[stayed] = masks.applied[following][position[stayed]]
    accepted_next[stayed] = masks.accepted[following][position[stayed]]
    return applied_next, accepted_next


def _recourse_by_view(
    ledger: pd.DataFrame, lenders: list[str], groups: list[str], effort: EffortMeasure, reference: str
) -> pd.DataFrame:
    """ETR/TTR per step, group (and all groups) of every lender's view and of the market view."""
    parts = []
    for name in [*lenders, MARKET]:
        view = by_applicant(ledger) if name == MARKET else lender_view(ledger, name)
        view = view.assign(group=pd.Categorical(view["group"].astype(str), dtype=category_dtype(groups)))
        per_group = recourse_over_time(view, effort=effort, reference_group=reference)
        pooled = recourse_over_time(
            view.assign(group=pd.Categorical([ALL] * len(view), dtype=category_dtype([ALL]))), effort=effort
        )
        frame = pd.concat([per_group, pooled], ignore_index=True)
        parts.append(frame.loc[:, ["step", "group", *(c for c in RECOURSE if c in frame)]].assign(lender=name))
    out = pd.concat(parts, ignore_index=True)
    out["step"] = out["step"].astype(np.int64)
    out["group"] = pd.Categorical(out["group"].astype(str), dtype=category_dtype([*groups, ALL]))
    out["lender"] = pd.Categorical(out["lender"], dtype=category_dtype([*lenders, MARKET]))
    return out


def portability_pairs(ledger: pd.DataFrame) -> pd.DataFrame:
    """Portability per ordered pair of lenders, all groups, pooled over the run.

    For lenders ``A != B``: over every applicant ``A`` advised at a step ``t`` and that applied to
    ``B`` at ``t + 1``, the share ``B`` accepted. The diagonal is left out.

    Returns:
        One row per (``source``, ``target``) in declaration order: ``n_ported``, ``n_pairs``, ``portability``.
    """
    masks = market_masks(ledger)
    n_lenders = len(masks.lenders)
    ported = np.zeros((n_lenders, n_lenders))
    pairs = np.zeros((n_lenders, n_lenders))
    for k in range(masks.steps.size - 1):
        applied_next, accepted_next = _next_step(masks, k)
        advised = masks.recommended[masks.at(k)].astype(float).T
        ported += advised @ accepted_next
        pairs += advised @ applied_next
    source, target = np.nonzero(~np.eye(n_lenders, dtype=bool))
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(pairs > 0, ported / np.where(pairs > 0, pairs, 1), np.nan)
    names = category_dtype(masks.lenders)
    return pd.DataFrame(
        {
            "source": pd.Categorical.from_codes(source, dtype=names),
            "target": pd.Categorical.from_codes(target, dtype=names),
            "n_ported": ported[source, target].astype(np.int64),
            "n_pairs": pairs[source, target].astype(np.int64),
            "portability": share[source, target],
        }
    )
