"""The package's one encoding of rows for its models: one-hot categories, standardised numbers.

:class:`OneHotStandardiser` holds the encoding and the reading of a linear model fitted on it as
terms of the raw columns. Its two users differ only in where the columns' categories come from:

- :class:`CodeEncoder` (the built-in decision models) takes code-space rows and the categories of
  a :class:`~recoursesim.features.schema.FeatureSchema`, so every fit encodes the same columns;
- :class:`~recoursesim.auditors.facts.models.FrameEncoder` (the models FACTS audits) takes a data
  frame and learns each non-numeric column's categories from the data.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline

from recoursesim.features.schema import FeatureSchema
from recoursesim.scoring.base import standardised_terms


@dataclass(frozen=True)
class ColumnTerms:
    """A linear model on the encoding, read as one term per raw column.

    The margin of a row ``x`` is ``constant + Σ_j term_j(x_j)``, where a categorical column's term
    is ``blocks[j][code]`` (0 for a code the encoding leaves all-zero) and a number's is
    ``slopes[j] * x_j``.

    Attributes:
        blocks: Per input column, the coefficient of each category (empty for a number).
        slopes: Per input column, the margin per raw unit (0 for a categorical column).
        constant: The margin of a row whose numbers are all 0 and whose categories are all unknown.
    """

    blocks: tuple[np.ndarray, ...]
    slopes: np.ndarray
    constant: float


class OneHotStandardiser(TransformerMixin, BaseEstimator, ABC):
    """One-hot encode categorical columns (given as codes) and standardise the others.

    A categorical column holds codes ``0 .. m-1``; a code outside that range (or NaN) encodes as
    an all-zero block. Every other column is centred and scaled to unit variance (a constant
    column is only centred). Subclasses say, at fit time, which columns are numbers and how many
    categories each other column has (:meth:`_layout`; a column with none encodes as no output
    column), and turn their input into such a matrix (:meth:`to_codes`).

    Attributes:
        numeric_: Per input column, whether it is a number (standardised) rather than categorical.
        sizes_: Per input column, its number of categories (0 for a number).
        mean_: The means of the numeric columns, in column order.
        scale_: Their standard deviations (1 where a column is constant).
        starts_: Per input column, its first output column.
        n_features_out_: The width of the encoding.
    """

    #: Put every one-hot block before the standardised columns (else each column's output sits in input order).
    categorical_first = True
    #: Return a CSR matrix instead of an array.
    sparse_output = False

    @abstractmethod
    def _layout(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Per input column: whether it is a number, and its number of categories; may learn from ``X``."""

    def to_codes(self, X: Any) -> np.ndarray:
        """``X`` as the float matrix this encoding reads: category codes and numbers."""
        return np.asarray(X, dtype=float)

    def fit(self, X: Any, y: Any = None) -> Self:
        """Learn the layout and the numeric columns' means and scales."""
        numeric, sizes = self._layout(X)
        self.numeric_ = np.asarray(numeric, dtype=bool)
        self.sizes_ = np.where(self.numeric_, 0, np.asarray(sizes, dtype=np.int64))
        numbers = self.to_codes(X)[:, self.numeric_]
        width = numbers.shape[1]
        self.mean_ = numbers.mean(axis=0) if numbers.shape[0] else np.zeros(width)
        sd = numbers.std(axis=0) if numbers.shape[0] else np.ones(width)
        self.scale_ = np.where(sd > 0, sd, 1.0)
        widths = np.where(self.numeric_, 1, self.sizes_)
        order = np.argsort(self.numeric_, kind="stable") if self.categorical_first else np.arange(widths.size)
        starts = np.empty(widths.size, dtype=np.int64)
        starts[order] = np.concatenate([[0], np.cumsum(widths[order])[:-1]]).astype(np.int64)
        self.starts_ = starts
        self.n_features_out_ = int(widths.sum())
        return self

    def transform(self, X: Any) -> np.ndarray | sparse.csr_matrix:
        """Encode ``X``: one block of indicators per categorical column, one standardised column per number."""
        values = self.to_codes(X)
        categorical, numeric = np.flatnonzero(~self.numeric_), np.flatnonzero(self.numeric_)
        with np.errstate(invalid="ignore"):  # NaN or a huge value: no category, an all-zero block
            codes = np.rint(values[:, categorical]).astype(np.int64)
        known = (codes >= 0) & (codes < self.sizes_[categorical])
        scaled = (values[:, numeric] - self.mean_) / self.scale_
        n, width = values.shape[0], self.n_features_out_
        if self.sparse_output:
            return self._sparse(n, codes, known, scaled, np.concatenate([categorical, numeric]))
        out = np.zeros((n, width))
        if categorical.size:
            # one flat position per (row, categorical column): row * width of out + column of the code
            flat = np.arange(0, n * width, width)[:, None] + self.starts_[categorical] + codes
            out.reshape(-1)[flat[known]] = 1.0
        if numeric.size:
            columns = self.starts_[numeric]
            contiguous = bool(np.all(np.diff(columns) == 1))
            out[:, slice(columns[0], columns[-1] + 1) if contiguous else columns] = scaled
        return out

    def _sparse(
        self, n: int, codes: np.ndarray, known: np.ndarray, scaled: np.ndarray, columns: np.ndarray
    ) -> sparse.csr_matrix:
        """The encoding as CSR: one stored entry per number and per known category, in output order.

        ``columns`` lists the input columns of ``codes`` then of ``scaled``.
        """
        starts = self.starts_[columns]
        position = starts + np.concatenate([codes, np.zeros(scaled.shape, dtype=np.int64)], axis=1)
        value = np.concatenate([np.ones(codes.shape), scaled], axis=1)
        keep = np.concatenate([known, np.ones(scaled.shape, dtype=bool)], axis=1)
        order = np.argsort(starts, kind="stable")
        position, value, keep = position[:, order], value[:, order], keep[:, order]
        indptr = np.concatenate([[0], np.cumsum(keep.sum(axis=1))]).astype(np.int64)
        return sparse.csr_matrix((value[keep], position[keep], indptr), shape=(n, self.n_features_out_))

    def column_terms(self, coef: np.ndarray, intercept: Any) -> ColumnTerms:
        """Read a linear model fitted on this encoding as terms of the raw columns.

        Args:
            coef: The model's coefficients (one row, ``n_features_out_`` wide).
            intercept: The model's intercept (a scalar or a one-entry array).
        """
        weights = np.asarray(coef, dtype=float).reshape(-1)
        if weights.size != self.n_features_out_:
            raise ValueError(f"coef has {weights.size} entries; one row of {self.n_features_out_} is expected")
        categorical, numeric = np.flatnonzero(~self.numeric_), np.flatnonzero(self.numeric_)
        spans = [np.arange(self.starts_[j], self.starts_[j] + self.sizes_[j]) for j in categorical]
        order = np.concatenate([*spans, self.starts_[numeric]]).astype(np.int64)
        sizes = [int(self.sizes_[j]) for j in categorical]
        block_list, slope, constant = standardised_terms(weights[order], intercept, sizes, self.mean_, self.scale_)
        blocks = [np.zeros(0)] * self.sizes_.size
        for j, block in zip(categorical, block_list, strict=True):
            blocks[j] = block
        slopes = np.zeros(self.sizes_.size)
        slopes[numeric] = slope
        return ColumnTerms(tuple(blocks), slopes, constant)


class CodeEncoder(OneHotStandardiser):
    """Encode code-space rows for a model: ``[one-hot of each categorical column | standardised others]``.

    The categories come from the schema, so every fit encodes the same columns whatever the
    sample; numeric, integer and ordinal columns are standardised.

    Args:
        schema: The feature schema.
    """

    def __init__(self, schema: FeatureSchema | None = None) -> None:
        self.schema = schema

    def _layout(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        assert self.schema is not None
        return ~self.schema.is_categorical, self.schema.n_categories


def builtin_pipeline(schema: FeatureSchema, classifier: Any) -> Pipeline:
    """The pipeline of the built-in models: :class:`CodeEncoder`, then ``classifier``."""
    return Pipeline([("encode", CodeEncoder(schema)), ("model", classifier)])
