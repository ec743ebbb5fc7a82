"""Turn a typed table (numerical, ordinal, binary, categorical columns) into generator inputs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from recoursesim.errors import ConfigError, DataError

#: Feature types understood by :func:`encode_table`.
KNOWN_TYPES = ("numerical", "ordinal", "binary", "categorical")
#: Category used for missing values of a categorical feature.
MISSING = "missing"


class FeatureKinds(TypedDict):
    """The generator's description of the encoded features (see :meth:`EncodedTable.generator_kwargs`)."""

    continuous: list[str]
    ordinal: list[str]
    binary: list[str]
    onehot_groups: list[list[str]]


@dataclass(frozen=True)
class EncodedTable:
    """A table encoded for :func:`~recoursesim.auditors.ccm.generate_counterfactuals`.

    Attributes:
        frame: The sensitive column (raw group values), the label and the encoded features.
        sensitive: The sensitive column.
        label: The label column.
        continuous: Numerical feature columns.
        ordinal: Integer-coded ordinal columns.
        binary: 0/1 columns.
        onehot_groups: One block of indicator columns per categorical feature.
        binary_values: The original value coded 0 and the one coded 1, per binary column.
    """

    frame: pd.DataFrame
    sensitive: str
    label: str
    continuous: list[str] = field(default_factory=list)
    ordinal: list[str] = field(default_factory=list)
    binary: list[str] = field(default_factory=list)
    onehot_groups: list[list[str]] = field(default_factory=list)
    binary_values: dict[str, tuple] = field(default_factory=dict)

    @property
    def features(self) -> list[str]:
        """Encoded feature columns (the sensitive attribute excluded)."""
        return [*self.continuous, *self.ordinal, *self.binary, *(c for b in self.onehot_groups for c in b)]

    def generator_kwargs(self) -> FeatureKinds:
        """Keyword arguments describing the features to the generator."""
        return {
            "continuous": self.continuous,
            "ordinal": self.ordinal,
            "binary": self.binary,
            "onehot_groups": self.onehot_groups,
        }


def _numbers(column: str, values: pd.Series) -> np.ndarray:
    """A numerical column as floats (missing cells NaN); a cell that is not a number is refused, not made NaN."""
    numbers = pd.to_numeric(values, errors="coerce")
    text = numbers.isna() & values.notna()
    if text.any():
        row = int(np.flatnonzero(text.to_numpy())[0])
        raise DataError(
            column,
            f"is numerical but holds {int(text.sum())} cell(s) that are not numbers, first {values.iloc[row]!r} "
            f"(data row {row + 1})",
            f"correct those cells, or declare the column categorical (--types {column}=categorical)",
        )
    return numbers.to_numpy(dtype=float)


def encode_table(
    frame: pd.DataFrame,
    feature_types: Mapping[str, str],
    sensitive: str,
    label: str,
    ordinal_orders: Mapping[str, Sequence] | None = None,
    features: Sequence[str] | None = None,
) -> EncodedTable:
    """Encode a typed table for counterfactual generation.

    Numerical columns stay numeric (NaN kept), ordinal columns become codes of their order,
    binary columns become 0/1 (sorted values), categorical columns become one-hot blocks (NaN is
    its own category ``"missing"``; single-category columns are dropped as constant).

    Args:
        frame: The data, with the sensitive attribute and a binary 0/1 label.
        feature_types: Type of each feature column.
        sensitive: The sensitive attribute (kept raw as the group).
        label: The label column.
        ordinal_orders: Category order of ordinal columns (lowest first); numeric ordinals may omit it.
        features: Features to keep (default: every typed column but the sensitive one and the label).

    Returns:
        The encoded table.

    Raises:
        ConfigError: An unknown feature type or an untyped feature.
        DataError: Missing columns, a non-binary label, or values outside an ordinal order.
    """
    orders = dict(ordinal_orders or {})
    _check_label_and_groups(frame, sensitive, label)
    chosen = [c for c in feature_types if c not in (sensitive, label)] if features is None else list(features)
    out = {sensitive: frame[sensitive].to_numpy(), label: frame[label].to_numpy(dtype=np.int64)}
    enc = EncodedTable(pd.DataFrame(), sensitive, label)
    for column in chosen:
        if column not in frame.columns:
            raise DataError("features", f"{column!r} is not a column of the data", f"use some of {list(frame.columns)}")
        kind = feature_types.get(column)
        if kind not in KNOWN_TYPES:
            raise ConfigError(
                f"feature_types.{column}", f"unknown feature type {kind!r}", f"use one of {', '.join(KNOWN_TYPES)}"
            )
        values = frame[column]
        if kind == "numerical":
            out[column] = _numbers(column, values)
            enc.continuous.append(column)
        elif kind == "ordinal":
            out[column] = _ordinal_codes(column, values, orders.get(column))
            enc.ordinal.append(column)
        elif kind == "binary":
            pair = _binary_values(column, values)
            if pair is None:
                continue
            out[column] = (values == pair[1]).to_numpy(dtype=np.int64)
            enc.binary.append(column)
            enc.binary_values[column] = pair
        else:
            filled = values.astype(object).where(values.notna(), MISSING).astype(str)
            categories = sorted(filled.unique())
            if len(categories) < 2:
                continue
            block = [f"{column}={c}" for c in categories]
            for name, category in zip(block, categories, strict=True):
                out[name] = (filled == category).to_numpy(dtype=np.int64)
            enc.onehot_groups.append(block)
    return replace(enc, frame=pd.DataFrame(out, index=frame.index))


