"""Valid subgroup-action pairs, their effectiveness, and each individual's recourse cost.

The costly step of FACTS is applying every valid action to every covered individual and asking
the model. Here it is done once per distinct counterfactual row: an action ``a`` fixing the
features ``F`` maps an individual ``x`` to a row that depends only on ``x``'s values outside
``F``, so all (individual, action) applications are collected as integer keys, de-duplicated,
decoded and scored in a few large batches. The number of model calls depends on the number of
distinct counterfactual rows, not on subgroups x actions.

Notation: ``S`` is the feature mask of a subgroup, ``F`` that of an action. An action is valid for
a subgroup when it changes at least one of the subgroup's values, each change is feasible, and

- ``rule="same_features"`` (the default, the paper's pairing): ``F == S``;
- ``rule="subsets"``: ``F`` is a subset of ``S``.

For a member ``x`` of a subgroup, validity and cost depend only on ``x`` (``x`` agrees with the
subgroup on ``S``), which is what makes per-individual work shareable across subgroups. Pairs with
the same effect on a subgroup are merged (:mod:`recoursesim.auditors.facts.distinct`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import sparse

from recoursesim.auditors.facts.distinct import EffectKeys, distinct_pairs
from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.mining import Itemsets, members

#: Rows per model call.
BATCH_ROWS = 250_000

#: Individuals per block when reducing (individual, action) costs to recourse costs (bounds memory).
REACH_ROWS = 4096

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


def membership(subgroups: Itemsets, codes: np.ndarray, chunk: int = 2048) -> sparse.csr_matrix:
    """Return the ``(m, n)`` CSR 0/1 matrix of which rows belong to which subgroup."""
    blocks = [
        sparse.csr_matrix(members(Itemsets(subgroups.values[i : i + chunk], subgroups.masks[i : i + chunk]), codes))
        for i in range(0, len(subgroups), chunk)
    ]
    if not blocks:
        return sparse.csr_matrix((0, len(codes)), dtype=np.float32)
    return sparse.vstack(blocks, format="csr").astype(np.float32)


def evaluate(
    space: ItemSpace,
    rows: np.ndarray,
    group: np.ndarray,
    subgroups: Itemsets,
    actions: Itemsets,
    predict: Callable[[np.ndarray], np.ndarray],
    rule: str = "same_features",
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
    covered = _covered_by_mask(member, s_index, len(smasks))
    subsets = rule == "subsets"
    reach_rows = _upward_closure(smasks, position, covered, d) if subsets else covered

    amasks, a_inverse = np.unique(actions.masks, return_inverse=True)
    plans = []
    for f_index, fmask in enumerate(amasks):
        s_pos = position.get(int(fmask))
        if s_pos is None or fmask == 0:
            continue  # no subgroup fixes all of F's features: the actions are never valid
        cov = np.flatnonzero(reach_rows[s_pos])
        if len(cov):
            plans.append((int(fmask), np.flatnonzero(a_inverse == f_index), cov))

    scorer = _CounterfactualScorer(space, codes, predict)
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
        distinct, inverse = _distinct_rows(codes[cov][:, fcols])
        valid, cost = _validity_and_cost(space, fcols, distinct, avals)
        priced = np.where(valid, cost, np.inf)
        reach = np.empty(len(cov))
        for lo in range(0, len(cov), REACH_ROWS):
            block = slice(lo, lo + REACH_ROWS)
            reach[block] = np.where(works[block], priced[inverse[block]], np.inf).min(axis=1)
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
        pvalid, pcost = _validity_and_cost(space, fcols, pvals, avals)
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
        _recourse_cost_closure(smasks, position, best, d)
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


def _covered_by_mask(member: sparse.csr_matrix, s_index: np.ndarray, n_masks: int) -> np.ndarray:
    covered = np.zeros((n_masks, member.shape[1]), dtype=bool)
    rows = np.repeat(np.arange(member.shape[0]), np.diff(member.indptr))
    covered[s_index[rows], member.indices] = True
    return covered


def _upward_closure(smasks: np.ndarray, position: dict[int, int], covered: np.ndarray, d: int) -> np.ndarray:
    """``above[S]``: rows in some subgroup whose mask contains ``S`` (family is downward closed)."""
    above = covered.copy()
    order = np.argsort([-int(m).bit_count() for m in smasks], kind="stable")
    for i in order:
        mask = int(smasks[i])
        for j in range(d):
            if not mask >> j & 1:
                k = position.get(mask | (1 << j))
                if k is not None:
                    above[i] |= above[k]
    return above


def _recourse_cost_closure(smasks: np.ndarray, position: dict[int, int], best: np.ndarray, d: int) -> None:
    """Turn ``best[S]`` (cheapest working action fixing exactly S) into the min over subsets of S."""
    order = np.argsort([int(m).bit_count() for m in smasks], kind="stable")
    for i in order:
        mask = int(smasks[i])
        for j in range(d):
            if mask >> j & 1:
                k = position.get(mask & ~(1 << j))
                if k is not None:
                    np.minimum(best[i], best[k], out=best[i])


def _distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct rows of a non-negative code matrix and each row's index among them."""
    radix = values.max(axis=0, initial=0).astype(np.int64) + 1 if len(values) else np.ones(values.shape[1], np.int64)
    if float(np.prod(radix.astype(float))) < 2.0**62:
        mult = np.concatenate([[1], np.cumprod(radix)[:-1]]).astype(np.int64)
        _, first, inverse = np.unique(values.astype(np.int64) @ mult, return_index=True, return_inverse=True)
        return values[first], inverse.ravel()
    distinct, inverse = np.unique(values, axis=0, return_inverse=True)
    return distinct, inverse.ravel()


