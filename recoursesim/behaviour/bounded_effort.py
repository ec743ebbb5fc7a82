"""Clean default behaviour: move toward the recommendation as far as this step's effort allows."""

from __future__ import annotations

import numpy as np

from recoursesim._validate import check_choice
from recoursesim.behaviour.base import ActionContext
from recoursesim.registry import register


@register("behaviour", "bounded_effort")
class BoundedEffortBehaviour:
    """Move from ``x`` toward ``x'`` by the effort the agent can give this step, never past ``x'``.

    Each step agent ``i`` has an effort budget ``b_i`` in the recourse generator's cost units
    (feature-space distance): ``b_i = |N(0, σ_i)|`` redrawn every step (``budget="flexible"``), or
    ``b_i = σ_i`` (``budget="constant"``), where ``σ_i`` is the agent's effort capacity drawn on
    entry. With ``adaptation="continuous"`` the agent moves ``x ← x + min(1, b_i / c(x, x'))·(x' - x)``:
    an agent far from its recommendation covers part of the way, a near one reaches it and stops.
    With ``adaptation="binary"`` the agent jumps to ``x'`` if ``b_i >= c(x, x')`` and otherwise stays.
    Effort and distance both matter, unlike the reference behaviour
    (:class:`~recoursesim.behaviour.LogitStepBehaviour`).

    Args:
        budget: ``"flexible"`` (redrawn each step) or ``"constant"``.
        adaptation: ``"continuous"`` or ``"binary"``.
    """

    def __init__(self, budget: str = "flexible", adaptation: str = "continuous") -> None:
        self.budget = check_choice("budget", budget, ["flexible", "constant"])
        self.adaptation = check_choice("adaptation", adaptation, ["continuous", "binary"])

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
        return context.features + fraction[:, None] * move
