"""Valid subgroup-action pairs, their effectiveness, and each individual's recourse cost.

:func:`evaluate` applies every valid action to every covered affected individual once per distinct
counterfactual row (:mod:`recoursesim.auditors.facts.counterfactuals`), prices the actions
(:mod:`recoursesim.auditors.facts.pricing`), counts per group for whom each pair works, and
reduces each member's options to its recourse cost within each of its subgroups.

Notation: ``S`` is the feature mask of a subgroup, ``F`` that of an action. An action is valid for
a subgroup when it changes at least one of the subgroup's values, each change is feasible, and

- ``rule="same_features"`` (the default, the paper's pairing): ``F == S``;
- ``rule="subsets"``: ``F`` is a subset of ``S``.

For a member ``x`` of a subgroup, validity and cost depend only on ``x`` (``x`` agrees with the
subgroup on ``S``), which is what makes per-individual work shareable across subgroups
(:mod:`recoursesim.auditors.facts.lattice`). Pairs with the same effect on a subgroup are merged
(:mod:`recoursesim.auditors.facts.distinct`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse

from recoursesim.auditors.facts.counterfactuals import CounterfactualScorer
from recoursesim.auditors.facts.distinct import Pairs
from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.lattice import covered_by_mask, membership, recourse_cost_closure, upward_closure
from recoursesim.auditors.facts.linear import LinearCodes, LinearScorer
from recoursesim.auditors.facts.mining import Itemsets, mask_columns
from recoursesim.auditors.facts.pricing import cheapest_working, distinct_rows, validity_and_cost
from recoursesim.sweep.progress import Progress, progress_bar

#: Membership entries sorted per chunk by :func:`_sort_costs_within` (bounds memory).
SORT_CHUNK = 1 << 20

#: Candidate-action rules: which actions are paired with a subgroup.
ACTION_RULES: tuple[str, ...] = ("same_features", "subsets")


@dataclass(frozen=True)
class Evaluation:
    """Everything the metrics need about subgroups, actions and members.

    Attributes:
        pair_subgroup: Subgroup index of each valid (subgroup, action) pair, sorted by subgroup;
            one pair per distinct effect on the subgroup.
        pair_action: Action index of each valid pair (the representative of its effect: the
            lowest action index, i.e. the fewest features).
        pair_cost: Cost of the action for the subgroup.
        pair_hits: ``(n_pairs, 2)`` number of members of group 0 / 1 for whom the action works.
        sizes: ``(n_subgroups, 2)`` members of group 0 / 1.
        member_indptr: CSR row pointer: members of subgroup ``p`` are
            ``member_index[member_indptr[p]:member_indptr[p + 1]]``.
        member_index: Row index (into the affected rows) of each member.
        member_group: Group (0 or 1) of each member.
        member_cost: Recourse cost (float64) of each member within its subgroup (inf when no
            valid action works for it).
        n_counterfactuals: Distinct counterfactual rows scored.
        n_applications: (individual, action) applications those rows stand for.
        n_model_calls: Calls of the model's ``predict``.
        n_merged_pairs: Valid pairs dropped because another action of the same subgroup has the
            same effect.
    """

    pair_subgroup: np.ndarray
    pair_action: np.ndarray
    pair_cost: np.ndarray
    pair_hits: np.ndarray
    sizes: np.ndarray
    member_indptr: np.ndarray
    member_index: np.ndarray
    member_group: np.ndarray
    member_cost: np.ndarray
    n_counterfactuals: int
    n_applications: int
    n_model_calls: int
    n_merged_pairs: int = 0

    @cached_property
    def _sorted(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        rows = np.repeat(np.arange(len(self.sizes), dtype=np.int32), np.diff(self.member_indptr))
        out = {}
        for g in (0, 1):
            mine = self.member_group == g
            out[g] = _sort_costs_within(rows[mine], self.member_cost[mine])
        return out

    def sorted_members(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        """Return (subgroup, recourse cost) of group ``g``'s memberships, by subgroup then cost."""
        return self._sorted[g]


