"""The models FACTS audits, and the fast encoder they share.

Models are built by name from the decision-model registry (no unpickling of user files). Each
is a scikit-learn pipeline: :class:`FrameEncoder` (one-hot encoding of discrete columns,
standard scaling of numeric ones) followed by a classifier, so the audited model is stable
(scaled features) and fast on the large batches of counterfactuals FACTS scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline

from recoursesim.errors import ConfigError
from recoursesim.scoring.tabular import make_model


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


#: The models FACTS audits, by name: the decision-model registry's model
#: (:data:`recoursesim.scoring.tabular.MODELS`) with these parameters, after a :class:`FrameEncoder`.
AUDITED_MODELS: dict[str, dict[str, Any]] = {
    "logistic": {"max_iter": 2000},
    "random_forest": {"n_jobs": 1},
    "gradient_boosting": {"early_stopping": "auto"},
}
#: Audited models that take the audit's random state, and those given a dense encoding.
_SEEDED = frozenset({"random_forest", "gradient_boosting"})
_DENSE = frozenset({"gradient_boosting"})


def audit_pipeline(name: str, random_state: int = 131313) -> Pipeline:
    """Build an unfitted model pipeline to audit, by name.

    Args:
        name: One of :data:`AUDITED_MODELS` (``"logistic"`` is the paper's default logistic regression).
        random_state: Seed for stochastic models.

    Raises:
        ConfigError: If ``name`` is unknown.
    """
    if name not in AUDITED_MODELS:
        raise ConfigError("--model", f"unknown model {name!r}", f"use one of {sorted(AUDITED_MODELS)}")
    params = {**AUDITED_MODELS[name], **({"random_state": random_state} if name in _SEEDED else {})}
    return Pipeline([("encode", FrameEncoder(dense=name in _DENSE)), ("model", make_model(name, params, "--model"))])
