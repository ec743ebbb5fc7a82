"""Checks and adapters for the data and the model FACTS audits."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.metrics import TOLERANCE
from recoursesim.errors import ConfigError, DataError


def distinct_values(values: Any) -> tuple[float, ...]:
    """Return the sorted distinct values (equal within 1e-9 counts as one)."""
    ordered = np.sort(np.asarray([float(v) for v in values], dtype=float))
    if len(ordered) == 0:
        return ()
    keep = np.r_[True, np.diff(ordered) > TOLERANCE]
    return tuple(float(v) for v in ordered[keep])


def check_finite(X: pd.DataFrame, protected: str) -> None:
    """Raise for a missing protected value or an infinite number anywhere (missing features are allowed)."""
    missing = X[protected].isna().to_numpy()
    if missing.any():
        raise DataError(
            protected,
            f"the protected column has {int(missing.sum())} missing value(s), first at row {int(np.argmax(missing))}",
            "fill or drop those rows before auditing",
        )
    for column in X.columns:
        series = X[column]
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            bad = np.isinf(series.to_numpy(dtype=float))
            if bad.any():
                raise DataError(
                    f"column {column!r}",
                    f"has {int(bad.sum())} infinite value(s), first at row {int(np.argmax(bad))}",
                    "replace or drop them before auditing",
                )


class BinaryPredictor:
    """Call ``model.predict`` and return a boolean favourable-outcome array, checking binarity."""

    def __init__(self, model: Any, positive_label: object) -> None:
        if not hasattr(model, "predict"):
            raise ConfigError("model", f"{type(model).__name__} has no predict method", "pass a fitted classifier")
        self.model = model
        self.positive_label = positive_label
        self.seen: set = set()

    def __call__(self, frame: pd.DataFrame) -> np.ndarray:
        """Return True where ``model.predict(frame)`` is the favourable label."""
        return self.check(np.asarray(self.model.predict(frame)))

    def check(self, predictions: np.ndarray) -> np.ndarray:
        """Raise unless the predictions seen so far are binary; return the favourable mask."""
        distinct = set(pd.unique(predictions.ravel()).tolist()) | self.seen
        if len(distinct) > 2 or (len(distinct) == 2 and self.positive_label not in distinct):
            raise DataError(
                "predictions",
                f"the model's predictions are not binary with favourable label {self.positive_label!r} "
                f"(saw {sorted(distinct, key=str)[:5]})",
                "audit a binary classifier, or set positive_label to its favourable class",
            )
        self.seen = distinct
        return predictions == self.positive_label
