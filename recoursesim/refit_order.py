"""Refit orders: when, within a step, the trainer refits the decision model relative to the agents acting.

A step of :class:`~recoursesim.engine.model.RecourseModel` scores, selects and records the agents, then
runs three phases whose order depends on the trainer: *recommend* (each rejected agent gets a
recommendation ``x'``), *act* (agents move toward it) and *retrain* (the trainer returns the next
decision model). A refit order is a function that runs those phases through a :class:`StepPhases`
object; the model picks it once, when it is built, from the trainer's ``order`` attribute:

* ``"spec"`` (:func:`act_then_refit`, the default): recommendations come from the model that
  selected; agents act on them; the trainer then refits with those same recommendations. Every
  phase of a step sees one decision model.
* ``"reference"`` (:func:`refit_then_recommend`): the trainer refits first (with the selecting
  model's recommendations); the refitted model then re-scores this step's agents, the selector
  gives its cut-off on them, and agents act toward the refitted model's recommendations at that
  cut-off.
* ``"refit_before_acting"`` (:func:`refit_then_act`): the trainer refits first; agents act toward
  the selecting model's recommendations, but their move is computed under the refitted model.
* ``"refit_then_restate"`` (:func:`refit_then_restate`): like ``"reference"``, but the step's
  threshold is *restated* under the refitted model (the ledger stores the restated one), and the
  first step is not refitted (agents act under the initial model). This is the order of the
  authors' code behind Bell et al. (2024)'s CDA and CNS + CDA columns.

Without a trainer the step recommends and acts (:func:`act_then_refit` with nothing to refit).
The orders, and why the default differs from the paper's, are described in docs/mitigations.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from recoursesim.errors import ConfigError
from recoursesim.scoring.base import Scorer


@dataclass
class StepState:
    """This step's scored agents and what the phases have decided about them so far.

    Attributes:
        step: The step ``t``.
        rows: Ids of the agents scored at ``t``.
        features: ``(n, d)`` their features at scoring time.
        scores: Their scores under the model that selects.
        selected: The outcomes (set by the select phase).
        threshold: The selector's threshold (scalar or one value per scored agent).
    """

    step: int
    rows: np.ndarray
    features: np.ndarray
    scores: np.ndarray
    selected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    threshold: float | np.ndarray = float("nan")

    @property
    def waiting(self) -> np.ndarray:
        """Mask over the scored agents of those not selected (they get recommendations and act)."""
        return ~self.selected

    def threshold_of_waiting(self, threshold: float | np.ndarray | None = None) -> float | np.ndarray:
        """``threshold`` (default: the selector's) as seen by the waiting agents."""
        return rows_of(self.threshold if threshold is None else threshold, self.waiting)


class StepPhases(Protocol):
    """The phases a refit order sequences (implemented by :class:`~recoursesim.engine.model.RecourseModel`)."""

    scorer: Scorer

    def recommend(
        self, state: StepState, scorer: Scorer, scores: np.ndarray, threshold: float | np.ndarray
    ) -> np.ndarray:
        """Recommendations for the waiting agents under ``scorer`` at ``threshold`` (per scored agent)."""
        ...

    def act(
        self,
        state: StepState,
        recommendation: np.ndarray,
        scorer: Scorer,
        scores: np.ndarray,
        threshold: float | np.ndarray,
    ) -> None:
        """Move the waiting agents toward ``recommendation``; record the effort spent."""
        ...

    def retrain(self, state: StepState, recommendation: np.ndarray) -> None:
        """Replace the decision model by the trainer's refit (nothing without a trainer)."""
        ...

    def reselect_threshold(self, state: StepState, scores: np.ndarray) -> float | np.ndarray:
        """The selector's threshold for ``scores`` of this step's agents (their outcomes are kept)."""
        ...

    def restate_threshold(self, state: StepState, threshold: float | np.ndarray) -> None:
        """Make ``threshold`` this step's threshold: in ``state``, in the ledger and for observers."""
        ...


#: A refit order: runs recommend, act and retrain for one step, in its own sequence.
RefitOrder = Callable[[StepPhases, StepState], None]


def act_then_refit(phases: StepPhases, state: StepState) -> None:
    """Recommend and act under the selecting model, then refit with those recommendations."""
    recommendation = phases.recommend(state, phases.scorer, state.scores, state.threshold)
    phases.act(state, recommendation, phases.scorer, state.scores, state.threshold)
    phases.retrain(state, recommendation)


def refit_then_recommend(phases: StepPhases, state: StepState) -> None:
    """Refit first; agents act toward the refitted model's recommendations at its own cut-off."""
    phases.retrain(state, phases.recommend(state, phases.scorer, state.scores, state.threshold))
    scores = np.asarray(phases.scorer.score(state.features), dtype=float)
    threshold = phases.reselect_threshold(state, scores)
    recommendation = phases.recommend(state, phases.scorer, scores, threshold)
    phases.act(state, recommendation, phases.scorer, scores, threshold)


def refit_then_act(phases: StepPhases, state: StepState) -> None:
    """Refit first; agents act toward the selecting model's recommendations, moving under the refitted model."""
    recommendation = phases.recommend(state, phases.scorer, state.scores, state.threshold)
    phases.retrain(state, recommendation)
    scores = np.asarray(phases.scorer.score(state.features), dtype=float)
    phases.act(state, recommendation, phases.scorer, scores, state.threshold)


def refit_then_restate(phases: StepPhases, state: StepState) -> None:
    """Refit after the outcomes, restate the step's threshold under the refitted model, act under it.

    The outcomes and the recorded scores come from the model that selected. From the second step
    on, the trainer then refits (with that model's recommendations as its counterfactuals); the
    selector's threshold on this step's agents under the refitted model replaces the step's
    threshold (it is what the ledger stores), and agents act toward the refitted model's
    recommendations at it. At the first step nothing is refitted: agents act under the initial
    model, so the first refit learns from the second step's outcomes.
    """
    if state.step == 0:
        recommendation = phases.recommend(state, phases.scorer, state.scores, state.threshold)
        phases.act(state, recommendation, phases.scorer, state.scores, state.threshold)
        return
    phases.retrain(state, phases.recommend(state, phases.scorer, state.scores, state.threshold))
    scores = np.asarray(phases.scorer.score(state.features), dtype=float)
    phases.restate_threshold(state, phases.reselect_threshold(state, scores))
    recommendation = phases.recommend(state, phases.scorer, scores, state.threshold)
    phases.act(state, recommendation, phases.scorer, scores, state.threshold)


@runtime_checkable
class OrdersRefit(Protocol):
    """A trainer's ``order``: when its refit happens within a step, one of :data:`REFIT_ORDERS`.

    Declared once, with its default, and inherited by :class:`~recoursesim.training.base.Trainer`:
    a trainer that subclasses it runs in ``"spec"`` order unless it sets ``order``; so does a
    duck-typed plug-in without ``order``.
    """

    order: str = "spec"


#: The refit orders by the name a trainer's ``order`` attribute gives.
REFIT_ORDERS: dict[str, RefitOrder] = {
    "spec": act_then_refit,
    "reference": refit_then_recommend,
    "refit_before_acting": refit_then_act,
    "refit_then_restate": refit_then_restate,
}


def refit_order_of(trainer: Any) -> RefitOrder:
    """The refit order a trainer asks for (its :attr:`OrdersRefit.order`).

    Raises:
        ConfigError: The trainer names an order that does not exist.
    """
    order = trainer.order if isinstance(trainer, OrdersRefit) else OrdersRefit.order
    if order not in REFIT_ORDERS:
        raise ConfigError("training.order", f"unknown refit order {order!r}", f"use one of {', '.join(REFIT_ORDERS)}")
    return REFIT_ORDERS[order]


def rows_of(threshold: float | np.ndarray, rows: np.ndarray) -> float | np.ndarray:
    """A scalar threshold as is; a per-agent threshold restricted to ``rows`` (a mask or indices)."""
    return threshold if np.isscalar(threshold) else np.asarray(threshold)[rows]
