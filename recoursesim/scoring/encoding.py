"""The built-in models' encoding of code-space rows: one-hot categories, standardised numbers and ranks."""

from __future__ import annotations

from typing import Any, Self

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline

from recoursesim.features.schema import FeatureSchema


class CodeEncoder(TransformerMixin, BaseEstimator):
    """Encode code-space rows for a model: one-hot categorical codes, standardised numbers and ranks.

    The categories come from the schema, so every fit encodes the same columns whatever the
    sample; numeric, integer and ordinal columns are centred and scaled to unit variance (a
    constant column is only centred).

    Args:
        schema: The feature schema.
    """

    def __init__(self, schema: FeatureSchema | None = None) -> None:
        self.schema = schema

    def fit(self, X: np.ndarray, y: Any = None) -> Self:
        """Learn the mean and standard deviation of the non-categorical columns."""
        assert self.schema is not None
        X = np.asarray(X, dtype=float)
        linear = ~self.schema.is_categorical
        self.mean_ = X[:, linear].mean(axis=0) if X.shape[0] else np.zeros(int(linear.sum()))
        sd = X[:, linear].std(axis=0) if X.shape[0] else np.ones(int(linear.sum()))
        self.scale_ = np.where(sd > 0, sd, 1.0)
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Return ``[one-hot of each categorical column | scaled other columns]``."""
        assert self.schema is not None
        X = np.asarray(X, dtype=float)
        categorical = np.flatnonzero(self.schema.is_categorical)
        sizes = self.schema.n_categories[categorical]
        width = int(sizes.sum())
        n, total = X.shape[0], width + int((~self.schema.is_categorical).sum())
        out = np.zeros((n, total))
        if categorical.size:
            codes = np.rint(X[:, categorical]).astype(np.int64)
            inside = (codes >= 0) & (codes < sizes)
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            # one flat position per (row, categorical column): row * width of out + column of the code
            flat = np.arange(0, n * total, total)[:, None] + offsets + codes
            out.reshape(-1)[flat[inside]] = 1.0
        out[:, width:] = (X[:, ~self.schema.is_categorical] - self.mean_) / self.scale_
        return out


def builtin_pipeline(schema: FeatureSchema, classifier: Any) -> Pipeline:
    """The pipeline of the built-in models: :class:`CodeEncoder`, then ``classifier``."""
    return Pipeline([("encode", CodeEncoder(schema)), ("model", classifier)])
