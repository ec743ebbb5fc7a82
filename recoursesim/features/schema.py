"""Feature types of a tabular population and the float "code space" the engine keeps agents in.

The engine stores every agent's features as one row of a float ``(n, d)`` array. A
:class:`FeatureSchema` says what each column means and converts between that array and a
DataFrame in the data set's own values:

- ``numeric``: the value itself (float);
- ``integer``: the value itself (a whole number);
- ``ordinal``: the rank ``0 … m-1`` of the category in its order (lowest first);
- ``categorical``: the index ``0 … m-1`` of the category in its category list (a binary feature
  is a categorical feature with two categories).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError, DataError

#: The feature kinds a schema knows, in the order the docs list them.
KINDS: tuple[str, ...] = ("numeric", "integer", "ordinal", "categorical")


@dataclass(frozen=True)
class Feature:
    """One column of a :class:`FeatureSchema`.

    Attributes:
        name: Column name.
        kind: One of :data:`KINDS`.
        categories: Ordinal: the categories, lowest first; categorical: the categories (code =
            position); empty for numeric and integer features.
        lower: Smallest observed value in code space (``0`` for ordinal and categorical).
        upper: Largest observed value in code space (``m - 1`` for ordinal and categorical).
    """

    name: str
    kind: str
    categories: tuple[Any, ...] = ()
    lower: float = 0.0
    upper: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(self.name, f"unknown feature kind {self.kind!r}", f"use one of {', '.join(KINDS)}")
        if self.kind in ("ordinal", "categorical"):
            if len(self.categories) < 1:
                raise ConfigError(self.name, f"a {self.kind} feature needs its categories", "list its categories")
            if len(set(self.categories)) != len(self.categories):
                raise ConfigError(self.name, "lists a category twice", "list each category once")
        if not self.lower <= self.upper:
            raise ConfigError(self.name, f"has lower {self.lower} above upper {self.upper}", "give lower <= upper")

    @property
    def span(self) -> float:
        """The observed range in code space (``1`` when every value is the same)."""
        width = float(self.upper - self.lower)
        return width if width > 0 else 1.0


class FeatureSchema:
    """Ordered feature columns with their kinds, categories and observed ranges.

    Args:
        features: The columns, in code-space order.
    """

    def __init__(self, features: Sequence[Feature]) -> None:
        self.features = tuple(features)
        self.names = tuple(f.name for f in self.features)
        if len(set(self.names)) != len(self.names):
            raise ConfigError("schema", "names a feature twice", "give each column once")
        self.kinds = tuple(f.kind for f in self.features)
        kinds = np.asarray(self.kinds, dtype=object)
        self.is_numeric = kinds == "numeric"
        self.is_integer = kinds == "integer"
        self.is_ordinal = kinds == "ordinal"
        self.is_categorical = kinds == "categorical"
        #: Features whose code-space values are whole numbers (integer, ordinal, categorical).
        self.is_discrete = ~self.is_numeric
        self.lower = np.array([f.lower for f in self.features], dtype=float)
        self.upper = np.array([f.upper for f in self.features], dtype=float)
        self.span = np.array([f.span for f in self.features], dtype=float)
        self.n_categories = np.array([len(f.categories) for f in self.features], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.features)

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}:{f.kind}" for f in self.features)
        return f"FeatureSchema({inner})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FeatureSchema) and self.features == other.features

    def __hash__(self) -> int:
        return hash(self.features)

    def index(self, name: str, field: str = "feature") -> int:
        """Return the column position of ``name``, or raise naming ``field``."""
        if name not in self.names:
            raise ConfigError(field, f"unknown feature {name!r}", f"use one of {', '.join(self.names)}")
        return self.names.index(name)

    def __getitem__(self, name: str) -> Feature:
        return self.features[self.index(name)]

    # ------------------------------------------------------------------ construction

    @classmethod
    def numeric(
        cls, names: Sequence[str], lower: Sequence[float] | None = None, upper: Sequence[float] | None = None
    ) -> FeatureSchema:
        """All-numeric schema (the synthetic worlds); ranges default to ``[0, 1]``."""
        d = len(names)
        lo = [0.0] * d if lower is None else [float(v) for v in lower]
        hi = [1.0] * d if upper is None else [float(v) for v in upper]
        return cls([Feature(n, "numeric", (), a, b) for n, a, b in zip(names, lo, hi, strict=True)])

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        kinds: Mapping[str, str],
        orders: Mapping[str, Sequence[Any]] | None = None,
        field: str = "schema",
    ) -> FeatureSchema:
        """Build a schema for the columns named in ``kinds`` (in that order) from the data.

        Categories of categorical columns are the sorted distinct values (text order); an
        ordinal column takes its order from ``orders`` (every observed value must be in it);
        ranges are the observed minimum and maximum. Missing values are ignored here.

        Args:
            frame: The data.
            kinds: Column -> kind (one of :data:`KINDS`).
            orders: Ordinal column -> its categories, lowest first.
            field: Prefix of the field names in error messages.

        Raises:
            ConfigError: unknown column or kind, an ordinal column without an order.
            DataError: a value outside a declared order, a numeric column that is not numbers.
        """
        orders = dict(orders or {})
        features = []
        for name, kind in kinds.items():
            where = f"{field}.{name}"
            if name not in frame.columns:
                raise ConfigError(where, "is not a column of the data", f"use one of {', '.join(map(str, frame))}")
            if kind not in KINDS:
                raise ConfigError(where, f"unknown feature kind {kind!r}", f"use one of {', '.join(KINDS)}")
            values = frame[name].dropna()
            if kind in ("numeric", "integer"):
                features.append(_numeric_feature(where, name, kind, values))
            elif kind == "ordinal":
                if name not in orders:
                    raise ConfigError(where, "is ordinal but has no order", f"give {name}'s categories, lowest first")
                order = tuple(orders[name])
                unknown = sorted(set(values.unique().tolist()) - set(order), key=str)
                if unknown:
                    raise DataError(where, f"holds {unknown[0]!r}, not in its order", "add it to the order")
                features.append(Feature(name, kind, order, 0.0, float(len(order) - 1)))
            else:
                categories = tuple(sorted(values.unique().tolist(), key=str))
                if not categories:
                    raise DataError(where, "has no values", "drop the column or fill it")
                features.append(Feature(name, kind, categories, 0.0, float(len(categories) - 1)))
        return cls(features)

    @classmethod
    def from_dataset(cls, dataset: Any, columns: Sequence[str] | None = None) -> FeatureSchema:
        """Build the schema of a bundled :class:`~recoursesim.datasets.Dataset`.

        ``numerical`` columns become ``integer`` when their dtype is an integer type, else
        ``numeric``; ``binary`` becomes ``categorical``; ordinal orders come from the metadata.

        Args:
            dataset: The data set.
            columns: Feature columns to keep, in order (default: every feature).
        """
        names = list(dataset.features if columns is None else columns)
        kinds: dict[str, str] = {}
        for name in names:
            if name not in dataset.feature_types:
                raise ConfigError(
                    "features",
                    f"{name!r} is not a feature of {dataset.name}",
                    f"use some of {', '.join(dataset.features)}",
                )
            kind = dataset.feature_types[name]
            if kind == "numerical":
                kinds[name] = "integer" if pd.api.types.is_integer_dtype(dataset.frame[name]) else "numeric"
            else:
                kinds[name] = "categorical" if kind == "binary" else kind
        return cls.from_frame(dataset.frame, kinds, dataset.ordinal_orders, field="population.features")

    @classmethod
    def from_table(
        cls, frame: pd.DataFrame, table: Mapping[str, Any], field: str = "population.feature_types"
    ) -> FeatureSchema:
        """Build from a scenario table for a user file.

        Each entry is ``column = "kind"`` or ``column = {kind = "ordinal", order = [...]}``.

        Example::

            [population.feature_types]
            income = "numeric"
            children = "integer"
            education = { kind = "ordinal", order = ["primary", "secondary", "tertiary"] }
            sex = "categorical"
        """
        if not isinstance(table, Mapping) or not table:
            raise ConfigError(field, "must be a table of column = kind", f'write [{field}] with income = "numeric"')
        kinds: dict[str, str] = {}
        orders: dict[str, list[Any]] = {}
        for name, entry in table.items():
            where = f"{field}.{name}"
            if isinstance(entry, str):
                kinds[name] = entry
            elif isinstance(entry, Mapping):
                extra = sorted(set(entry) - {"kind", "order"})
                if extra or "kind" not in entry:
                    raise ConfigError(
                        where, "needs exactly kind (and order for ordinal)", 'write {kind = "ordinal", order = [...]}'
                    )
                kinds[name] = entry["kind"]
                if "order" in entry:
                    order = entry["order"]
                    if isinstance(order, str) or not isinstance(order, Sequence) or not order:
                        raise ConfigError(f"{where}.order", "must be a non-empty list", 'write order = ["low", "high"]')
                    orders[name] = list(order)
            else:
                raise ConfigError(where, f"must be a kind or a table, got {entry!r}", f"use one of {', '.join(KINDS)}")
        return cls.from_frame(frame, kinds, orders, field=field)

    # ------------------------------------------------------------------ conversion

    def encode(self, frame: pd.DataFrame, field: str = "data") -> np.ndarray:
        """Return the ``(n, d)`` float code-space array of ``frame``'s schema columns.

        Raises:
            DataError: a missing column, a missing value, or a category the schema does not know.
        """
        out = np.empty((len(frame), len(self.features)), dtype=float)
        for j, feature in enumerate(self.features):
            where = f"{field}.{feature.name}"
            if feature.name not in frame.columns:
                raise DataError(where, "is missing from the data", f"add column {feature.name!r}")
            column = frame[feature.name]
            if column.isna().any():
                raise DataError(
                    where, f"has {int(column.isna().sum())} missing values", "fill them or drop those rows first"
                )
            if feature.kind in ("numeric", "integer"):
                out[:, j] = np.asarray(column, dtype=float)
            else:
                values = column.to_numpy(dtype=object)
                codes = pd.Index(feature.categories).get_indexer(values)
                if (codes < 0).any():
                    bad = values[np.flatnonzero(codes < 0)[0]]
                    raise DataError(where, f"holds {bad!r}, not one of its categories", "map it to a known category")
                out[:, j] = codes
        return out

    def decode(self, codes: np.ndarray) -> pd.DataFrame:
        """Return the DataFrame of a code-space array in the data set's own values.

        Numeric columns are floats, integer columns ``int64`` (rounded), ordinal and categorical
        columns pandas ``Categorical`` (ordinal ones ordered). A NaN (a row without a value, such as
        the recommendation of a selected agent) stays missing: NaN, ``<NA>`` in a nullable
        ``Int64`` column, or a missing category. Vectorised over rows.
        """
        codes = np.asarray(codes, dtype=float)
        if codes.ndim != 2 or codes.shape[1] != len(self.features):
            expected = f"(n, {len(self.features)})"
            raise DataError(
                "features",
                f"has shape {codes.shape}, expected {expected}",
                f"pass one row of {len(self.features)} code-space values per agent",
            )  # fmt: skip
        columns: dict[str, Any] = {}
        for j, feature in enumerate(self.features):
            values = codes[:, j]
            missing = np.isnan(values)
            if feature.kind == "numeric":
                columns[feature.name] = values.copy()
                continue
            whole = np.rint(np.where(missing, 0.0, values)).astype(np.int64)
            if feature.kind == "integer":
                columns[feature.name] = pd.arrays.IntegerArray(whole, missing) if missing.any() else whole
            else:
                index = np.where(missing, -1, np.clip(whole, 0, len(feature.categories) - 1))
                dtype = pd.CategoricalDtype(list(feature.categories), ordered=feature.kind == "ordinal")
                columns[feature.name] = pd.Categorical.from_codes(index, dtype=dtype)
        return pd.DataFrame(columns)


def _numeric_feature(where: str, name: str, kind: str, values: pd.Series) -> Feature:
    """A numeric or integer feature ranging over the observed values (missing values dropped)."""
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise DataError(where, f"is declared {kind} but holds non-numbers", "declare it categorical")
    numbers = values.to_numpy(dtype=float)
    if kind == "integer" and not np.all(numbers == np.round(numbers)):
        raise DataError(where, "is declared integer but holds fractions", "declare it numeric")
    lo, hi = (float(numbers.min()), float(numbers.max())) if numbers.size else (0.0, 0.0)
    return Feature(name, kind, (), lo, hi)
