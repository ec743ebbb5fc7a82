"""Clean default behaviour: move toward the recommendation as far as this step's effort allows."""

from __future__ import annotations

from typing import Self

import numpy as np

from recoursesim._validate import check_choice
from recoursesim.behaviour.base import ActionContext
from recoursesim.component import Component, RunContext
from recoursesim.features.schema import FeatureSchema
from recoursesim.registry import register


@register("behaviour", "bounded_effort")
class BoundedEffortBehaviour(Component):
    """Move from ``x`` toward ``x'`` by the effort the agent can give this step, never past ``x'``.

    Each step agent ``i`` has an effort budget ``b_i`` in the recourse generator's cost units
    (feature-space distance): ``b_i = |N(0, σ_i)|`` redrawn every step (``budget="flexible"``), or
    ``b_i = σ_i`` (``budget="constant"``), where ``σ_i`` is the agent's effort capacity drawn on
    entry. With ``adaptation="continuous"`` the agent moves ``x ← x + min(1, b_i / c(x, x'))·(x' - x)``:
    an agent far from its recommendation covers part of the way, a near one reaches it and stops.
    With ``adaptation="binary"`` the agent jumps to ``x'`` if ``b_i >= c(x, x')`` and otherwise stays.
    Effort and distance both matter, unlike the reference behaviour
    (:class:`~recoursesim.behaviour.LogitStepBehaviour`).

    On a mixed-type population (a ``schema`` with integer, ordinal or categorical features) changes
    happen whole: the agent first makes the categorical switches of its recommendation, in column
    order, as long as the budget covers each one; what is left buys the same fraction
    ``f = min(1, left / c_rest)`` of every other part of the move, where ``c_rest`` is their cost,
    with integer and ordinal parts rounded toward the agent (no 40% of a category, no half years).
    The move made never costs more than the budget.

    Args:
        budget: ``"flexible"`` (redrawn each step) or ``"constant"``.
        adaptation: ``"continuous"`` or ``"binary"``.

    :meth:`bind` reads the run's feature schema (``schema_``; ``None``, as before binding: every
    feature is a number).
    """

    def __init__(self, budget: str = "flexible", adaptation: str = "continuous") -> None:
        self.budget = budget
        check_choice("budget", budget, ["flexible", "constant"])
        self.adaptation = adaptation
        check_choice("adaptation", adaptation, ["continuous", "binary"])
        self.schema_: FeatureSchema | None = None

    def bind(self, context: RunContext) -> Self:
        """Keep the run's feature schema (``schema_``)."""
        self.schema_ = context.schema
        return self

    def act(self, context: ActionContext) -> np.ndarray:
        """Return the new features after one step of bounded effort."""
        move = context.recommendation - context.features
        distance = context.cost(move)
        if self.budget == "flexible":
            budget = np.abs(context.rng.normal(0.0, 1.0, size=distance.shape)) * context.effort
        else:
            budget = context.effort
        with np.errstate(divide="ignore", invalid="ignore"):
            fraction = np.where(distance > 0, np.minimum(1.0, budget / distance), 0.0)
        if self.adaptation == "binary":
            fraction = (fraction >= 1.0).astype(float)
        if self.schema_ is None or not self.schema_.is_discrete.any() or self.adaptation == "binary":
            return context.features + fraction[:, None] * move
        return self._mixed_step(context, move, budget, fraction >= 1.0)

    def _mixed_step(
        self, context: ActionContext, move: np.ndarray, budget: np.ndarray, complete: np.ndarray
    ) -> np.ndarray:
        """Whole categorical switches first, then a common fraction of the rest, rounded toward the agent."""
        schema = self.schema_
        assert schema is not None
        n, d = move.shape
        part = np.zeros((n, d))
        for j in np.flatnonzero(np.any(move != 0, axis=0)):
            single = np.zeros_like(move)
            single[:, j] = move[:, j]
            part[:, j] = context.cost(single)
        switch = schema.is_categorical[None, :] & (move != 0)
        switch_cost = np.where(switch, part, 0.0)
        take = switch & (np.cumsum(switch_cost, axis=1) <= budget[:, None])
        left = budget - np.where(take, part, 0.0).sum(axis=1)
        rest = np.where(schema.is_categorical[None, :], 0.0, part).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(rest > 0, np.clip(left / rest, 0.0, 1.0), 0.0)
        step = share[:, None] * move
        whole = schema.is_integer | schema.is_ordinal
        step[:, whole] = np.trunc(step[:, whole] + np.sign(step[:, whole]) * 1e-9)
        step[:, schema.is_categorical] = np.where(take, move, 0.0)[:, schema.is_categorical]
        out = context.features + step
        return np.where(complete[:, None], context.recommendation, out)