def _validity_and_cost(
    space: ItemSpace, fcols: list[int], from_values: np.ndarray, to_values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(valid, cost)``, each ``(len(from_values), len(to_values))``."""
    shape = (len(from_values), len(to_values))
    changed = np.zeros(shape, dtype=bool)
    feasible = np.ones(shape, dtype=bool)
    cost = np.zeros(shape)
    for c, j in enumerate(fcols):
        u = from_values[:, c][:, None]
        v = to_values[:, c][None, :]
        changed |= u != v
        feasible &= space.allowed[j][u, v] | (u == v)
        cost += space.costs[j][u, v]
    return changed & feasible, cost


class _CounterfactualScorer:
    """Collect (context, action) counterfactuals, de-duplicate them, and score them in batches.

    When every row fits a mixed-radix int64 key, a counterfactual is the key of its context (the
    row with the action's features blanked) plus the key of the action; keys are de-duplicated
    across all plans, decoded once and scored in batches of :data:`BATCH_ROWS`. Otherwise the
    rows are de-duplicated within each plan only.
    """

    #: Pending keys are reduced to their distinct values once this many accumulate.
    FLUSH_KEYS = 4_000_000

    def __init__(self, space: ItemSpace, codes: np.ndarray, predict: Callable[[np.ndarray], np.ndarray]) -> None:
        self.space = space
        self.codes = codes
        self.predict = predict
        total = 1
        for values in space.values:
            total *= len(values) + 1
        self.keyed = total < 2**62
        self.radix = np.array([len(v) + 1 for v in space.values], dtype=np.int64)
        self.mult = np.concatenate([[1], np.cumprod(self.radix)[:-1]]).astype(np.int64)
        self.plans: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.pending: list[np.ndarray] = []
        self.distinct: list[np.ndarray] = []
        self.n_pending = 0
        self.n_rows = 0
        self.n_applications = 0
        self.n_calls = 0
        self.index: pd.Index | None = None
        self.positive: np.ndarray | None = None
        self.starts: np.ndarray | None = None

    def add(self, fmask: int, avalues: np.ndarray, rows: np.ndarray) -> None:
        """Queue applying each of ``avalues`` (full-width action rows) to ``codes[rows]``."""
        d = self.codes.shape[1]
        inside = np.array([bool(fmask >> j & 1) for j in range(d)])
        self.n_applications += len(rows) * len(avalues)
        if self.keyed:
            context = ((self.codes[rows] + 1) * np.where(inside, 0, self.mult)).sum(axis=1)
            unique, inverse = np.unique(context, return_inverse=True)
            action_key = ((avalues + 1) * np.where(inside, self.mult, 0)).sum(axis=1)
            self.plans.append((unique, inverse.astype(np.int32), action_key))
            self.pending.append((unique[:, None] + action_key[None, :]).ravel())
            self.n_pending += len(unique) * len(action_key)
            if self.n_pending >= self.FLUSH_KEYS:
                self._flush()
        else:
            context = np.where(inside, -1, self.codes[rows])
            unique, inverse = np.unique(context, axis=0, return_inverse=True)
            self.plans.append((unique, inverse.ravel().astype(np.int32), avalues))

    def _flush(self) -> None:
        if self.pending:
            self.distinct.append(pd.unique(np.concatenate(self.pending)))
        self.pending, self.n_pending = [], 0

    def run(self) -> None:
        """Score all queued counterfactuals."""
        if self.keyed:
            self._flush()
            keys = pd.unique(np.concatenate(self.distinct)) if self.distinct else np.zeros(0, dtype=np.int64)
            self.distinct = []
            self.positive = self._score_keys(np.asarray(keys, dtype=np.int64))
            self.index = pd.Index(keys)
            self.n_rows = len(keys)
            return
        blocks = []
        for unique, _, avalues in self.plans:
            rows = np.repeat(unique, len(avalues), axis=0)
            tiled = np.tile(avalues, (len(unique), 1))
            blocks.append(np.where(tiled >= 0, tiled, rows))
        stacked = np.concatenate(blocks) if blocks else np.zeros((0, self.codes.shape[1]), dtype=np.int32)
        self.starts = np.cumsum([0] + [len(b) for b in blocks])
        self.n_rows = len(stacked)
        self.positive = self._score(stacked)

    def result(self, plan_index: int) -> np.ndarray:
        """Return ``(len(rows), k)``: does each action work for each queued row."""
        if self.positive is None:
            raise RuntimeError("score the queued counterfactuals with run() before reading a result")
        unique, inverse, actions = self.plans[plan_index]
        if self.keyed:
            assert self.index is not None  # set by run() together with positive
            keys = (unique[:, None] + actions[None, :]).ravel()
            block = self.positive[self.index.get_indexer(keys)]
        else:
            assert self.starts is not None  # set by run() together with positive
            start = int(self.starts[plan_index])
            block = self.positive[start : start + len(unique) * len(actions)]
        return block.reshape(len(unique), len(actions))[inverse]

    def _score_keys(self, keys: np.ndarray) -> np.ndarray:
        out = np.zeros(len(keys), dtype=bool)
        for start in range(0, len(keys), BATCH_ROWS):
            chunk = keys[start : start + BATCH_ROWS]
            rows = ((chunk[:, None] // self.mult[None, :]) % self.radix[None, :] - 1).astype(np.int32)
            out[start : start + BATCH_ROWS] = self.predict(rows)
            self.n_calls += 1
        return out

    def _score(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), dtype=bool)
        for start in range(0, len(rows), BATCH_ROWS):
            out[start : start + BATCH_ROWS] = self.predict(rows[start : start + BATCH_ROWS])
            self.n_calls += 1
        return out
