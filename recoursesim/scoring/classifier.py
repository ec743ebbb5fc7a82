"""Use any fitted scikit-learn binary classifier as the scorer."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from recoursesim._validate import check_choice
from recoursesim.errors import ConfigError
from recoursesim.scoring.base import LinearForm


class ClassifierScorer:
    """Score agents with a fitted scikit-learn classifier.

    The score is the probability of the positive class (``predict_proba``) or the signed
    distance to the boundary (``decision_function``).

    Args:
        estimator: A fitted binary classifier.
        output: ``"proba"``, ``"decision"``, or ``"auto"`` (``proba`` when available).
    """

    def __init__(self, estimator: Any, output: Literal["auto", "proba", "decision"] = "auto") -> None:
        self.estimator = estimator
        self.output = check_choice("output", output, ["auto", "proba", "decision"])
        check_is_fitted(estimator)
        classes = getattr(estimator, "classes_", None)
        if classes is not None and len(classes) != 2:
            raise ConfigError("estimator", f"has {len(classes)} classes", "fit a binary classifier")
        if output == "auto":
            output = "proba" if hasattr(estimator, "predict_proba") else "decision"
        method = "predict_proba" if output == "proba" else "decision_function"
        if not hasattr(estimator, method):
            raise ConfigError("output", f"{type(estimator).__name__} has no {method}", "choose the other output")
        self.output_ = output

    def score(self, features: np.ndarray) -> np.ndarray:
        """Return the positive-class probability or the decision value of each row."""
        if np.shape(features)[0] == 0:  # scikit-learn refuses empty input; nobody to score is not an error
            return np.empty(0)
        if self.output_ == "proba":
            return self.estimator.predict_proba(features)[:, 1]
        return np.asarray(self.estimator.decision_function(features), dtype=float)

    def linear_form(self) -> LinearForm | None:
        """Return the linear form of a linear model (``coef_``/``intercept_``), else ``None``."""
        coef = getattr(self.estimator, "coef_", None)
        intercept = getattr(self.estimator, "intercept_", None)
        if coef is None or intercept is None or np.ndim(coef) != 2 or np.shape(coef)[0] != 1:
            return None
        link: Literal["identity", "logistic"] = "logistic" if self.output_ == "proba" else "identity"
        logistic = isinstance(self.estimator, LogisticRegression) or (
            getattr(self.estimator, "probability_link_", None) == "logistic"
        )
        if link == "logistic" and not logistic:
            return None  # only a logistic model's probability is exactly expit(margin)
        return LinearForm(np.asarray(coef[0], dtype=float), float(np.ravel(intercept)[0]), link)
