"""The fairness-of-recourse definitions of the paper's Section 2.3, vectorised over subgroups.

Each function returns, per subgroup, the value of one protected group (``g`` = 0 or 1). The
unfairness score compares the two groups' values (:func:`compare`).

Rules for infinity (one rule, used everywhere):

- A cost-type value (Equal Cost of Effectiveness, Equal Conditional Mean Recourse) is ``inf`` when
  the group cannot reach the required effectiveness / nobody in it has recourse.
- Score: ``|v0 - v1|`` when both are finite; ``inf`` when exactly one is ``inf`` (bias against that
  group); ``0`` ("fair") when both are ``inf`` (neither group has recourse: equal, and flagged by
  both values being ``inf``).
- Effectiveness-type values (effectiveness, choice counts, effectiveness within budget, the KS
  statistic) are always finite; no qualifying action gives 0, never ``inf``.
- Differences below :data:`TOLERANCE` count as fair (score 0, no rank, no bias).
- Ranks are dense over the unfair subgroups, highest score first; ``inf`` scores share rank 1.
"""

from __future__ import annotations

import math

import numpy as np

from recoursesim.auditors.facts.effects import Evaluation

#: Differences smaller than this are fair.
TOLERANCE = 1e-9


def _eff(ev: Evaluation, g: int) -> np.ndarray:
    return ev.pair_hits[:, g] / ev.sizes[ev.pair_subgroup, g]


def _segment_reduce(ufunc: np.ufunc, values: np.ndarray, segment: np.ndarray, m: int, fill: float) -> np.ndarray:
    """Reduce ``values`` grouped by sorted ``segment`` ids into ``m`` slots (``fill`` when empty)."""
    out = np.full(m, fill, dtype=float)
    if len(values) == 0:
        return out
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    out[segment[starts]] = ufunc.reduceat(values, starts)
    return out


def macro_effectiveness(ev: Evaluation, g: int) -> np.ndarray:
    """aeff_M: the best single action's effectiveness (0 without valid actions)."""
    return _segment_reduce(np.maximum, _eff(ev, g), ev.pair_subgroup, len(ev.sizes), 0.0)


def micro_effectiveness(ev: Evaluation, g: int) -> np.ndarray:
    """aeff_mu: the share of the group with at least one working valid action."""
    return micro_within_budget(ev, g, math.inf)


def choice_count(ev: Evaluation, g: int, phi: float) -> np.ndarray:
    """Equal Choice for Recourse: number of valid actions with effectiveness >= phi."""
    ok = (_eff(ev, g) >= phi - TOLERANCE).astype(float)
    return np.bincount(ev.pair_subgroup, weights=ok, minlength=len(ev.sizes))


def macro_within_budget(ev: Evaluation, g: int, budget: float) -> np.ndarray:
    """ecd_M(c): best effectiveness of one action costing at most c (0 if none)."""
    eff = np.where(ev.pair_cost <= budget + TOLERANCE, _eff(ev, g), 0.0)
    return _segment_reduce(np.maximum, eff, ev.pair_subgroup, len(ev.sizes), 0.0)


def micro_within_budget(ev: Evaluation, g: int, budget: float) -> np.ndarray:
    """ecd_mu(c): share of the group whose cheapest working valid action costs at most c."""
    rows, cost = ev.sorted_members(g)
    reached = cost <= budget + TOLERANCE if math.isfinite(budget) else np.isfinite(cost)
    hits = np.bincount(rows, weights=reached.astype(float), minlength=len(ev.sizes))
    return hits / ev.sizes[:, g]


def macro_cost_of_effectiveness(ev: Evaluation, g: int, phi: float) -> np.ndarray:
    """ecd_M^-1(phi): cheapest single action working for at least phi of the group (inf if none)."""
    cost = np.where(_eff(ev, g) >= phi - TOLERANCE, ev.pair_cost, np.inf)
    if phi <= 0:
        return np.zeros(len(ev.sizes))
    return _segment_reduce(np.minimum, cost, ev.pair_subgroup, len(ev.sizes), np.inf)


def micro_cost_of_effectiveness(ev: Evaluation, g: int, phi: float) -> np.ndarray:
    """ecd_mu^-1(phi): least budget with which at least phi of the group reach recourse (inf if none)."""
    m = len(ev.sizes)
    if phi <= 0:
        return np.zeros(m)
    rows, cost = ev.sorted_members(g)
    starts = np.searchsorted(rows, np.arange(m))
    need = np.ceil(phi * ev.sizes[:, g] - TOLERANCE).astype(np.int64)
    out = np.full(m, np.inf)
    ok = (need >= 1) & (need <= ev.sizes[:, g])
    out[ok] = cost[starts[ok] + need[ok] - 1]
    return out


def conditional_mean_recourse(ev: Evaluation, g: int) -> np.ndarray:
    """Mean recourse cost over the members who have recourse (inf if nobody has)."""
    rows, cost = ev.sorted_members(g)
    finite = np.isfinite(cost)
    total = np.bincount(rows[finite], weights=cost[finite], minlength=len(ev.sizes))
    count = np.bincount(rows[finite], minlength=len(ev.sizes))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.inf)


