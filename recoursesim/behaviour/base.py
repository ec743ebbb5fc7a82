"""What a behaviour is: how agents act on their recommendation each step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

import numpy as np

from recoursesim.scoring.base import Scorer

if TYPE_CHECKING:
    from recoursesim.component import RunContext


@dataclass(frozen=True)
class ActionContext:
    """Everything a behaviour may use, for the agents still waiting (arrays aligned by row).

    Attributes:
        features: ``(n, d)`` current features.
        recommendation: ``(n, d)`` recommended points.
        effort: ``(n,)`` each agent's effort capacity (drawn once on entry).
        scores: ``(n,)`` current scores.
        threshold: The score recommendations aimed at (scalar or per agent).
        scorer: The current scorer.
        cost: Feature-space cost of moves (the recourse generator's ``cost``).
        rng: The behaviour's random stream.
        step: The current step.
    """

    features: np.ndarray
    recommendation: np.ndarray
    effort: np.ndarray
    scores: np.ndarray
    threshold: float | np.ndarray
    scorer: Scorer
    cost: Callable[[np.ndarray], np.ndarray]
    rng: np.random.Generator
    step: int


@runtime_checkable
class Behaviour(Protocol):
    """Moves agents in feature space in response to their recommendations."""

    def act(self, context: ActionContext) -> np.ndarray:
        """Return the agents' new features (a new array; the inputs are not modified)."""
        ...

    def bind(self, context: RunContext) -> Self:
        """Learn what it needs from the run when the model is built (default: nothing; see ``Component.bind``)."""
        return self
