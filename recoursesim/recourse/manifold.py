"""Data-manifold recourse: the cheapest reachable observed profile that the model accepts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from recoursesim._validate import check_int
from recoursesim.errors import ConfigError
from recoursesim.recourse.mixed import CHECK_REFERENCE, MixedRecourse, observed_rows
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer


@register("recourse", "manifold", "nearest_accepted")
@dataclass(eq=False, repr=False)
class NearestAcceptedRecourse(MixedRecourse):
    """Recommend the cheapest *observed* profile the agent can reach and the model accepts.

    The candidates are the rows of a reference sample of real people (by default the data
    set's training split, which the model was fitted on, so every recommendation is a profile
    that exists). For each agent below the cut-off the generator scores the reference rows once,
    keeps those at or above the agent's cut-off that the action set lets the agent reach
    (immutable features equal, monotone features moved the right way, inside the bounds,
    categories allowed) and recommends the one with the lowest cost. This is exact: the
    cost of every reachable accepted row is computed (in chunks, vectorised over agents and rows,
    after dropping duplicate rows), not approximated by a tree. It is a nearest accepted
    neighbour search under the action set, in the spirit of FACE and of DiCE's KD-tree method.

    The recommendation is a real profile, so it is usually dearer than the cheapest point at the
    cut-off (``exact_linear`` or ``search``); an agent with no reachable accepted profile gets
    none (``found_`` False).

    Args:
        action_set: Constraints (see :class:`~recoursesim.recourse.mixed.MixedRecourse`).
        cost_weights: Feature -> cost multiplier.
        max_reference: Use at most this many reference rows (a fixed, seeded subsample).
        reference: ``(m, d)`` observed rows in code space; default: the training split of the
            population the generator is bound to.
    """

    check_params: ClassVar[dict[str, Any]] = {"reference": CHECK_REFERENCE}

    max_reference: int = 20_000
    reference: Any = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("max_reference", self.max_reference, minimum=1)

    def _reference(self) -> np.ndarray:
        rows = observed_rows(self.reference, self.population_, "manifold", "recommend from")
        rows = np.unique(np.asarray(rows, dtype=float), axis=0)
        if rows.ndim != 2 or rows.shape[1] != len(self.schema_) or not np.all(np.isfinite(rows)):
            raise ConfigError(
                "recourse.reference",
                f"must be a finite (m, {len(self.schema_)}) array",
                "pass observed code-space rows",
            )
        if rows.shape[0] > self.max_reference:
            keep = np.random.default_rng(0).choice(rows.shape[0], self.max_reference, replace=False)
            rows = rows[np.sort(keep)]
        return rows

    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        reference = self._reference()
        scores = np.asarray(scorer.score(reference), dtype=float)
        candidates = reference[scores >= threshold.min()]
        scores = scores[scores >= threshold.min()]
        n = features.shape[0]
        best = features.copy()
        found = np.zeros(n, dtype=bool)
        if candidates.shape[0] == 0:
            return best, found
        schema = self.schema_
        unit = self.costs_.unit_cost
        lo, hi = self.actions_.box(features)
        switch = schema.is_categorical
        step = max(1, 4_000_000 // max(1, candidates.shape[0]))
        for start in range(0, n, step):
            rows = slice(start, start + step)
            x = features[rows]
            cost = np.zeros((x.shape[0], candidates.shape[0]))
            reachable = scores[None, :] >= threshold[rows, None]
            for j in range(x.shape[1]):
                target = candidates[None, :, j]
                moved = target != x[:, j, None]
                allowed = True  # a category the action set allows (numeric and integer features: any value)
                if switch[j] or schema.is_ordinal[j]:
                    allowed = self.actions_.allowed[j][np.clip(target, 0, schema.n_categories[j] - 1).astype(int)]
                if switch[j]:
                    cost += unit[j] * moved
                    reachable &= ~moved | (allowed & ~self.actions_.immutable[j])
                else:
                    cost += unit[j] * np.abs(target - x[:, j, None])
                    inside = (target >= lo[rows, j, None] - 1e-9) & (target <= hi[rows, j, None] + 1e-9)
                    reachable &= ~moved | (inside & allowed)
            cost = np.where(reachable, cost, np.inf)
            pick = np.argmin(cost, axis=1)
            ok = np.isfinite(cost[np.arange(x.shape[0]), pick])
            index = np.arange(start, start + x.shape[0])
            best[index[ok]] = candidates[pick[ok]]
            found[index[ok]] = True
        return best, found
