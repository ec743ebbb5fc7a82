"""Outcome models: the true (not the decision model's) answer to "is this agent qualified?"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from recoursesim._validate import check_float
from recoursesim.errors import ConfigError
from recoursesim.scoring.base import Scorer

#: Outcome model names a scenario can give.
OUTCOMES: tuple[str, ...] = ("linear", "decision", "fitted")


@runtime_checkable
class OutcomeModel(Protocol):
    """Says who is truly qualified, from the agents' *true* features."""

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return one boolean per row of ``features``."""
        ...


class LinearOutcome:
    """Qualified when ``weights · z >= cutoff`` (a stated function of the latent qualification).

    Args:
        weights: One weight per feature (0 for features that do not matter).
        cutoff: The qualification cut-off.
    """

    def __init__(self, weights: np.ndarray, cutoff: float) -> None:
        self.weights = np.asarray(weights, dtype=float)
        self.cutoff = float(cutoff)

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return ``features @ weights >= cutoff``."""
        return np.asarray(features, dtype=float) @ self.weights >= self.cutoff


class DecisionOutcome:
    """Qualified when a fixed scorer (for example the step-0 decision model) scores ``>= cutoff``.

    Args:
        scorer: The scorer that defines qualification.
        cutoff: The score cut-off.
    """

    def __init__(self, scorer: Scorer, cutoff: float) -> None:
        self.scorer = scorer
        self.cutoff = float(cutoff)

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return ``scorer.score(features) >= cutoff``."""
        return np.asarray(self.scorer.score(np.asarray(features, dtype=float)), dtype=float) >= self.cutoff


class FittedOutcome:
    """Qualified when a logistic regression fitted on all labelled rows gives ``P(y = 1) >= cutoff``.

    This is an assumption, not a fact about the data: it treats the best logistic fit of the
    labels on the agents' features as the true outcome. Categorical features (by their column
    index in the agents' feature codes) are one-hot encoded, the others standardised. After the
    fit the model is kept as its margin (a lookup table per categorical feature plus a linear
    term), so judging thousands of agents every step costs one vectorised sum.

    Args:
        features: ``(n, d)`` every labelled row, in the agents' feature space.
        labels: ``(n,)`` their 0/1 labels.
        cutoff: The probability cut-off (in (0, 1)).
        categorical: Column indices of categorical features.
    """

    def __init__(
        self, features: np.ndarray, labels: np.ndarray, cutoff: float = 0.5, categorical: Sequence[int] = ()
    ) -> None:
        from sklearn.compose import ColumnTransformer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder, StandardScaler

        from recoursesim.training.refit import single_threaded

        features = np.asarray(features, dtype=float)
        self.cutoff = check_float("cutoff", cutoff, minimum=0.0, maximum=1.0)
        if not 0.0 < self.cutoff < 1.0:
            raise ConfigError("cutoff", f"must lie strictly between 0 and 1, got {cutoff}", "use e.g. 0.5")
        self.categorical = [int(j) for j in categorical]
        self.numeric = [j for j in range(features.shape[1]) if j not in set(self.categorical)]
        encoder = OneHotEncoder(handle_unknown="ignore")
        scaler = StandardScaler()
        model = LogisticRegression(max_iter=2000)
        transform = ColumnTransformer([("categorical", encoder, self.categorical), ("numeric", scaler, self.numeric)])
        with single_threaded():
            make_pipeline(transform, model).fit(features, np.asarray(labels).astype(int))
        encoder = transform.named_transformers_["categorical"]  # the fitted clones
        scaler = transform.named_transformers_["numeric"]
        coef = model.coef_[0]
        self._tables: list[tuple[np.ndarray, np.ndarray]] = []  # per categorical column: (codes, weights)
        start = 0
        for codes in encoder.categories_ if self.categorical else []:
            self._tables.append((np.asarray(codes, dtype=float), coef[start : start + len(codes)]))
            start += len(codes)
        scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0) if self.numeric else np.ones(0)
        self._weights = coef[start:] / scale
        self._intercept = float(model.intercept_[0]) - float(
            np.dot(self._weights, scaler.mean_ if self.numeric else [])
        )
        self._margin_cut = float(np.log(self.cutoff / (1.0 - self.cutoff)))

    def margin(self, features: np.ndarray) -> np.ndarray:
        """The fitted model's log-odds of ``y = 1`` for each row."""
        features = np.asarray(features, dtype=float)
        margin = features[:, self.numeric] @ self._weights + self._intercept
        for column, (codes, weights) in zip(self.categorical, self._tables, strict=True):
            position = np.clip(np.searchsorted(codes, features[:, column]), 0, codes.size - 1)
            known = codes[position] == features[:, column]
            margin += np.where(known, weights[position], 0.0)
        return margin

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return ``P(y = 1 | features) >= cutoff`` under the fitted model."""
        return self.margin(features) >= self._margin_cut


def labelled_rows(population: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Every labelled row ``(features, labels)`` of a population's data set, or ``None`` if it has no labels.

    A population offers them through a ``labelled_rows()`` method, or (like the ``dataset``
    population) as ``codes`` (features in the agents' feature space) and 0/1 ``labels`` attributes.
    """
    method = getattr(population, "labelled_rows", None)
    if callable(method):
        return method()
    codes, labels = getattr(population, "codes", None), getattr(population, "labels", None)
    if codes is None or labels is None:
        return None
    return np.asarray(codes, dtype=float), np.asarray(labels).astype(int)


def weight_vector(weights: object, feature_names: Sequence[str]) -> np.ndarray:
    """Turn a ``{feature: weight}`` table into one weight per feature (unlisted features weigh 0)."""
    if not isinstance(weights, Mapping) or not weights:
        raise ConfigError(
            "weights", f"must be a table of feature weights, got {weights!r}", "write weights = {x0 = 1.0}"
        )
    check_feature_names("weights", list(weights), feature_names)
    vector = np.zeros(len(feature_names))
    for name, value in weights.items():
        vector[list(feature_names).index(name)] = check_float(f"weights.{name}", value)
    if not np.any(vector):
        raise ConfigError("weights", "are all zero", "give at least one feature a non-zero weight")
    return vector


def check_feature_names(field: str, given: Sequence[object], feature_names: Sequence[str]) -> None:
    """Raise a :class:`ConfigError` naming the first entry of ``given`` that is not a feature."""
    unknown = [name for name in given if name not in feature_names]
    if unknown:
        raise ConfigError(
            field, f"unknown feature {unknown[0]!r}", f"use features of the population: {', '.join(feature_names)}"
        )
