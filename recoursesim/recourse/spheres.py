"""Batched growing-spheres search: random legal moves in shells of growing cost around each agent."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from recoursesim.features import FeatureSchema, MixedActionSet
from recoursesim.recourse.probe_cache import score_distinct
from recoursesim.scoring.base import Scorer


def growing_spheres(
    features: np.ndarray,
    threshold: np.ndarray,
    scorer: Scorer,
    rng: np.random.Generator,
    *,
    schema: FeatureSchema,
    actions: MixedActionSet,
    mutable: np.ndarray,
    unit: np.ndarray,
    legal_codes: Callable[[np.ndarray, int, tuple[np.ndarray, np.ndarray]], np.ndarray],
    cost: Callable[[np.ndarray], np.ndarray],
    samples: int,
    radius: float,
    shells: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Cheapest accepted random move per agent, searching shells of cost ``[r/2, r]`` with ``r`` doubling.

    Each candidate changes one to three mutable features, chosen at random, and spends a random
    share of the shell's cost on each: a numeric, integer or ordinal feature moves that far (in
    cost) up or down, a categorical feature switches to a random allowed category if its share
    covers a switch. Candidates are legalised by the action set. An agent stops at the first
    shell with an accepted candidate; the cheapest accepted one is returned.

    Args:
        features: ``(n, d)`` agents below the cut-off.
        threshold: ``(n,)`` their cut-offs.
        scorer: The model.
        rng: Random stream.
        schema: The features' schema (which are categorical, which ordinal).
        actions: The action set (each agent's box, and legalising a move).
        mutable: ``(d,)`` which features may change.
        unit: ``(d,)`` the cost of a unit change of each feature.
        legal_codes: ``(features, j, box) -> (n, m_j)``: the codes discrete feature ``j`` may move to.
        cost: The price of each row of a move ``x' - x``.
        samples: Candidates per agent and shell.
        radius: Cost of the first shell (doubled at each next one).
        shells: Largest number of shells.

    Returns:
        ``(points, found)``.
    """
    n, d = features.shape
    mutable = np.flatnonzero(mutable & (unit > 0))
    best = features.copy()
    found = np.zeros(n, dtype=bool)
    if mutable.size == 0 or n == 0:
        return best, found
    s = samples
    lo, hi = actions.box(features)
    categorical = [j for j in mutable if schema.is_categorical[j]]
    legal = {j: legal_codes(features, int(j), (lo, hi)) for j in categorical}
    todo = np.arange(n)
    for _ in range(shells):
        m = todo.size
        origin = np.repeat(features[todo], s, axis=0)
        k = rng.integers(1, min(3, mutable.size) + 1, size=(m * s, 1))
        ranks = np.argsort(rng.random((m * s, mutable.size)), axis=1).argsort(axis=1)
        chosen = ranks < k
        share = rng.exponential(size=(m * s, mutable.size)) * chosen
        share = share / share.sum(axis=1, keepdims=True) * radius * rng.uniform(0.5, 1.0, size=(m * s, 1))
        step = share / unit[mutable] * rng.choice([-1.0, 1.0], size=share.shape)
        candidate = origin.copy()
        candidate[:, mutable] += step
        ordinal = schema.is_ordinal[mutable]
        candidate[:, mutable[ordinal]] = origin[:, mutable[ordinal]] + np.sign(step[:, ordinal]) * np.maximum(
            1.0, np.rint(np.abs(step[:, ordinal]))
        ) * (share[:, ordinal] > 0)
        box = np.repeat(lo[todo], s, 0), np.repeat(hi[todo], s, 0)  # the box of each row of ``origin``
        candidate[:, mutable] = np.clip(candidate[:, mutable], box[0][:, mutable], box[1][:, mutable])
        for j in categorical:
            position = int(np.flatnonzero(mutable == j)[0])
            switch = share[:, position] >= unit[j]
            options = np.repeat(legal[j][todo], s, axis=0)
            noise = np.where(options, rng.gumbel(size=options.shape), -np.inf)
            pick = np.argmax(noise, axis=1).astype(float)
            candidate[:, j] = np.where(switch & options.any(axis=1), pick, origin[:, j])
        candidate = actions.legalise(origin, candidate, box)
        accepted = score_distinct(scorer, candidate) >= np.repeat(threshold[todo], s)
        price = np.where(accepted, cost(candidate - origin), np.inf).reshape(m, s)
        pick = np.argmin(price, axis=1)
        hit = np.isfinite(price[np.arange(m), pick])
        best[todo[hit]] = candidate.reshape(m, s, d)[np.flatnonzero(hit), pick[hit]]
        found[todo[hit]] = True
        todo = todo[~hit]
        radius *= 2.0
        if todo.size == 0:
            break
    return best, found
