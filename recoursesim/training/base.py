"""What a trainer is: it refits the decision model once per step, after selection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from recoursesim.scoring.base import Scorer


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
class Trainer(Protocol):
    """Refits the decision model from this step's data; returns the model for the next step."""

    def update(self, context: TrainingContext) -> Scorer:
        """Return ``M_{t+1}`` (it may return ``context.scorer`` unchanged)."""
        ...
