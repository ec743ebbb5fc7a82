"""The ``strategic`` trainer: a lender that anticipates gaming (Hardt, Megiddo, Papadimitriou & Wootters 2016).

In the Stackelberg game of strategic classification the lender commits to a classifier and each
applicant then moves its features if the gain outweighs the cost. With a separable cost under which
an applicant can raise its score by at most a *gaming budget* ``b`` (in score units) at a cost it
will pay, a naive threshold ``τ`` accepts everybody whose true score is at least ``τ - b``. The
lender's best response is to raise the threshold by the budget, ``τ + b``: then exactly those whose
true score is at least ``τ`` can reach it. Equivalently the lender deploys ``f(x) - b`` against the
unchanged selector, which is what this trainer does (docs/markets.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from recoursesim._validate import check_float
from recoursesim.registry import register
from recoursesim.scoring.base import LinearForm, Scorer, linear_form_of
from recoursesim.training.base import TrainingContext
from recoursesim.training.refit import RefitTrainer


class StrategicScorer(Scorer):
    """A scorer lowered by a gaming budget: ``score(x) = inner.score(x) - budget``.

    Against a threshold selector at ``τ`` it accepts ``inner.score(x) >= τ + budget``: the
    threshold raised by the budget. Its linear form is the inner one with the intercept lowered by
    the budget when the inner score is affine (identity link); otherwise it states none.

    Args:
        inner: The non-strategic model.
        budget: The gaming budget, in score units.
    """

    def __init__(self, inner: Scorer, budget: float) -> None:
        self.inner = inner
        self.budget = budget

    def score(self, features: np.ndarray) -> np.ndarray:
        """Return the inner score minus the budget."""
        return np.asarray(self.inner.score(features), dtype=float) - self.budget

    def linear_form(self) -> LinearForm | None:
        """The inner linear form with its intercept lowered by the budget (identity link only)."""
        form = linear_form_of(self.inner)
        if form is None or form.link != "identity":
            return None
        return LinearForm(form.coef, form.intercept - self.budget, "identity")


@register("trainer", "strategic", "stackelberg")
class StrategicTrainer(RefitTrainer):
    """A lender that anticipates gaming: the deployed threshold is raised by the gaming budget.

    Every deployed model is a :class:`StrategicScorer`, the non-strategic model lowered by
    ``budget``. The first one is the scenario's scorer (or, with ``initial_threshold``, a classifier
    fitted on its labels, as :class:`~recoursesim.training.RefitTrainer` does). Each refit fits the
    non-strategic model again on this step's population, labelled by the decisions the
    non-strategic model would have made, ``1[score + budget >= threshold]`` (the budget is added
    back so that refits do not raise the threshold again), and lowers it by the budget.

    The shift changes who is selected only under a score threshold (the ``threshold`` selector);
    under top-k selection it moves every score by the same amount and selects the same agents, but
    recommendations still aim at the shifted cut-off, and the refit's labels then also count as
    positive the agents within ``budget`` of the cut-off (the labels are exact for a threshold).

    Args:
        budget: The gaming budget ``b >= 0``, in score units (the score is the model's ``output``;
            with ``"decision"`` it is the linear margin).
        estimator: As :class:`~recoursesim.training.RefitTrainer`.
        estimator_params: As :class:`~recoursesim.training.RefitTrainer`.
        initial_threshold: As :class:`~recoursesim.training.RefitTrainer`.
        retrain_every: Refit every this many steps.
        output: ``"decision"`` (default: the margin, so a linear model's shifted score stays affine)
            or ``"proba"``.
        order: As :class:`~recoursesim.training.RefitTrainer`.
    """

    def __init__(
        self,
        budget: float = 0.05,
        estimator: str | Any | None = None,
        estimator_params: Mapping[str, Any] | None = None,
        initial_threshold: float | None = None,
        retrain_every: int = 1,
        output: str = "decision",
        order: str = "spec",
    ) -> None:
        super().__init__(estimator, estimator_params, initial_threshold, retrain_every, output, order)
        self.budget = budget
        self._budget = check_float("budget", budget, minimum=0.0)

    def start(self, features: np.ndarray, group: np.ndarray, scorer: Scorer, rng: np.random.Generator) -> Scorer:
        """The first deployed model: the (fitted) scenario scorer lowered by the budget."""
        first = super().start(features, group, scorer, rng)
        return first if isinstance(first, StrategicScorer) else StrategicScorer(first, self._budget)

    def training_data(self, context: TrainingContext) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """This step's population, labelled by the non-strategic model's decisions."""
        threshold = np.broadcast_to(np.asarray(context.threshold, dtype=float), context.scores.shape)
        labels = (context.selected | (context.scores + self._budget >= threshold)).astype(int)
        return context.features, labels, {"n_rows": int(labels.size), "n_positive": int(labels.sum())}

    def update(self, context: TrainingContext) -> Scorer:
        """The next deployed model: a refit (when due) lowered by the budget, or the current one kept."""
        model = super().update(context)
        return model if model is context.scorer else StrategicScorer(model, self._budget)
