"""Teaching behaviour: every agent does exactly what it is told."""

from __future__ import annotations

import numpy as np

from recoursesim.behaviour.base import ActionContext
from recoursesim.component import Component
from recoursesim.registry import register


@register("behaviour", "follow_exactly")
class FollowExactlyBehaviour(Component):
    """Every agent moves exactly to its recommendation in one step, whatever its effort.

    Useful in teaching: with a fixed threshold everybody succeeds next step; with top-k
    competition they tie at the old threshold and the new one rises.
    """

    def act(self, context: ActionContext) -> np.ndarray:
        """Return the recommendations as the new features."""
        return context.recommendation.copy()