def evaluate(
    space: ItemSpace,
    rows: np.ndarray,
    group: np.ndarray,
    subgroups: Itemsets,
    actions: Itemsets,
    predict: Callable[[np.ndarray], np.ndarray],
    rule: str = "same_features",
    linear: LinearCodes | None = None,
    progress: bool | None = False,
) -> Evaluation:
    """Score every valid action on every covered affected individual.

    Args:
        space: The encoded data.
        rows: Indices (into ``space.codes``) of the affected individuals.
        group: Their protected group, 0 or 1.
        subgroups: Common subgroups (a downward-closed family of itemsets).
        actions: Candidate actions.
        predict: Maps a code matrix to a boolean array, True for the favourable prediction.
        rule: Candidate-action rule, one of :data:`ACTION_RULES`.
        linear: The model's decision terms when it is a logistic model (:func:`linear_codes`):
            counterfactuals are then scored from them, with the same predictions as ``predict``.
        progress: Show a bar over the (individual, action) applications scored (``None``: when
            stderr is a terminal).

    Returns:
        The :class:`Evaluation`.
    """
    codes = space.codes[rows]
    member = membership(subgroups, codes)
    in_group = [(group == g).astype(np.float32) for g in (0, 1)]
    sizes = np.column_stack([member @ weights for weights in in_group]).round().astype(np.int64)
    smasks, s_index = np.unique(subgroups.masks, return_inverse=True)
    scorer: CounterfactualScorer | LinearScorer
    scorer = CounterfactualScorer(space, codes, predict) if linear is None else LinearScorer(linear, codes, predict)
    pairs = Pairs(space)
    bar = progress_bar(None, 0, enabled=progress, description="scoring", unit="applications", transient=True)
    if rule == "subsets":
        member_cost = _subset_rule(space, codes, group, member, smasks, s_index, subgroups, actions, scorer, pairs, bar)
    else:
        member_cost = _same_features(
            space, group, member, sizes, smasks, s_index, subgroups, actions, scorer, pairs, bar
        )
    bar.close()
    pair_p, pair_a, pair_cost, pair_hits, n_merged = pairs.distinct()
    return Evaluation(
        pair_subgroup=pair_p,
        pair_action=pair_a,
        pair_cost=pair_cost,
        pair_hits=pair_hits,
        sizes=sizes,
        member_indptr=member.indptr.astype(np.int64),
        member_index=member.indices.astype(np.int32),
        member_group=group[member.indices].astype(np.int8),
        member_cost=member_cost,
        n_counterfactuals=scorer.n_rows,
        n_applications=scorer.n_applications,
        n_model_calls=scorer.n_calls,
        n_merged_pairs=n_merged,
    )


def _action_groups(actions: Itemsets, position: dict[int, int]) -> list[tuple[int, np.ndarray]]:
    """Return (feature mask F, action indices) for every F that some subgroup mask equals.

    The indices of each mask are ascending; all masks are grouped by one stable sort (a scan of
    every action per mask costs masks x actions, minutes with millions of actions).
    """
    amasks, a_inverse = np.unique(actions.masks, return_inverse=True)
    a_inverse = a_inverse.ravel()
    order = np.argsort(a_inverse, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(a_inverse, minlength=len(amasks)))]
    return [
        (int(fmask), order[bounds[f_index] : bounds[f_index + 1]])
        for f_index, fmask in enumerate(amasks)
        if fmask != 0 and int(fmask) in position
    ]


def _same_features(
    space: ItemSpace,
    group: np.ndarray,
    member: sparse.csr_matrix,
    sizes: np.ndarray,
    smasks: np.ndarray,
    s_index: np.ndarray,
    subgroups: Itemsets,
    actions: Itemsets,
    scorer: CounterfactualScorer | LinearScorer,
    pairs: Pairs,
    bar: Progress,
) -> np.ndarray:
    """The paper's rule: pair the subgroups of mask F with the actions of mask F; return member costs.

    The subgroups of one mask have distinct values on it, so they partition the individuals they
    cover: the members of each are priced by the subgroup's own values, and each (subgroup, group)
    is a contiguous run of membership entries whose hits are a sum over the run.
    """
    position = {int(mask): i for i, mask in enumerate(smasks)}
    d = space.codes.shape[1]
    # Membership entries ordered by subgroup, then group 0 before group 1 (rows ascending within).
    entry_rows = np.repeat(np.arange(member.shape[0], dtype=np.int64), np.diff(member.indptr))
    by_group = np.argsort(entry_rows * 2 + group[member.indices], kind="stable")
    del entry_rows
    plans = []
    for fmask, acts in _action_groups(actions, position):
        exact = np.flatnonzero(s_index == position[fmask])
        lo, count = member.indptr[exact], np.diff(member.indptr)[exact]
        entries = by_group[np.repeat(lo - np.cumsum(np.r_[0, count[:-1]]), count) + np.arange(count.sum())]
        if len(entries):
            scorer.add(fmask, actions.values[acts], member.indices[entries])
            plans.append((fmask, acts, exact, entries))
    scorer.run()
    bar.total = scorer.n_applications
    member_cost = np.full(member.nnz, np.inf)
    for plan_index, (fmask, acts, exact, entries) in enumerate(plans):
        bar.update(len(entries) * len(acts))
        fcols = mask_columns(fmask, d)
        avals = actions.values[acts][:, fcols]
        pvals = subgroups.values[exact][:, fcols]
        works = scorer.result(plan_index)  # (len(entries), k)
        pvalid, pcost = validity_and_cost(space, fcols, pvals, avals)
        owner = np.repeat(np.arange(len(exact)), sizes[exact].sum(axis=1))
        member_cost[entries] = cheapest_working(works, np.where(pvalid, pcost, np.inf), owner)
        if not pvalid.any():
            continue
        run = sizes[exact].ravel()  # (subgroup, group) run lengths, in entry order
        starts = np.cumsum(np.r_[0, run[:-1]])
        counted = np.zeros((len(run), works.shape[1]), dtype=np.int32)
        counted[run > 0] = np.add.reduceat(works, starts[run > 0], axis=0, dtype=np.int32)
        sub_i, act_i = np.nonzero(pvalid)
        hits = np.column_stack([counted[2 * sub_i, act_i], counted[2 * sub_i + 1, act_i]])
        pairs.add(fcols, exact, acts, pvals, avals, pcost, sub_i, act_i, hits)
    return member_cost


