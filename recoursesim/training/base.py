"""What a trainer is: it refits the decision model once per step, after selection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

import numpy as np

from recoursesim.refit_order import OrdersRefit
from recoursesim.scoring.base import Scorer

if TYPE_CHECKING:
    from recoursesim.component import RunContext


@dataclass(frozen=True)
class TrainingContext:
    """What a trainer sees at step ``t`` (arrays aligned with the agents scored at ``t``).

    Attributes:
        step: The current step.
        features: ``(n, d)`` features at scoring time (``X_t``).
        group: Group codes.
        scores: Scores under the current model.
        selected: This step's outcomes (the labels ``y_t``).
        threshold: This step's threshold.
        recommendation: ``(n, d)`` the recommendations given (NaN rows for selected agents).
        scorer: The current decision model ``M_t``.
        rng: The training stream.
    """

    step: int
    features: np.ndarray
    group: np.ndarray
    scores: np.ndarray
    selected: np.ndarray
    threshold: float | np.ndarray
    recommendation: np.ndarray
    scorer: Scorer
    rng: np.random.Generator


@runtime_checkable
class Trainer(OrdersRefit, Protocol):
    """Refits the decision model from this step's data; returns the model for the next step.

    A trainer class subclasses it for the default :meth:`start` (the scenario's scorer as it is).
    An optional member the model uses when present:

    * ``order``: when the refit happens within a step, one of
      :data:`~recoursesim.refit_order.REFIT_ORDERS`: ``"spec"`` (default; refit after the agents
      act on the selecting model's recommendations), ``"reference"`` (refit first; agents follow
      the refitted model's recommendations at its own cut-off) or ``"refit_before_acting"``
      (refit first; agents follow the selecting model's recommendations, their move computed
      under the refitted model). An unknown order is a configuration error when the model is built.
    """

    def update(self, context: TrainingContext) -> Scorer:
        """Return ``M_{t+1}`` (it may return ``context.scorer`` unchanged)."""
        ...

    def start(self, features: np.ndarray, group: np.ndarray, scorer: Scorer, rng: np.random.Generator) -> Scorer:
        """The first decision model, from the initial population (default: ``scorer`` as it is)."""
        return scorer

    def bind(self, context: RunContext) -> Self:
        """Learn what it needs from the run when the model is built (default: nothing; see ``Component.bind``)."""
        return self
