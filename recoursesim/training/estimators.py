"""Scikit-learn classifiers by name, so scenarios can choose a model without unpickling anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sklearn.base import ClassifierMixin
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.svm import LinearSVC

from recoursesim.errors import ConfigError
from recoursesim.scoring.tabular import MODELS, construct_estimator

#: Name -> factory taking keyword parameters: the linear models (exact linear recourse applies to
#: them) and the built-in models of mixed-type populations (``logistic``, ``random_forest``,
#: ``gradient_boosting``, ``mlp``; see :data:`recoursesim.scoring.tabular.MODELS`).
ESTIMATORS: dict[str, Callable[..., ClassifierMixin]] = {
    "logistic_regression": LogisticRegression,
    "linear_svc": LinearSVC,
    "ridge_classifier": RidgeClassifier,
    **MODELS,
}


def make_estimator(name: str, params: Mapping[str, Any] | None = None) -> Any:
    """Build an unfitted classifier from :data:`ESTIMATORS`.

    Args:
        name: Registered estimator name.
        params: Constructor parameters.

    Returns:
        The estimator.

    Raises:
        ConfigError: unknown name or parameters the estimator does not accept.
    """
    if name not in ESTIMATORS:
        raise ConfigError("estimator", f"unknown estimator {name!r}", f"use one of {', '.join(ESTIMATORS)}")
    return construct_estimator(ESTIMATORS[name], params, "estimator_params", name)