def _subset_rule(
    space: ItemSpace,
    codes: np.ndarray,
    group: np.ndarray,
    member: sparse.csr_matrix,
    smasks: np.ndarray,
    s_index: np.ndarray,
    subgroups: Itemsets,
    actions: Itemsets,
    scorer: CounterfactualScorer | LinearScorer,
    pairs: Pairs,
    bar: Progress,
) -> np.ndarray:
    """The subset rule: pair a subgroup of mask S with the actions of every mask F within S; return member costs."""
    n, d = codes.shape
    position = {int(mask): i for i, mask in enumerate(smasks)}
    in_group = [(group == g).astype(np.float32) for g in (0, 1)]
    covered = covered_by_mask(member, s_index, len(smasks))
    reach_rows = upward_closure(smasks, position, covered, d)
    del covered
    plans = []
    for fmask, acts in _action_groups(actions, position):
        cov = np.flatnonzero(reach_rows[position[fmask]])
        if len(cov):
            scorer.add(fmask, actions.values[acts], cov)
            plans.append((fmask, acts, cov))
    del reach_rows
    scorer.run()
    bar.total = scorer.n_applications
    best = np.full((len(smasks), n), np.inf)
    for plan_index, (fmask, acts, cov) in enumerate(plans):
        bar.update(len(cov) * len(acts))
        fcols = mask_columns(fmask, d)
        avals = actions.values[acts][:, fcols]
        works = scorer.result(plan_index)  # (len(cov), k)
        # Validity and cost depend only on an individual's values on F: price each distinct one.
        distinct, inverse = distinct_rows(codes[cov][:, fcols])
        valid, cost = validity_and_cost(space, fcols, distinct, avals)
        best[position[fmask], cov] = cheapest_working(works, np.where(valid, cost, np.inf), inverse)
        supersets = np.flatnonzero((smasks & fmask) == fmask)
        subs = np.flatnonzero(np.isin(s_index, supersets))
        pvals = subgroups.values[subs][:, fcols]
        pvalid, pcost = validity_and_cost(space, fcols, pvals, avals)
        if not pvalid.any():
            continue
        rows_of = member[subs][:, cov]  # every member of these subgroups is in cov
        sub_i, act_i = np.nonzero(pvalid)
        hits = []
        for weights in in_group:
            counted = works * weights[cov, None]
            hits.append(np.rint(np.asarray(rows_of @ counted)[sub_i, act_i]).astype(np.int32))
        pairs.add(fcols, subs, acts, pvals, avals, pcost, sub_i, act_i, np.column_stack(hits))
    recourse_cost_closure(smasks, position, best, d)
    member_rows = np.repeat(np.arange(member.shape[0], dtype=np.int32), np.diff(member.indptr))
    return best[s_index[member_rows], member.indices]


def _sort_costs_within(rows: np.ndarray, cost: np.ndarray, chunk: int = SORT_CHUNK) -> tuple[np.ndarray, np.ndarray]:
    """Sort ``cost`` within each run of equal ``rows`` (``rows`` non-decreasing); return both, sorted.

    Runs are sorted a chunk of whole runs at a time (bounds memory), each chunk by one integer sort
    of (run, rank of the cost among the chunk's distinct costs).
    """
    out_rows, out_cost = np.empty_like(rows), np.empty_like(cost)
    if rows.size == 0:  # no (row, action) pair at all: nothing to sort (the loop below needs one run)
        return out_rows, out_cost
    starts = np.unique(np.searchsorted(rows, rows[::chunk], side="left"))
    for lo, hi in zip(starts, np.r_[starts[1:], len(rows)], strict=True):
        costs, rank = np.unique(cost[lo:hi], return_inverse=True)
        key = (rows[lo:hi] - rows[lo]).astype(np.int64) * len(costs) + rank.ravel()
        key.sort()
        out_rows[lo:hi] = key // len(costs) + rows[lo]
        out_cost[lo:hi] = costs[key % len(costs)]
    return out_rows, out_cost
