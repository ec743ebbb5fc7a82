"""Exact cheapest recommendation for a linear (or logistic) scorer, paper eq. 1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from recoursesim._rows import put_rows
from recoursesim._validate import check_choice, check_table, check_vector
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.features.actions import MixedActionSet
from recoursesim.recourse.base import require_linear_form
from recoursesim.recourse.projection import project_l1, project_l2
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer


@register("recourse", "linear", "projection")
@dataclass(eq=False, repr=False)
class LinearRecourse(Component):
    """Cheapest point reaching the threshold: ``x' = argmin c(x, x') s.t. f(x') >= s_t`` (paper eq. 1).

    For a linear score and the L2 cost this is the projection
    ``x' = x + (s_t - f(x)) · w / ‖w‖²``, restricted to the action set (immutable features,
    bounds, increase-only / decrease-only); with bounds the projection is solved exactly (see
    :mod:`recoursesim.recourse.projection`). With a logistic-regression scorer the point lands at
    predicted probability ``s_t``. Agents already at or above the threshold are left where they are.
    ``found_`` holds one boolean per agent, as for every generator that reports it (and so the
    ledger's ``recourse_found``): agents at or above the threshold and agents whose target can be
    reached within the action set are found; an agent whose target cannot be reached is not, and
    stays where it is (no recommendation reaches the cut-off, so none is given).

    Args:
        norm: ``"l2"`` (Euclidean, the default) or ``"l1"`` (Manhattan) cost.
        action_set: Table of constraints: ``lower``, ``upper``, ``immutable``, ``increase_only``,
            ``decrease_only``, with ``lower`` and ``upper`` one value per feature (see
            :meth:`~recoursesim.features.MixedActionSet.numeric`).
        cost_weights: Per-feature cost multipliers (default all 1), one per feature of the run.

    :meth:`bind` builds the action set (``actions_``) and the weights (``weights_``) on the run's features.
    """

    norm: str = "l2"
    action_set: Mapping[str, Any] | None = None
    cost_weights: Sequence[float] | None = None

    def __post_init__(self) -> None:
        check_choice("norm", self.norm, ["l2", "l1"])
        if self.action_set is not None:
            check_table("action_set", self.action_set)
        weights = self.cost_weights
        if weights is not None and np.any(check_vector("cost_weights", weights) <= 0):
            raise ConfigError("cost_weights", "must be positive", "use weights > 0 (make a feature immutable instead)")

    def bind(self, context: RunContext) -> Self:
        """Build the action set (``actions_``) and the cost weights (``weights_``) on the run's features."""
        names = context.feature_names
        try:
            self.actions_ = MixedActionSet.numeric(names, self.action_set)
        except ConfigError as error:
            raise error.under("action_set") from None
        d, weights = len(names), self.cost_weights
        self.weights_ = np.ones(d) if weights is None else check_vector("cost_weights", weights, length=d)
        return self

    def recommend(
        self, features: np.ndarray, scores: np.ndarray, threshold: float | np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        """Return the cheapest point at the threshold for each agent below it."""
        form = require_linear_form(scorer, "recourse 'linear'")
        recommendation = features.copy()
        below = scores < threshold
        self.found_ = np.ones(features.shape[0], dtype=bool)
        if not below.any():
            return recommendation
        rows = np.compress(below, features, axis=0)
        target = form.to_margin(threshold)
        each = np.compress(below, target) if np.ndim(target) else np.full(rows.shape[0], target)
        margin = each - form.intercept
        lo, hi = self.actions_.box(rows)
        solve = project_l2 if self.norm == "l2" else project_l1
        moved, feasible = solve(rows, lo, hi, form.coef, self.weights_, np.asarray(margin, dtype=float))
        put_rows(recommendation, below, np.where(feasible[:, None], moved, rows))
        self.found_[below] = feasible
        return recommendation

    def cost(self, moves: np.ndarray) -> np.ndarray:
        """Weighted L2 (``sqrt(Σ c_j Δ_j²)``) or L1 (``Σ c_j |Δ_j|``) length of each move."""
        if self.norm == "l2":
            return np.sqrt((moves * moves) @ self.weights_)
        return np.abs(moves) @ self.weights_