def _check_label_and_groups(frame: pd.DataFrame, sensitive: str, label: str) -> None:
    """Refuse a missing sensitive or label column, a label that is not 0/1, or fewer than two complete groups."""
    for option, column in (("sensitive", sensitive), ("label", label)):
        if column not in frame.columns:
            raise DataError(option, f"{column!r} is not a column of the data", f"use one of {list(frame.columns)}")
    y = frame[label]
    if y.isna().any() or not y.isin([0, 1]).all():
        raise DataError(label, "must be a binary 0/1 label without missing values", "binarise it (1 = favourable)")
    if frame[sensitive].isna().any():
        raise DataError(sensitive, "has missing values", "drop those rows or give them a group")
    if frame[sensitive].nunique() < 2:
        raise DataError(sensitive, "has a single value", "audit an attribute with two or more groups")


def _binary_values(column: str, values: pd.Series) -> tuple[object, object] | None:
    """A binary feature's two values (sorted as text), or ``None`` for a constant column (dropped)."""
    distinct = sorted(values.dropna().unique().tolist(), key=str)
    if values.isna().any() or len(distinct) > 2:
        raise DataError(
            column,
            "a binary feature must have at most two values and no NaN",
            "declare it categorical (--types COL=categorical), or drop the rows with other values",
        )
    return None if len(distinct) < 2 else (distinct[0], distinct[1])


def _ordinal_codes(column: str, values: pd.Series, order: Sequence | None) -> np.ndarray:
    if order is None:
        codes = pd.to_numeric(values, errors="coerce")
        if codes[values.notna()].isna().any():
            raise DataError(column, "an ordinal feature without an order must be numeric", "pass ordinal_orders")
        return codes.to_numpy(dtype=float)
    lookup = {v: k for k, v in enumerate(order)}
    unknown = sorted({str(v) for v in values.dropna() if v not in lookup})
    if unknown:
        raise DataError(column, f"has values outside its order: {unknown[:5]}", "extend ordinal_orders")
    return values.map(lookup).to_numpy(dtype=float)


def logistic_model(table: EncodedTable, *, include_sensitive: bool = True, max_iter: int = 1000) -> Pipeline:
    """An unfitted logistic regression reading the encoded features (and the one-hot group).

    Missing values are imputed with the median; features are standardised.

    Args:
        table: The encoded table.
        include_sensitive: Let the model read the sensitive attribute.
        max_iter: Solver iterations.

    Returns:
        A scikit-learn pipeline accepting ``table.frame`` columns.
    """
    numeric = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
    parts = [("features", numeric, table.features)]
    if include_sensitive:
        parts.insert(0, ("sensitive", OneHotEncoder(handle_unknown="ignore"), [table.sensitive]))
    return make_pipeline(ColumnTransformer(parts), LogisticRegression(max_iter=max_iter))
