"""The models FACTS audits, and the encoder of data frames they share.

Models are built by name from the decision-model registry (no unpickling of user files). Each
is a scikit-learn pipeline: :class:`FrameEncoder` (the package's one-hot and standardising
encoding, :class:`~recoursesim.scoring.encoding.OneHotStandardiser`, on a data frame) followed by
a classifier, so the audited model is stable (scaled features) and fast on the large batches of
counterfactuals FACTS scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from recoursesim.errors import ConfigError
from recoursesim.scoring.encoding import OneHotStandardiser
from recoursesim.scoring.tabular import make_model


class FrameEncoder(OneHotStandardiser):
    """One-hot encode a data frame's non-numeric columns and standardise its numeric ones.

    The categories of each non-numeric column are learned at fit time (sorted as text); an unknown
    category at transform time encodes as all zeros. The output keeps the frame's column order
    (each column's block or standardised column where the column stands).

    Args:
        dense: Return a dense array instead of a CSR matrix.

    Attributes:
        columns_: The frame's columns.
        categories_: Per non-numeric column, its categories.
    """

    categorical_first = False

    def __init__(self, dense: bool = False) -> None:
        self.dense = dense

    @property
    def sparse_output(self) -> bool:  # type: ignore[override]
        """Whether :meth:`transform` returns a CSR matrix (unless ``dense``)."""
        return not self.dense

    def _layout(self, X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Learn the frame's columns and each non-numeric column's categories."""
        self.columns_ = list(X.columns)
        self.categories_ = {
            column: pd.Index(sorted(pd.unique(X[column].dropna().astype(str))))
            for column in self.columns_
            if not _is_number(X[column])
        }
        numeric = np.array([column not in self.categories_ for column in self.columns_], dtype=bool)
        return numeric, np.array([len(self.categories_.get(column, ())) for column in self.columns_], dtype=np.int64)

    def to_codes(self, X: pd.DataFrame) -> np.ndarray:
        """The frame as numbers and category codes (-1 for an unknown category)."""
        values = np.empty((len(X), len(self.columns_)))
        for j, column in enumerate(self.columns_):
            series = X[column]
            if column in self.categories_:
                values[:, j] = _codes(series, self.categories_[column])
            else:
                values[:, j] = series.to_numpy(dtype=float)
        return values


def _is_number(series: pd.Series) -> bool:
    """Whether a column is encoded as a number (numeric and not categorical)."""
    return pd.api.types.is_numeric_dtype(series) and not isinstance(series.dtype, pd.CategoricalDtype)


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
