"""The ``gupta`` trainer: refit a group-recourse-regularised model (Gupta et al. 2019) every step.

The models are in :mod:`recoursesim.training.group_recourse_models`, their solvers in
:mod:`recoursesim.training.group_recourse_solvers`.
"""

from __future__ import annotations

import warnings
from typing import Self

import numpy as np

from recoursesim._validate import check_bool, check_choice, check_float
from recoursesim.component import RunContext
from recoursesim.registry import register
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.threads import fit_single_threaded
from recoursesim.training.group_recourse_models import (
    GroupRecourseLogisticRegression,
    GroupRecourseSVM,
    PenaltyOffWarning,
)
from recoursesim.training.refit import RefitTrainer


@register("trainer", "gupta", "group_recourse")
class GroupRecourseTrainer(RefitTrainer):
    """Refit a group-recourse-regularised model (Gupta et al. 2019) on each step's population and outcomes.

    Like :class:`~recoursesim.training.RefitTrainer`, but the model is
    :class:`GroupRecourseLogisticRegression` (``model="logistic"``, scored by probability; its
    negatives are the agents outside this step's top-k) or :class:`GroupRecourseSVM`
    (``model="svm"``, scored by the signed margin). Groups come from the simulation and must be
    two. This is Gupta et al.'s method as published, not the reversed-score classifier of the
    dynamics paper's code (docs/mitigations.md). ``history_`` records each refit's recourse
    difference and outer iterations.

    Args:
        model: ``"logistic"`` or ``"svm"``.
        lam: Penalty weight ``λ``.
        upsilon: SVM slack weight ``Υ``.
        alpha: Logistic L2 weight.
        standardize: Fit on standardised features (the authors' setting).
        initial_threshold: Label threshold for the first fit on the initial population.
        retrain_every: Refit every this many steps.
        order: ``"spec"``, ``"reference"`` or ``"refit_before_acting"`` (see
            :class:`~recoursesim.training.RefitTrainer`).
    """

    def __init__(
        self,
        model: str = "logistic",
        lam: float = 1.0,
        upsilon: float = 10.0,
        alpha: float = 1e-3,
        standardize: bool = True,
        initial_threshold: float | None = None,
        retrain_every: int = 1,
        order: str = "spec",
    ) -> None:
        self.model = model
        check_choice("model", model, ["logistic", "svm"])
        self.lam = lam
        self._lam = check_float("lam", lam, minimum=0.0)
        self.upsilon = upsilon
        self._upsilon = check_float("upsilon", upsilon, minimum=0.0, strict_minimum=True)
        self.alpha = alpha
        self._alpha = check_float("alpha", alpha, minimum=0.0)
        self.standardize = standardize
        self._standardize = check_bool("standardize", standardize)
        self._configure(initial_threshold, retrain_every, "proba" if model == "logistic" else "decision", order)

    def bind(self, context: RunContext) -> Self:
        """Nothing to learn: its own model is fitted on the rows as they are, whatever the features' types."""
        return self

    def _fit(
        self, features: np.ndarray, labels: np.ndarray, groups: np.ndarray, rng: np.random.Generator
    ) -> ClassifierScorer:
        if self.model == "svm":
            estimator = GroupRecourseSVM(lam=self._lam, upsilon=self._upsilon, standardize=self._standardize)
        else:
            estimator = GroupRecourseLogisticRegression(
                lam=self._lam, alpha=self._alpha, n_positive=int(labels.sum()), standardize=self._standardize
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PenaltyOffWarning)  # recorded in history_ instead
            fit_single_threaded(estimator, features, labels, groups)
        if estimator.n_penalty_off_ and self.history_:
            self.history_[-1]["penalty_off"] = True
        if self.history_:
            self.history_[-1].update(
                {"recourse_difference": estimator.recourse_difference_, "n_iter": estimator.n_iter_}
            )
        return ClassifierScorer(estimator, output=self._output)