def _ks_from_sorted(
    segment: np.ndarray, cost: np.ndarray, curve0: np.ndarray, curve1: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """Max |curve0 - curve1| at the last entry of each (segment, cost) tie block."""
    stat = np.zeros(m)
    against = np.full(m, -1)
    if len(segment) == 0:
        return stat, against
    last = np.r_[(segment[1:] != segment[:-1]) | (cost[1:] != cost[:-1]), True]
    seg, gap = segment[last], curve0[last] - curve1[last]
    size = np.abs(gap)
    order = np.lexsort((-size, seg))
    first = np.r_[True, seg[order][1:] != seg[order][:-1]]
    pick = order[first]
    stat[seg[pick]] = size[pick]
    against[seg[pick]] = np.where(gap[pick] < 0, 0, 1)
    return stat, against


def macro_ks(ev: Evaluation, block: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Two-sample KS statistic between the groups' macro ecd curves, on the cost axis.

    Both groups share the subgroup's actions, so each curve is the running maximum of
    effectiveness over actions sorted by cost, read at every cost breakpoint. Computed over
    blocks of ``block`` subgroups to bound memory.

    Returns:
        The statistic per subgroup, and the group (0/1) whose curve is lower at the maximum gap
        (-1 when the statistic is 0).
    """
    m = len(ev.sizes)
    stat = np.zeros(m)
    against = np.full(m, -1)
    bounds = np.searchsorted(ev.pair_subgroup, np.arange(0, m + block, block))
    for i, first in enumerate(range(0, m, block)):
        lo, hi = bounds[i], bounds[i + 1]
        seg, cost = ev.pair_subgroup[lo:hi], ev.pair_cost[lo:hi]
        order = np.lexsort((cost, seg))
        seg, cost = seg[order], cost[order]
        curves = []
        for g in (0, 1):
            eff = ev.pair_hits[lo:hi, g][order] / ev.sizes[seg, g]
            curves.append(_running_max(eff, seg))
        s, a = _ks_from_sorted(seg, cost, curves[0], curves[1], m)
        last = min(first + block, m)
        stat[first:last], against[first:last] = s[first:last], a[first:last]
    return stat, against


def micro_ks(ev: Evaluation, block: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Two-sample KS statistic between the groups' micro ecd curves (the ECDFs of recourse cost).

    Read at every finite recourse cost of either group; members without recourse never enter.
    Computed over blocks of ``block`` subgroups to bound memory.
    """
    m = len(ev.sizes)
    stat = np.zeros(m)
    against = np.full(m, -1)
    for first in range(0, m, block):
        last = min(first + block, m)
        lo, hi = ev.member_indptr[first], ev.member_indptr[last]
        rows = np.repeat(np.arange(first, last), np.diff(ev.member_indptr[first : last + 1]))
        cost, grp = ev.member_cost[lo:hi], ev.member_group[lo:hi]
        finite = np.isfinite(cost)
        seg, cost, grp = rows[finite], cost[finite], grp[finite]
        order = np.lexsort((cost, seg))
        seg, cost, grp = seg[order], cost[order], grp[order]
        curves = [_segment_cumsum((grp == g) / np.maximum(ev.sizes[seg, g], 1), seg) for g in (0, 1)]
        s, a = _ks_from_sorted(seg, cost, curves[0], curves[1], m)
        stat[first:last], against[first:last] = s[first:last], a[first:last]
    return stat, against


def _running_max(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    # values lie in [0, 1]; offsetting each segment by 2 * its rank keeps the scan per segment.
    rank = np.cumsum(np.r_[0, segment[1:] != segment[:-1]]) if len(segment) else segment
    return np.maximum.accumulate(values + 2.0 * rank) - 2.0 * rank


def _segment_cumsum(values: np.ndarray, segment: np.ndarray) -> np.ndarray:
    total = np.cumsum(values)
    if len(values) == 0:
        return total
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    before = np.r_[0.0, total][starts]
    length = np.diff(np.r_[starts, len(values)])
    return total - np.repeat(before, length)


def ks_critical(n0: np.ndarray, n1: np.ndarray, alpha: float) -> np.ndarray:
    """The paper's α-rule: fair with confidence α if the KS statistic is below this value."""
    return np.sqrt(-np.log(alpha / 2.0) * (n0 + n1) / (2.0 * n0 * n1))


def compare(value0: np.ndarray, value1: np.ndarray, higher_is_better: bool) -> tuple[np.ndarray, np.ndarray]:
    """Unfairness score and the disadvantaged group (0/1, or -1 when fair), per the rules above."""
    inf0, inf1 = np.isinf(value0), np.isinf(value1)
    with np.errstate(invalid="ignore"):
        score = np.abs(value0 - value1)
    score = np.where(inf0 & inf1, 0.0, score)
    score = np.where(inf0 ^ inf1, np.inf, score)
    score = np.where(score < TOLERANCE, 0.0, score)
    if higher_is_better:
        against = np.where(value0 < value1, 0, 1)
    else:
        against = np.where(inf0 & ~inf1, 0, np.where(inf1 & ~inf0, 1, np.where(value0 > value1, 0, 1)))
    return score, np.where(score > 0, against, -1)


def dense_rank(score: np.ndarray) -> np.ndarray:
    """Dense rank, 1 = most unfair (inf first); 0 for fair (score 0)."""
    key = np.where(np.isinf(score), np.inf, np.round(score, 12))
    unfair = key > 0
    distinct = np.unique(key[unfair])[::-1]
    rank = np.zeros(len(score), dtype=np.int64)
    rank[unfair] = np.searchsorted(-distinct, -key[unfair]) + 1
    return rank
