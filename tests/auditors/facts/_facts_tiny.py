"""A tiny discrete data set and lookup-table models for FACTS tests."""

import itertools

import numpy as np
import pandas as pd

from recoursesim.auditors.facts import FactsConfig

LEVELS = {"a": ["a0", "a1", "a2"], "b": ["lo", "mid", "hi"], "c": ["c0", "c1"]}
CONFIG = FactsConfig(
    feature_types={"a": "categorical", "b": "ordinal", "c": "categorical", "s": "categorical"},
    weights={"a": 1.0, "b": 2.0, "c": 3.0},
    increase_only=("b",),
    ordinal_orders={"b": LEVELS["b"]},
)
COMBOS = list(itertools.product(*LEVELS.values()))


def tiny_frame(rng: np.random.Generator, n: int = 80) -> pd.DataFrame:
    frame = pd.DataFrame({name: rng.choice(values, size=n) for name, values in LEVELS.items()})
    frame["s"] = rng.choice(["F", "M"], size=n)
    return frame


class TableModel:
    """Positive iff the (a, b, c) combination is in ``positive`` (ignores s): not additive."""

    def __init__(self, positive: set[tuple[str, str, str]]) -> None:
        self.positive = positive
        self.calls = 0

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        self.calls += 1
        keys = zip(frame["a"].astype(str), frame["b"].astype(str), frame["c"].astype(str), strict=True)
        return np.fromiter((k in self.positive for k in keys), dtype=np.int64, count=len(frame))


#: A fixed non-additive rule: (a1 and hi) or (c1 and mid) or (a2, hi, c0).
FIXED = TableModel(
    {combo for combo in COMBOS if (combo[0] == "a1" and combo[1] == "hi") or (combo[2] == "c1" and combo[1] == "mid")}
    | {("a2", "hi", "c0")}
)
