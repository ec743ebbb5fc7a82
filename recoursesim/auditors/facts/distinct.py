"""Distinct actions: merge the (subgroup, action) pairs that have the same effect on the subgroup.

Every member of a subgroup agrees with the subgroup on the features it fixes, and an action only
sets features the subgroup fixes, so the action's effect on the subgroup is fully described by its
*changes*: the (feature, new value) items where it differs from the subgroup. Two actions with the
same changes produce the same post-action row for every member, hence the same effectiveness and
the same cost: they are one option, not two. (Under the subset rule, ``{telephone = yes}`` and
``{telephone = yes, job = skilled}`` are the same option for a subgroup of skilled workers.)

Each pair's changes are reduced to one integer key (a mixed-radix number over the features) when
every such number fits in int64, otherwise to a full-width row of the changed value codes (-1 =
unchanged); pairs are then de-duplicated per subgroup with pandas' hashing, keeping the pair of the
lowest action index (the action fixing the fewest features) as the representative.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.keys import code_radix


class Pairs:
    """Collect the valid (subgroup, action) pairs plan by plan with their change signatures; merge duplicates.

    Args:
        space: The encoded data (its value counts fix the mixed radix of the signatures).
    """

    def __init__(self, space: ItemSpace) -> None:
        self.width = len(space.features)
        self.radix = code_radix(space.values)
        self.p: list[np.ndarray] = []
        self.a: list[np.ndarray] = []
        self.cost: list[np.ndarray] = []
        self.hits: list[np.ndarray] = []
        self.keys: list[np.ndarray] = []

    def add(
        self,
        fcols: list[int],
        subs: np.ndarray,
        acts: np.ndarray,
        pvals: np.ndarray,
        avals: np.ndarray,
        pcost: np.ndarray,
        sub_i: np.ndarray,
        act_i: np.ndarray,
        hits: np.ndarray,
    ) -> None:
        """Record the valid pairs ``(subs[sub_i], acts[act_i])`` of one plan with their costs and hits.

        Args:
            fcols: Feature indices the plan's actions fix.
            subs: The plan's subgroups.
            acts: The plan's actions.
            pvals: ``(len(subs), len(fcols))`` codes of each subgroup on ``fcols``.
            avals: ``(len(acts), len(fcols))`` codes of each action on ``fcols``.
            pcost: ``(len(subs), len(acts))`` cost of each action for each subgroup.
            sub_i: Subgroup position (into ``subs``) of each valid pair.
            act_i: Action position (into ``acts``) of each valid pair.
            hits: ``(len(sub_i), 2)`` members of group 0 / 1 for whom each pair's action works.
        """
        self.p.append(subs[sub_i].astype(np.int32))
        self.a.append(acts[act_i].astype(np.int32))
        self.cost.append(pcost[sub_i, act_i])
        self.hits.append(hits)
        after = avals[act_i]
        changed = pvals[sub_i] != after
        if self.radix.fits:
            self.keys.append(self.radix.pack(np.where(changed, after + 1, 0), fcols))
        else:
            rows = np.full((len(changed), self.width), -1, dtype=np.int32)
            rows[:, fcols] = np.where(changed, after, -1)
            self.keys.append(rows)

    def distinct(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """Return the distinct pairs sorted by (subgroup, action): subgroup, action, cost, hits, merged count."""
        if not self.p:
            empty = np.zeros(0, dtype=np.int32)
            return empty, empty, np.zeros(0), np.zeros((0, 2), dtype=np.int32), 0
        pair_p, pair_a = np.concatenate(self.p), np.concatenate(self.a)
        keep = distinct_pairs(pair_p, pair_a, _take(self.keys, slice(None)))
        kept = np.flatnonzero(keep)
        order = kept[np.lexsort((pair_a[kept], pair_p[kept]))]
        pair_cost, pair_hits = (_take(parts, order) for parts in (self.cost, self.hits))
        return pair_p[order], pair_a[order], pair_cost, pair_hits, int((~keep).sum())


def _take(parts: list[np.ndarray], order: np.ndarray | slice) -> np.ndarray:
    """Concatenate ``parts`` (emptying the list to free memory early) and reorder."""
    joined = np.concatenate(parts)
    parts.clear()
    return joined[order]


def distinct_pairs(pair_subgroup: np.ndarray, pair_action: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Return a boolean mask keeping one pair per (subgroup, effect): the one of lowest action index.

    Args:
        pair_subgroup: Subgroup of each pair.
        pair_action: Action of each pair.
        keys: Signature of each pair's changes (1-D int64, or a 2-D row of changed codes).
    """
    keep = np.ones(len(pair_subgroup), dtype=bool)
    if len(pair_subgroup) < 2:
        return keep
    columns = {"subgroup": pair_subgroup}
    if keys.ndim == 1:
        columns["key"] = keys
    else:
        columns.update({f"f{j}": keys[:, j] for j in range(keys.shape[1])})
    order = np.lexsort((pair_action, pair_subgroup))
    frame = pd.DataFrame({name: column[order] for name, column in columns.items()})
    keep[order] = ~frame.duplicated(keep="first").to_numpy()
    return keep
