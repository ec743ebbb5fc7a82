"""Action pricing: validity and cost of moving from one value row to another, and recourse costs.

An action fixing the features ``F`` is valid for a row when it changes at least one value on
``F`` and every change is allowed (e.g. an increase-only feature never decreases); its cost is
the sum of the per-feature transition costs. Both depend only on the row's values on ``F``, so
callers price each distinct value row once (:func:`distinct_rows`) and share the result.
"""

from __future__ import annotations

import numpy as np

from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.keys import MixedRadix

#: Individuals per block when reducing (individual, action) costs to recourse costs (bounds memory).
REACH_ROWS = 4096


def distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the distinct rows of a non-negative code matrix and each row's index among them.

    Args:
        values: ``(n, c)`` non-negative integer codes.

    Returns:
        ``(distinct, inverse)`` with ``distinct[inverse] == values``.
    """
    radix = MixedRadix(values.max(axis=0, initial=0).astype(np.int64) + 1 if len(values) else np.ones(values.shape[1]))
    if radix.fits:
        _, first, inverse = np.unique(radix.pack(values), return_index=True, return_inverse=True)
        return values[first], inverse.ravel()
    distinct, inverse = np.unique(values, axis=0, return_inverse=True)
    return distinct, inverse.ravel()


def validity_and_cost(
    space: ItemSpace, fcols: list[int], from_values: np.ndarray, to_values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(valid, cost)`` of moving each ``from_values`` row to each ``to_values`` row.

    Args:
        space: The encoded data (allowed transitions and their costs per feature).
        fcols: The action's features ``F``: the columns of ``from_values`` and ``to_values``.
        from_values: ``(m, len(fcols))`` current value codes on ``F``.
        to_values: ``(k, len(fcols))`` the actions' value codes on ``F``.

    Returns:
        Boolean ``valid`` and float ``cost``, each ``(m, k)``.
    """
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


def cheapest_working(works: np.ndarray, priced: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """Return each individual's cost of the cheapest action that works for it (inf if none).

    Args:
        works: ``(n, k)`` does action ``a`` give individual ``i`` the favourable prediction.
        priced: ``(m, k)`` cost of each action from each distinct value row, inf where invalid.
        inverse: ``(n,)`` each individual's distinct value row (index into ``priced``).

    Returns:
        ``(n,)`` float64 recourse costs, computed in blocks of :data:`REACH_ROWS` individuals.
    """
    reach = np.empty(len(works))
    for lo in range(0, len(works), REACH_ROWS):
        block = slice(lo, lo + REACH_ROWS)
        reach[block] = np.where(works[block], priced[inverse[block]], np.inf).min(axis=1)
    return reach
