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

from recoursesim.auditors.facts.counterfactuals import CounterfactualScorer
from recoursesim.auditors.facts.distinct import EffectKeys, distinct_pairs
from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.lattice import covered_by_mask, membership, recourse_cost_closure, upward_closure
from recoursesim.auditors.facts.linear import LinearCodes, LinearScorer
from recoursesim.auditors.facts.mining import Itemsets
from recoursesim.auditors.facts.pricing import cheapest_working, distinct_rows, validity_and_cost

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
        rows = np.repeat(np.arange(len(self.sizes)), np.diff(self.member_indptr))
        out = {}
        for g in (0, 1):
            mine = self.member_group == g
            r, c = rows[mine].astype(np.int32), self.member_cost[mine]
            order = np.lexsort((c, r))
            out[g] = (r[order], c[order])
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

    Returns:
        The :class:`Evaluation`.
    """
    codes = space.codes[rows]
    n, d = codes.shape
    member = membership(subgroups, codes)
    in_group = [(group == g).astype(np.float32) for g in (0, 1)]
    sizes = np.column_stack([member @ weights for weights in in_group]).round().astype(np.int64)

    smasks, s_index = np.unique(subgroups.masks, return_inverse=True)
    position = {int(mask): i for i, mask in enumerate(smasks)}
    covered = covered_by_mask(member, s_index, len(smasks))
    subsets = rule == "subsets"
    reach_rows = upward_closure(smasks, position, covered, d) if subsets else covered

    amasks, a_inverse = np.unique(actions.masks, return_inverse=True)
    plans = []
    for f_index, fmask in enumerate(amasks):
        s_pos = position.get(int(fmask))
        if s_pos is None or fmask == 0:
            continue  # no subgroup fixes all of F's features: the actions are never valid
        cov = np.flatnonzero(reach_rows[s_pos])
        if len(cov):
            plans.append((int(fmask), np.flatnonzero(a_inverse == f_index), cov))

    scorer: CounterfactualScorer | LinearScorer
    scorer = CounterfactualScorer(space, codes, predict) if linear is None else LinearScorer(linear, codes, predict)
    for fmask, acts, cov in plans:
        scorer.add(fmask, actions.values[acts], cov)
    scorer.run()

    member.sort_indices()
    member_rows = np.repeat(np.arange(member.shape[0], dtype=np.int32), np.diff(member.indptr))
    if subsets:
        best = np.full((len(smasks), n), np.inf)
    else:
        # Recourse costs go straight to the memberships: those of the subgroups with mask F are
        # the slice by_mask[bounds[F]:bounds[F + 1]] of the membership entries.
        member_cost = np.full(len(member_rows), np.inf)
        by_mask = np.argsort(s_index[member_rows], kind="stable")
        bounds = np.searchsorted(s_index[member_rows][by_mask], np.arange(len(smasks) + 1))
    effects = EffectKeys(space)
    out_p, out_a, out_cost, out_hits = [], [], [], []
    for plan_index, (fmask, acts, cov) in enumerate(plans):
        fcols = [j for j in range(d) if fmask >> j & 1]
        avals = actions.values[acts][:, fcols]
        works = scorer.result(plan_index)  # (len(cov), k)
        # Validity and cost depend only on an individual's values on F: price each distinct one.
        distinct, inverse = distinct_rows(codes[cov][:, fcols])
        valid, cost = validity_and_cost(space, fcols, distinct, avals)
        priced = np.where(valid, cost, np.inf)
        reach = cheapest_working(works, priced, inverse)
        if subsets:
            best[position[fmask], cov] = reach
        else:
            reach_all = np.full(n, np.inf)
            reach_all[cov] = reach
            entries = by_mask[bounds[position[fmask]] : bounds[position[fmask] + 1]]
            member_cost[entries] = reach_all[member.indices[entries]]

        if subsets:
            supersets = np.flatnonzero((smasks & fmask) == fmask)
            subs = np.flatnonzero(np.isin(s_index, supersets))
        else:
            subs = np.flatnonzero(s_index == position[fmask])
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
        out_p.append(subs[sub_i].astype(np.int32))
        out_a.append(acts[act_i].astype(np.int32))
        out_cost.append(pcost[sub_i, act_i])
        out_hits.append(np.column_stack(hits))
        effects.add(fcols, pvals[sub_i], avals[act_i])

    if subsets:
        recourse_cost_closure(smasks, position, best, d)
        member_cost = best[s_index[member_rows], member.indices]
        del best
    del member_rows

    n_merged = 0
    if out_p:
        keys = effects.keys()
        pair_p, pair_a = np.concatenate(out_p), np.concatenate(out_a)
        keep = distinct_pairs(pair_p, pair_a, keys)
        n_merged = int((~keep).sum())
        del keys
        kept = np.flatnonzero(keep)
        order = kept[np.lexsort((pair_a[kept], pair_p[kept]))]
        pair_p, pair_a = pair_p[order], pair_a[order]
        pair_cost, pair_hits = (_take(parts, order) for parts in (out_cost, out_hits))
    else:
        pair_p = pair_a = np.zeros(0, dtype=np.int32)
        pair_cost = np.zeros(0)
        pair_hits = np.zeros((0, 2), dtype=np.int32)
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


def _take(parts: list[np.ndarray], order: np.ndarray) -> np.ndarray:
    """Concatenate ``parts`` (emptying the list to free memory early) and reorder."""
    joined = np.concatenate(parts)
    parts.clear()
    return joined[order]
