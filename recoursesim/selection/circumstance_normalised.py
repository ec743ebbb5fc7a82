"""Circumstance-normalised selection (CNS, Bell et al. 2024 §4): top scores win within each group."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from recoursesim._validate import check_choice
from recoursesim.component import Component
from recoursesim.registry import register
from recoursesim.selection.base import Selection, SelectionContext, check_places, check_scores, places_at, top_k_mask


def group_quotas(k: int, sizes: np.ndarray, best: np.ndarray, *, equal: bool = False) -> np.ndarray:
    """Split ``k`` positive outcomes across groups.

    Each group's entitlement is ``k · n_g / n`` (or ``k / G`` with ``equal``); quotas are its
    integer part plus one extra place for the groups with the largest remainders (ties go to
    the group whose best candidate scores higher, then the lower group code). A group cannot
    receive more places than it has agents: the surplus is split again among the other groups
    by the same rule, so exactly ``min(k, n)`` places are given.

    Args:
        k: Number of positive outcomes.
        sizes: Number of agents in each group.
        best: Best score in each group (``-inf`` for an empty group), used to break ties.
        equal: Equal entitlements instead of proportional ones.

    Returns:
        Integer quotas per group, summing to ``min(k, sizes.sum())``.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    quotas = np.zeros_like(sizes)
    remaining = min(int(k), int(sizes.sum()))
    open_ = sizes > 0
    while remaining > 0:
        weights = open_.astype(float) if equal else np.where(open_, sizes, 0).astype(float)
        exact = remaining * weights / weights.sum()
        share = np.minimum(np.floor(exact + 1e-9).astype(np.int64), sizes - quotas)
        short = remaining - int(share.sum())
        if short > 0:
            room = (sizes - quotas - share) > 0
            order = np.lexsort((np.arange(sizes.size), -best, -(exact - share)))
            order = order[room[order] & open_[order]]
            share[order[:short]] += 1
        quotas += share
        remaining -= int(share.sum())
        open_ = quotas < sizes
    return quotas


@register("selector", "cns", "circumstance_normalised")
class CircumstanceNormalisedSelector(Component):
    """Circumstance-normalised selection (CNS): the ``k`` places are split across groups, top scores win within each.

    Agents compete only within their group (the paper's circumstance "type"), so differences in
    initial circumstances between groups do not decide who wins. Quotas follow the current group
    sizes (``quota="proportional"``, the paper's rule) or are equal (``quota="equal"``, what the
    reference code does; identical when groups have equal sizes) — see :func:`group_quotas` for the
    rounding and for groups that are empty or too small. Ties within a group go to the
    longest-waiting agent, then the lowest id.

    The threshold that recommendations aim at is each group's own cut-off (its lowest selected
    score; ``threshold="group"``), or, as in the reference code, the highest of the groups'
    cut-offs applied to everybody (``threshold="max"``). A group that gets no place this step is
    given the highest cut-off.

    Args:
        k: Positive outcomes per step, or a list with one number per step (see
            :class:`~recoursesim.selection.top_k.TopKSelector`).
        quota: ``"proportional"`` or ``"equal"``.
        threshold: ``"group"`` or ``"max"``.
    """

    def __init__(self, k: int | Sequence[int], quota: str = "proportional", threshold: str = "group") -> None:
        self.k = k
        self._k = check_places("k", k)
        self.quota = quota
        check_choice("quota", quota, ["proportional", "equal"])
        self.threshold = threshold
        check_choice("threshold", threshold, ["group", "max"])

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Select the top of each group by its quota."""
        scores = check_scores(scores, context)
        k = places_at(self._k, context.step)
        n_groups = max(int(context.n_groups), int(context.group.max()) + 1 if context.group.size else 0)
        sizes = np.bincount(context.group, minlength=n_groups)
        best = np.full(n_groups, -np.inf)
        np.maximum.at(best, context.group, scores)
        empty = np.flatnonzero(sizes == 0)
        if empty.size and scores.size:
            warnings.warn(
                f"CNS: group(s) {empty.tolist()} have no agents this step; their share goes to the other groups",
                RuntimeWarning,
                stacklevel=2,
            )
        if 0 < k < int((sizes > 0).sum()):
            warnings.warn(
                f"CNS: k={k} is smaller than the number of non-empty groups ({int((sizes > 0).sum())}); "
                "some groups get no positive outcome this step",
                RuntimeWarning,
                stacklevel=2,
            )
        quotas = group_quotas(k, sizes, best, equal=self.quota == "equal")
        selected = np.zeros(scores.size, dtype=bool)
        cutoffs = np.full(n_groups, np.nan)
        for code in range(n_groups):
            rows = np.flatnonzero(context.group == code)
            if rows.size == 0 or quotas[code] == 0:
                continue
            mask, cutoff = top_k_mask(scores[rows], int(quotas[code]), context.subset(rows))
            selected[rows[mask]] = True
            cutoffs[code] = cutoff
        highest = float(np.nanmax(cutoffs)) if np.isfinite(cutoffs).any() else float("inf")
        if self.threshold == "max":
            return Selection(selected, highest)
        per_group = np.where(np.isnan(cutoffs), highest, cutoffs)
        return Selection(selected, per_group[context.group] if scores.size else highest)
