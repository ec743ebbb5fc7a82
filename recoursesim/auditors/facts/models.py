"""A small registry of models to audit, and the fast encoder they share.

Models are built by name (no unpickling of user files). Each is a scikit-learn pipeline:
:class:`FrameEncoder` (one-hot encoding of discrete columns, standard scaling of numeric ones)
followed by a classifier, so the audited model is stable (scaled features) and fast on the large
batches of counterfactuals FACTS scores.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from recoursesim.errors import ConfigError


class FrameEncoder(TransformerMixin, BaseEstimator):
    """One-hot encode non-numeric columns and standardise numeric ones.

    Unknown categories at transform time encode as all zeros.

    Args:
        dense: Return a dense array instead of a CSR matrix.
    """

    def __init__(self, dense: bool = False) -> None:
        self.dense = dense

    def fit(self, X: pd.DataFrame, y: object = None) -> FrameEncoder:
        """Learn the categories and the numeric means and scales."""
        self.columns_ = list(X.columns)
        self.numeric_ = {}
        self.categories_ = {}
        for column in self.columns_:
            series = X[column]
            if pd.api.types.is_numeric_dtype(series) and not isinstance(series.dtype, pd.CategoricalDtype):
                values = series.to_numpy(dtype=float)
                scale = float(np.std(values))
                self.numeric_[column] = (float(np.mean(values)), scale if scale > 0 else 1.0)
            else:
                self.categories_[column] = pd.Index(sorted(pd.unique(series.dropna().astype(str))))
        width = len(self.numeric_) + sum(len(c) for c in self.categories_.values())
        self.n_features_out_ = width
        return self

    def transform(self, X: pd.DataFrame) -> sparse.csr_matrix | np.ndarray:
        """Encode ``X`` (same columns as in ``fit``)."""
        n = len(X)
        rows, cols, vals = [], [], []
        offset = 0
        index = np.arange(n)
        for column in self.columns_:
            series = X[column]
            if column in self.numeric_:
                mean, scale = self.numeric_[column]
                rows.append(index)
                cols.append(np.full(n, offset))
                vals.append((series.to_numpy(dtype=float) - mean) / scale)
                offset += 1
            else:
                categories = self.categories_[column]
                codes = _codes(series, categories)
                known = codes >= 0
                rows.append(index[known])
                cols.append(offset + codes[known])
                vals.append(np.ones(int(known.sum())))
                offset += len(categories)
        matrix = sparse.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, offset)
        )
        return matrix.toarray() if self.dense else matrix


def _codes(series: pd.Series, categories: pd.Index) -> np.ndarray:
    if isinstance(series.dtype, pd.CategoricalDtype):
        own = series.cat.categories.astype(str)
        lookup = categories.get_indexer(own)
        codes = series.cat.codes.to_numpy()
        return np.where(codes >= 0, lookup[codes], -1)
    return categories.get_indexer(series.astype(str))


def _logistic(random_state: int) -> Pipeline:
    return Pipeline([("encode", FrameEncoder()), ("model", LogisticRegression(max_iter=2000))])


def _random_forest(random_state: int) -> Pipeline:
    forest = RandomForestClassifier(n_estimators=100, min_samples_leaf=5, random_state=random_state, n_jobs=1)
    return Pipeline([("encode", FrameEncoder()), ("model", forest)])


def _gradient_boosting(random_state: int) -> Pipeline:
    boosting = HistGradientBoostingClassifier(random_state=random_state)
    return Pipeline([("encode", FrameEncoder(dense=True)), ("model", boosting)])


#: Model builders by name: each takes a random_state and returns an unfitted pipeline.
MODELS: dict[str, Callable[[int], Pipeline]] = {
    "logistic": _logistic,
    "random_forest": _random_forest,
    "gradient_boosting": _gradient_boosting,
}


def make_model(name: str, random_state: int = 131313) -> Pipeline:
    """Build an unfitted model pipeline by name.

    Args:
        name: One of :data:`MODELS` (``"logistic"`` is the paper's default logistic regression).
        random_state: Seed for stochastic models.

    Raises:
        ConfigError: If ``name`` is unknown.
    """
    if name not in MODELS:
        raise ConfigError("--model", f"unknown model {name!r}", f"use one of {sorted(MODELS)}")
    return MODELS[name](random_state)
