"""Retraining the decision model every step, plainly or with counterfactual data augmentation (CDA)."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping
from typing import Any, Literal, Self

import numpy as np
from sklearn.base import clone

from recoursesim._validate import check_bool, check_choice, check_float, check_int, check_table
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.features.schema import FeatureSchema
from recoursesim.refit_order import REFIT_ORDERS
from recoursesim.registry import register
from recoursesim.rng import integer_seed
from recoursesim.scoring.base import Scorer
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.model_confine import confine_model, refuse_unsafe_params
from recoursesim.scoring.tabular import TabularModel, tabular_estimator
from recoursesim.threads import fit_single_threaded
from recoursesim.training.base import Trainer, TrainingContext
from recoursesim.training.estimators import ESTIMATORS, make_estimator
from recoursesim.training.warm_logistic import fitted_logistic, solves_exactly

log = logging.getLogger("recoursesim.training")


@register("trainer", "refit", "retrain")
class RefitTrainer(Component, Trainer):
    """Refit the decision model from scratch each step on the current population and its outcomes.

    The training data at step ``t`` is ``X_t`` (every agent scored at ``t``) with labels ``y_t``,
    this step's outcomes (1 = selected): the model is trained on its own decisions, with no memory
    of earlier steps. If the labels are a single class the model cannot be fitted: the current
    model is kept and a warning is issued.

    The first model can be fitted when the run starts: with ``initial_threshold`` set, the
    scenario's scorer labels the initial population ``y = 1[f(x) > initial_threshold]`` and the
    estimator is fitted on it (the bell2024 CDA setup fits a logistic regression on
    ``1[f(x) > 0.5]``).

    Args:
        estimator: Name from :data:`~recoursesim.training.estimators.ESTIMATORS`, or a scikit-learn
            classifier (``LogisticRegression(C=0.1)``, a ``Pipeline``); every refit fits a
            :func:`~sklearn.base.clone` of it, so the object given is never fitted itself.
            ``None`` (default): the user's own model when the scenario has one (see
            ``user_estimator``), else ``"logistic_regression"``.
        estimator_params: Parameters of the named estimator (or set on the clone of the object).
        initial_threshold: Label threshold for the first fit (``None``: use the scenario's scorer as is).
        retrain_every: Refit every this many steps.
        output: Score with ``"proba"`` (positive-class probability) or ``"decision"``.
        order: When the refit happens within a step (see :mod:`recoursesim.refit_order` and
            docs/mitigations.md, "When the refit happens"):
            ``"spec"`` (agents act on the selecting model's recommendations, then the refit uses
            those same recommendations), ``"reference"`` (refit first; agents act toward the
            refitted model's recommendations at its own cut-off) or ``"refit_before_acting"``
            (refit first; agents act toward the selecting model's recommendations, their move
            computed under the refitted model).
        user_estimator: Supplied by the scenario when its decision model is the user's own fitted
            model (:class:`~recoursesim.scoring.fitted.FittedModelScorer`): an unfitted clone of it
            that takes the population's rows as the model's own DataFrame. With ``estimator``
            not given, every refit fits a clone of it (``estimator_params`` are set on the user's
            model, as ``{histgradientboostingclassifier__max_iter = 50}`` for a pipeline); the
            user's fitted object is never touched.

    :meth:`bind` reads the run's feature schema: on a mixed-type population a named estimator is
    fitted on encoded features (one-hot categories, scaled numbers and ranks; see
    :func:`~recoursesim.scoring.tabular.tabular_estimator`).
    """

    #: Whether refits solve the built-in logistic regression by warm-started Newton steps (set by
    #: ``__init__``; a subclass that fits its own model never does).
    _newton: bool = False

    def __init__(
        self,
        estimator: str | Any | None = None,
        estimator_params: Mapping[str, Any] | None = None,
        initial_threshold: float | None = None,
        retrain_every: int = 1,
        output: str = "proba",
        order: str = "spec",
        user_estimator: Any = None,
    ) -> None:
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.output = output
        self.user_estimator = user_estimator
        if estimator_params is not None:
            check_table("estimator_params", estimator_params)
        self._configure(initial_threshold, retrain_every, output, order)
        self._learn_schema(None)  # the estimator is checked now; bind may wrap it for a mixed-type schema
        self._solution: np.ndarray | None = None

    def bind(self, context: RunContext) -> Self:
        """Wrap a named estimator for the run's feature schema (a mixed-type population's encoding)."""
        self._learn_schema(context.schema)
        return self

    def _learn_schema(self, schema: FeatureSchema | None) -> None:
        """Build the unfitted model every refit clones, confined as a loaded model is (no cache, one process)."""
        # The built-in logistic regression is refitted exactly by Newton's method from the previous
        # step's solution (recoursesim.training.warm_logistic); a user's model is cloned and fitted.
        refuse_unsafe_params(self.estimator_params)
        prototype = _prototype_for(self.estimator, self.estimator_params, schema, self.user_estimator)
        self._prototype = confine_model(prototype, "the refit model", "training")
        estimator, user_estimator = self.estimator, self.user_estimator
        built_in = isinstance(estimator, str) or (estimator is None and user_estimator is None)
        self._newton = built_in and solves_exactly(self._prototype)
        self._newton_params = self._prototype.get_params() if self._newton else {}

    def _configure(self, initial_threshold: float | None, retrain_every: int, output: str, order: str) -> None:
        """Check and set what every refitting trainer shares (subclasses with their own model call it)."""
        self.initial_threshold = initial_threshold
        self._initial_threshold = (
            None if initial_threshold is None else check_float("initial_threshold", initial_threshold)
        )
        self.retrain_every = retrain_every
        check_int("retrain_every", retrain_every, minimum=1)
        self._output: Literal["proba", "decision"] = check_choice("output", output, ["proba", "decision"])
        self.order = order
        check_choice("order", order, list(REFIT_ORDERS))
        self.history_: list[dict[str, Any]] = []

    def start(self, features: np.ndarray, group: np.ndarray, scorer: Scorer, rng: np.random.Generator) -> Scorer:
        """Fit the first model on the initial population (if ``initial_threshold`` is set)."""
        self._solution = None  # a run never starts from another run's solution
        if self._initial_threshold is None:
            return scorer
        labels = (np.asarray(scorer.score(features)) > self._initial_threshold).astype(int)
        if labels.min() == labels.max():
            raise ConfigError(
                "training.initial_threshold",
                f"labels every initial agent {labels[0]} (one class), so no model can be fitted",
                "choose a threshold inside the range of the initial scores",
            )
        return self._fit(features, labels, group, rng)

    def update(self, context: TrainingContext) -> Scorer:
        """Return the model for the next step (refitted every ``retrain_every`` steps)."""
        if context.step % self.retrain_every:
            return context.scorer
        features, labels, info = self.training_data(context)
        info["step"] = context.step
        if labels.size == 0 or labels.min() == labels.max():
            warnings.warn(
                f"step {context.step}: the training labels are all {int(labels[0]) if labels.size else '-'}; "
                "keeping the current model",
                RuntimeWarning,
                stacklevel=2,
            )
            info["refitted"] = False
            self.history_.append(info)
            return context.scorer
        info["refitted"] = True
        self.history_.append(info)
        groups = np.concatenate([context.group, np.full(labels.size - context.group.size, -1)])
        return self._fit(features, labels, groups, context.rng)

    def training_data(self, context: TrainingContext) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """This step's training set: the scored population with its outcomes."""
        labels = context.selected.astype(int)
        return context.features, labels, {"n_rows": int(labels.size), "n_positive": int(labels.sum())}

    def _fit(
        self, features: np.ndarray, labels: np.ndarray, groups: np.ndarray, rng: np.random.Generator
    ) -> ClassifierScorer:
        """Fit a fresh copy of the estimator (``groups`` is unused here; group-aware trainers use it)."""
        if self._newton:
            estimator = fitted_logistic(self._newton_params, features, labels, self._solution)
            self._solution = np.concatenate([estimator.coef_[0], estimator.intercept_])
            return ClassifierScorer(estimator, output=self._output)
        estimator = clone(self._prototype)
        if estimator.get_params().get("random_state", 0) is None:  # not fixed by the user: the run's stream
            estimator.set_params(random_state=integer_seed(rng))
        fit_single_threaded(estimator, features, labels)
        inner = estimator.estimator_ if isinstance(estimator, TabularModel) else estimator  # the user's pipeline
        output = self._output if self._output == "decision" or hasattr(inner, "predict_proba") else "decision"
        return ClassifierScorer(estimator, output=output)


@register("trainer", "cda", "counterfactual_augmentation")
class CounterfactualAugmentationTrainer(RefitTrainer):
    """Counterfactual data augmentation (CDA, Ferrario & Loi 2022), refitting every step (docs/mitigations.md).

    At step ``t`` the training data is the scored population ``X_t`` with its outcomes ``y_t``.
    Each negative's recourse counterfactual ``x'`` — the recommendation it was given, under the
    current model and cut-off — is relabelled favourable (1); the original negatives keep label 0.
    ``int(imbalance_ratio · n_neg − n_pos)`` counterfactuals (truncated toward zero) are drawn
    uniformly without replacement from the run's training stream (none if that is ``<= 0``, all
    if it exceeds their number), and a fresh model is fitted on ``X_t`` plus them. Counterfactuals
    that fall short of the cut-off under the current model by more than 1e-9 (the action set's
    bounds stopped them) are dropped first, and counted in ``history_``; with
    ``drop_short=False`` they are kept, as the reference code does.

    Args:
        estimator: Name from :data:`~recoursesim.training.estimators.ESTIMATORS`, or a scikit-learn
            classifier (refitted as a clone); ``None``: the user's own model when the scenario has
            one, else ``"logistic_regression"`` (see :class:`RefitTrainer`).
        estimator_params: Parameters of the named estimator (or set on the clone of the object).
        imbalance_ratio: ``ir = (n_pos + n_cf) / n_neg``; 1 balances the classes.
        drop_short: Drop counterfactuals that do not reach the cut-off.
        initial_threshold: Label threshold for the first fit (see :class:`RefitTrainer`).
        retrain_every: Refit every this many steps.
        output: ``"proba"`` or ``"decision"``.
        order: ``"spec"``, ``"reference"`` or ``"refit_before_acting"`` (see :class:`RefitTrainer`).
        user_estimator: Supplied by the scenario with the user's own model (see :class:`RefitTrainer`).
    """

    def __init__(
        self,
        estimator: str | Any | None = None,
        estimator_params: Mapping[str, Any] | None = None,
        imbalance_ratio: float = 1.0,
        drop_short: bool = True,
        initial_threshold: float | None = None,
        retrain_every: int = 1,
        output: str = "proba",
        order: str = "spec",
        user_estimator: Any = None,
    ) -> None:
        super().__init__(estimator, estimator_params, initial_threshold, retrain_every, output, order, user_estimator)
        self.imbalance_ratio = imbalance_ratio
        self._imbalance_ratio = check_float("imbalance_ratio", imbalance_ratio, minimum=0.0)
        self.drop_short = drop_short
        check_bool("drop_short", drop_short)

    def training_data(self, context: TrainingContext) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """The scored population plus sampled favourable counterfactuals of its negatives."""
        features, labels, info = super().training_data(context)
        negative = ~context.selected
        counterfactuals = np.compress(negative, context.recommendation, axis=0)
        finite = np.isfinite(counterfactuals)
        usable = np.ones(finite.shape[0], dtype=bool) if finite.all() else finite.all(axis=1)
        if usable.any() and self.drop_short:
            threshold = np.broadcast_to(np.asarray(context.threshold, dtype=float), labels.shape)[negative]
            reached = np.zeros_like(usable)
            reached[usable] = context.scorer.score(counterfactuals[usable]) >= threshold[usable] - 1e-9
            dropped = int(usable.sum() - reached.sum())
            usable &= reached
        else:
            dropped = 0
        if not usable.all():
            counterfactuals = np.compress(usable, counterfactuals, axis=0)
        n_pos, n_neg = int(labels.sum()), int(negative.sum())
        wanted = int(self._imbalance_ratio * n_neg - n_pos)
        if wanted <= 0 or counterfactuals.shape[0] == 0:
            chosen = counterfactuals[:0]
        elif wanted >= counterfactuals.shape[0]:
            chosen = counterfactuals
        else:
            drawn = np.sort(context.rng.choice(counterfactuals.shape[0], wanted, replace=False))
            chosen = np.take(counterfactuals, drawn, axis=0)
        if dropped:
            log.info("step %d: dropped %d counterfactuals short of the cut-off", context.step, dropped)
        info.update({"n_counterfactuals": int(chosen.shape[0]), "n_dropped": dropped, "n_wanted": max(wanted, 0)})
        return (
            np.vstack([features, chosen]),
            np.concatenate([labels, np.ones(chosen.shape[0], dtype=int)]),
            info,
        )


def _prototype_for(
    estimator: str | Any | None, params: Mapping[str, Any] | None, schema: FeatureSchema | None, user_estimator: Any
) -> Any:
    """The unfitted model a trainer refits: the user's own (when ``estimator`` is not given), or ``estimator``.

    A name is built from :data:`~recoursesim.training.estimators.ESTIMATORS` (wrapped for ``schema``'s
    encoding when given); an object is cloned and given ``params``.
    """
    if estimator is None and user_estimator is not None:
        if not hasattr(user_estimator, "get_params"):
            raise ConfigError(
                "user_estimator", f"must be a scikit-learn estimator, got {user_estimator!r}", "pass a classifier"
            )
        prototype = clone(user_estimator)
        inner = {f"estimator__{key}": value for key, value in dict(params or {}).items()}
        try:
            return prototype.set_params(**inner)
        except ValueError as error:
            raise ConfigError(
                "estimator_params", str(error).splitlines()[0], "use parameters of your model (get_params())"
            ) from None
    if estimator is None or isinstance(estimator, str):
        prototype = make_estimator("logistic_regression" if estimator is None else estimator, params)
        return prototype if schema is None else tabular_estimator(schema, prototype)
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")) or isinstance(estimator, type):
        raise ConfigError(
            "estimator",
            f"must be an estimator name or a scikit-learn classifier, got {estimator!r}",
            f"use one of {', '.join(ESTIMATORS)}, or pass an unfitted classifier such as LogisticRegression()",
        )
    if not (hasattr(estimator, "predict_proba") or hasattr(estimator, "decision_function")):
        raise ConfigError(
            "estimator",
            f"{type(estimator).__name__} has neither predict_proba nor decision_function",
            "use a classifier",
        )
    prototype = clone(estimator)
    try:
        prototype = prototype.set_params(**dict(params or {}))
    except ValueError as error:  # scikit-learn's message for a parameter the estimator lacks
        raise ConfigError("estimator_params", str(error).splitlines()[0], "use parameters of the estimator") from None
    return prototype if schema is None else tabular_estimator(schema, prototype)
