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


class EffectKeys:
    """Collect the change signature of every valid pair, plan by plan, and find the duplicates.

    Args:
        space: The encoded data (its value counts fix the mixed radix).
    """

    def __init__(self, space: ItemSpace) -> None:
        self.width = len(space.features)
        self.radix = code_radix(space.values)
        self.keyed = self.radix.fits
        self.parts: list[np.ndarray] = []

    def add(self, fcols: list[int], subgroup_values: np.ndarray, action_values: np.ndarray) -> None:
        """Record the changes of one plan's pairs.

        Args:
            fcols: Feature indices the plan's actions fix.
            subgroup_values: ``(k, len(fcols))`` codes of each pair's subgroup on ``fcols``.
            action_values: ``(k, len(fcols))`` codes of each pair's action on ``fcols``.
        """
        changed = subgroup_values != action_values
        if self.keyed:
            self.parts.append(self.radix.pack(np.where(changed, action_values + 1, 0), fcols))
        else:
            rows = np.full((len(changed), self.width), -1, dtype=np.int32)
            rows[:, fcols] = np.where(changed, action_values, -1)
            self.parts.append(rows)

    def keys(self) -> np.ndarray:
        """Return the signatures of all recorded pairs, in the order they were added."""
        if self.parts:
            return np.concatenate(self.parts)
        return np.zeros(0, dtype=np.int64) if self.keyed else np.zeros((0, self.width), dtype=np.int32)


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
