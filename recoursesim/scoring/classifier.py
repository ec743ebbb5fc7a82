"""Use any fitted scikit-learn binary classifier as the scorer."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from recoursesim._validate import check_choice
from recoursesim.errors import ConfigError
from recoursesim.scoring.base import (
    AdditiveForm,
    LinearForm,
    PredictsEdits,
    Scorer,
    WrapsFittedModel,
    edited_rows,
    final_estimator,
)
from recoursesim.scoring.encoding import CodeEncoder


class ClassifierScorer(Scorer):
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
        if self.output_ == "decision":
            return self.margin(features)
        if np.shape(features)[0] == 0:  # scikit-learn refuses empty input; nobody to score is not an error
            return np.empty(0)
        margin = _logistic_margin(self.estimator, features)
        return self.estimator.predict_proba(features)[:, 1] if margin is None else expit(margin)

    def score_edits(self, base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
        """The scores of :func:`~recoursesim.scoring.base.edited_rows`, the same numbers as :meth:`score` of them.

        A model that predicts edited rows itself (:class:`~recoursesim.scoring.base.PredictsEdits`,
        as the built-in gradient boosting does by its leaf tables) is asked to; any other scores the
        rows built.
        """
        if np.size(agent) == 0:
            return np.empty(0)
        if isinstance(self.estimator, PredictsEdits):
            if self.output_ == "proba":
                return self.estimator.predict_edits("predict_proba", base, agent, column, value)[:, 1]
            return np.asarray(
                self.estimator.predict_edits("decision_function", base, agent, column, value), dtype=float
            )
        return self.score(edited_rows(base, agent, column, value))

    def linear_form(self) -> LinearForm | None:
        """Return the linear form of a linear model (``coef_``/``intercept_``), else ``None``."""
        coef = getattr(self.estimator, "coef_", None)
        intercept = getattr(self.estimator, "intercept_", None)
        if coef is None or intercept is None or np.ndim(coef) != 2 or np.shape(coef)[0] != 1:
            return None
        link: Literal["identity", "logistic"] = "logistic" if self.output_ == "proba" else "identity"
        if link == "logistic" and not _is_logistic(self.estimator):
            return None  # only a logistic model's probability is exactly expit(margin)
        return LinearForm(np.asarray(coef[0], dtype=float), float(np.ravel(intercept)[0]), link)

    def margin_link(self) -> Literal["identity", "logistic"] | None:
        """How the score follows from :meth:`margin`, or ``None`` if the model has no exact margin.

        The decision value is the margin itself (``"identity"``); a logistic regression's
        probability is ``expit`` of its decision function (``"logistic"``), also at the end of a
        ``Pipeline`` or inside a :class:`~recoursesim.scoring.tabular.TabularModel`.
        """
        if self.output_ == "decision":
            return "identity"
        logistic = _is_logistic(final_estimator(self.estimator))
        return "logistic" if logistic and hasattr(self.estimator, "decision_function") else None

    def margin(self, features: np.ndarray) -> np.ndarray:
        """The decision value of each row (exact, where a probability would round to 0 or 1)."""
        if np.shape(features)[0] == 0:
            return np.empty(0)
        margin = _logistic_margin(self.estimator, features)
        if margin is not None:
            return margin
        return np.asarray(self.estimator.decision_function(features), dtype=float)

    def additive_form(self) -> AdditiveForm | None:
        """The exact additive form of a built-in linear model on mixed-type codes, else ``None``.

        It exists when the estimator is a code-space :class:`~recoursesim.scoring.tabular.TabularModel`
        whose pipeline is a :class:`~recoursesim.scoring.encoding.CodeEncoder` (one-hot categories,
        standardised numbers and ranks) followed by a linear model: the margin is then the
        intercept, plus one coefficient per category, plus a slope per number or rank.
        """
        link = self.margin_link()
        wrapped = self.estimator if isinstance(self.estimator, WrapsFittedModel) else None
        steps = None if wrapped is None else getattr(wrapped.estimator_, "steps", None)
        if link is None or wrapped is None or wrapped.input != "codes" or not steps or len(steps) != 2:
            return None
        encoder, final = steps[0][1], steps[1][1]
        coef, intercept = getattr(final, "coef_", None), getattr(final, "intercept_", None)
        if not isinstance(encoder, CodeEncoder) or encoder.schema is None or coef is None or intercept is None:
            return None
        schema = encoder.schema
        terms = encoder.column_terms(coef, intercept)
        slope = terms.slopes.copy()  # margin per code unit of each non-categorical column
        tables = list(terms.blocks)
        for j in np.flatnonzero(schema.is_ordinal & ~schema.is_categorical):
            tables[j], slope[j] = slope[j] * np.arange(int(schema.n_categories[j]), dtype=float), 0.0
        return AdditiveForm(link, terms.constant, slope, tuple(tables))


def _is_logistic(estimator: Any) -> bool:
    """Whether ``estimator``'s probability is exactly ``expit`` of its decision function."""
    return isinstance(estimator, LogisticRegression) or getattr(estimator, "probability_link_", None) == "logistic"


def _logistic_margin(estimator: Any, features: Any) -> np.ndarray | None:
    """A fitted binary ``LogisticRegression``'s decision values, computed as scikit-learn does, or ``None``.

    For a plain float array without NaN or infinity and of the fitted width this is
    ``features @ coef_.T + intercept_``, the very operations of scikit-learn's ``decision_function``
    (whose ``predict_proba`` is ``expit`` of it), so the values are bit-identical; it skips the
    input validation, which costs far more than the product at the sizes of one step. Anything
    else (subclasses, pipelines, data frames, other dtypes, non-finite values, a wrong width)
    returns ``None`` and goes through scikit-learn, which validates it and raises its own errors.
    """
    if type(estimator) is not LogisticRegression or not isinstance(features, np.ndarray):
        return None
    coef = getattr(estimator, "coef_", None)
    intercept = getattr(estimator, "intercept_", None)
    if (
        features.dtype != np.float64
        or features.ndim != 2
        or coef is None
        or intercept is None
        or coef.shape != (1, features.shape[1])
        or len(getattr(estimator, "classes_", ())) != 2
        or getattr(estimator, "feature_names_in_", None) is not None
        or not np.isfinite(features).all()
    ):
        return None
    return np.reshape(features @ coef.T + intercept, (-1,))
