"""Integer codes for feature values, the items FACTS mines, and the per-feature change costs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.config import FactsConfig


@dataclass(frozen=True)
class ItemSpace:
    """Every feature's distinct values as integer codes, with change costs and feasibility.

    Attributes:
        features: Feature names, in column order.
        values: Per feature, its distinct values in order (ordinal order, numeric ascending, or
            sorted text); a code is an index into this array.
        codes: ``(n, d)`` int32 codes of the rows, -1 for a missing value.
        costs: Per feature, ``(k, k)`` cost of changing code ``u`` to code ``v`` (weight included).
        allowed: Per feature, ``(k, k)`` whether changing ``u`` to ``v`` is feasible.
        numeric: Per feature, whether the model sees it as a number.
        dtypes: Per feature, the pandas dtype to rebuild columns with.
    """

    features: tuple[str, ...]
    values: tuple[np.ndarray, ...]
    codes: np.ndarray
    costs: tuple[np.ndarray, ...]
    allowed: tuple[np.ndarray, ...]
    numeric: tuple[bool, ...]
    dtypes: tuple[object, ...]

    def label(self, feature: int, code: int) -> str:
        """Return ``"feature = value"`` for one item."""
        return f"{self.features[feature]} = {_text(self.values[feature][code])}"

    def frame(self, codes: np.ndarray) -> pd.DataFrame:
        """Rebuild a DataFrame (model input) from a code matrix."""
        columns = {}
        for j, name in enumerate(self.features):
            values = self.values[j]
            if self.numeric[j]:
                column = values[codes[:, j]]
                if (codes[:, j] < 0).any():
                    column = np.where(codes[:, j] >= 0, column, np.nan)
                else:
                    column = column.astype(self.dtypes[j], copy=False)
                columns[name] = column
            else:
                columns[name] = pd.Categorical.from_codes(codes[:, j], categories=pd.Index(values, dtype=object))
        return pd.DataFrame(columns)


def _text(value: object) -> str:
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def build_item_space(frame: pd.DataFrame, config: FactsConfig, immutable: set[str]) -> ItemSpace:
    """Encode ``frame`` (features only) and precompute change costs and feasibility.

    Args:
        frame: Feature columns.
        config: Cost types, weights, increase-only features and orders.
        immutable: Features that can never change (their ``allowed`` matrix is all False).

    Returns:
        The :class:`ItemSpace`.
    """
    features = tuple(frame.columns)
    values, codes, costs, allowed, numeric, dtypes = [], [], [], [], [], []
    for name in features:
        series = frame[name]
        kind = config.kind(name)
        is_numeric = pd.api.types.is_numeric_dtype(series) and not isinstance(series.dtype, pd.CategoricalDtype)
        present = pd.unique(series.dropna())
        order = config.ordinal_orders.get(name)
        if order is not None:
            ordered = [v for v in order if v in set(present.tolist())]
            extra = sorted(set(present.tolist()) - set(ordered), key=str)
            distinct = np.asarray(ordered + extra, dtype=object if not is_numeric else None)
        elif is_numeric:
            distinct = np.sort(present.astype(float) if series.dtype.kind == "f" else present)
        else:
            distinct = np.asarray(sorted(present.tolist(), key=str), dtype=object)
        index = pd.Index(distinct)
        code = index.get_indexer(series.to_numpy()).astype(np.int32)
        k = len(distinct)
        position = np.arange(k, dtype=float)
        if kind == "numerical":
            numbers = distinct.astype(float)
            span = float(numbers.max() - numbers.min()) or 1.0
            delta = np.abs(numbers[:, None] - numbers[None, :]) / span
        elif kind == "ordinal":
            delta = np.abs(position[:, None] - position[None, :])
        else:
            delta = (position[:, None] != position[None, :]).astype(float)
        ok = np.ones((k, k), dtype=bool)
        if name in immutable:
            ok[:] = False
        elif name in config.increase_only:
            ok = position[None, :] >= position[:, None]
        values.append(distinct)
        codes.append(code)
        costs.append(config.weight(name) * delta)
        allowed.append(ok)
        numeric.append(bool(is_numeric))
        dtypes.append(series.dtype if is_numeric else object)
    matrix = np.column_stack(codes) if codes else np.zeros((len(frame), 0), dtype=np.int32)
    return ItemSpace(
        features=features,
        values=tuple(values),
        codes=np.ascontiguousarray(matrix, dtype=np.int32),
        costs=tuple(costs),
        allowed=tuple(allowed),
        numeric=tuple(numeric),
        dtypes=tuple(dtypes),
    )
