"""What a recourse generator is: it recommends a point each rejected agent should reach."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

import numpy as np

from recoursesim.errors import ConfigError
from recoursesim.scoring.base import LinearForm, Scorer, linear_form_of

if TYPE_CHECKING:
    from recoursesim.component import RunContext


@runtime_checkable
class RecourseGenerator(Protocol):
    """Recommends ``x'`` for each agent and prices moves in feature space.

    A generator may also report, after each :meth:`recommend`, whether it found a valid
    recommendation for each agent: an attribute ``found_`` holding one boolean per row. An
    agent for whom none was found is recommended to stay where it is, and the ledger's
    ``recourse_found`` column records it (see :class:`~recoursesim.recourse.MixedRecourse`).
    """

    def recommend(
        self, features: np.ndarray, scores: np.ndarray, threshold: float | np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        """Return one recommended point per row of ``features`` (rows already at the threshold stay put)."""
        ...

    def cost(self, moves: np.ndarray) -> np.ndarray:
        """Return the feature-space cost of each row of ``moves`` (``x_new - x``)."""
        ...

    def bind(self, context: RunContext) -> Self:
        """Learn what it needs from the run when the model is built (:meth:`recoursesim.component.Component.bind`)."""
        ...


def require_linear_form(scorer: Scorer, who: str) -> LinearForm:
    """Return the scorer's linear form or raise a clear error naming the recourse generator."""
    form = linear_form_of(scorer)
    if form is None:
        raise ConfigError(
            "recourse.name",
            f"{who} needs a linear scorer (a linear ranker or a linear scikit-learn model), "
            f"got {type(scorer).__name__}",
            "use a linear scorer or a model-agnostic recourse generator",
        )
    return form
