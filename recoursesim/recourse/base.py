"""What a recourse generator is: it recommends a point each rejected agent should reach."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

import numpy as np

from recoursesim.errors import ConfigError
from recoursesim.features.actions import MixedActionSet
from recoursesim.scoring.base import LinearForm, Scorer, linear_form_of

if TYPE_CHECKING:
    from recoursesim.component import RunContext


@runtime_checkable
class ReportsFound(Protocol):
    """A generator that says, after each :meth:`~RecourseGenerator.recommend`, where it found recourse.

    ``found_`` holds one boolean per row of the last ``recommend`` (``None``: not reported, the
    default a subclass of :class:`RecourseGenerator` inherits). An agent for whom none was found
    is recommended to stay where it is, and the ledger's ``recourse_found`` column records it
    (see :class:`~recoursesim.recourse.MixedRecourse`).
    """

    found_: np.ndarray | None = None


@runtime_checkable
class KeepsActions(Protocol):
    """A generator that keeps the action set its recommendations obey (``None``: none, the default)."""

    actions_: MixedActionSet | None = None


def reported_found(generator: object) -> np.ndarray | None:
    """The ``found_`` of a generator's last ``recommend``, or ``None`` if it reports none."""
    return generator.found_ if isinstance(generator, ReportsFound) else None


def action_set_of(generator: object) -> MixedActionSet | None:
    """The action set a generator keeps, or ``None`` (an action set of a plug-in's own type counts as none)."""
    actions = generator.actions_ if isinstance(generator, KeepsActions) else None
    return actions if isinstance(actions, MixedActionSet) else None


@runtime_checkable
class RecourseGenerator(ReportsFound, KeepsActions, Protocol):
    """Recommends ``x'`` for each agent and prices moves in feature space.

    Its optional members, declared with their defaults on the classes it inherits: ``found_``
    (:class:`ReportsFound`) and ``actions_`` (:class:`KeepsActions`).
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
        """Learn what it needs from the run when the model is built (default: nothing; see ``Component.bind``)."""
        return self


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
