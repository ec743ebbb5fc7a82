"""Batched growing-spheres search: random legal moves in shells of growing cost around each agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from recoursesim.recourse.probe_cache import score_distinct
from recoursesim.scoring.base import Scorer

if TYPE_CHECKING:
    from recoursesim.recourse.search import SearchRecourse


def growing_spheres(
    generator: SearchRecourse, features: np.ndarray, threshold: np.ndarray, scorer: Scorer, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Cheapest accepted random move per agent, searching shells of cost ``[r/2, r]`` with ``r`` doubling.

    Each candidate changes one to three mutable features, chosen at random, and spends a random
    share of the shell's cost on each: a numeric, integer or ordinal feature moves that far (in
    cost) up or down, a categorical feature switches to a random allowed category if its share
    covers a switch. Candidates are legalised by the action set. An agent stops at the first
    shell with an accepted candidate; the cheapest accepted one is returned.

    Args:
        generator: The search generator (action set, cost model, ``samples``, ``radius``, ``shells``).
        features: ``(n, d)`` agents below the cut-off.
        threshold: ``(n,)`` their cut-offs.
        scorer: The model.
        rng: Random stream.

    Returns:
        ``(points, found)``.
    """
    n, d = features.shape
    schema = generator.schema_
    unit = generator.costs_.unit_cost
    mutable = np.flatnonzero(generator.mutable & (unit > 0))
    best = features.copy()
    found = np.zeros(n, dtype=bool)
    if mutable.size == 0 or n == 0:
        return best, found
    s = generator.samples
    lo, hi = generator.actions_.box(features)
    categorical = [j for j in mutable if schema.is_categorical[j]]
    legal = {j: generator.legal_codes(features, int(j), (lo, hi)) for j in categorical}
    todo = np.arange(n)
    radius = generator.radius
    for _ in range(generator.shells):
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
        candidate = generator.actions_.legalise(origin, candidate, box)
        accepted = score_distinct(scorer, candidate) >= np.repeat(threshold[todo], s)
        cost = np.where(accepted, generator.cost(candidate - origin), np.inf).reshape(m, s)
        pick = np.argmin(cost, axis=1)
        hit = np.isfinite(cost[np.arange(m), pick])
        best[todo[hit]] = candidate.reshape(m, s, d)[np.flatnonzero(hit), pick[hit]]
        found[todo[hit]] = True
        todo = todo[~hit]
        radius *= 2.0
        if todo.size == 0:
            break
    return best, found
