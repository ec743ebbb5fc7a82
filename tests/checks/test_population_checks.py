"""check_population finds broken population generators (each check can fail)."""

from __future__ import annotations

from typing import Any, Self

import numpy as np
import pandas as pd
import pytest

from recoursesim.checks import check_population
from recoursesim.checks.population import check_cohort_shape, check_deterministic, check_schema_codes
from recoursesim.populations import DatasetPopulation
from recoursesim.populations.base import Cohort


class _Broken:
    feature_names = ("x0", "x1")
    group_names = ("a", "b")

    def __init__(self, flaw: str) -> None:
        self.flaw = flaw

    def fit(self, rng: np.random.Generator) -> Self:
        return self

    def sample(self, n: int, rng: np.random.Generator) -> Cohort:
        features = rng.normal(size=(n, 2))
        group = np.zeros(n, dtype=np.int16)
        effort = np.ones(n)
        if self.flaw == "nan" and n:
            features[0, 0] = np.nan
        if self.flaw == "group" and n:
            group[0] = 2
        if self.flaw == "effort" and n:
            effort[0] = -1.0
        if self.flaw == "random":
            features = np.random.default_rng().normal(size=(n, 2))
        return Cohort(features, group, effort)


@pytest.mark.parametrize(
    ("flaw", "check", "message"),
    [
        ("nan", check_cohort_shape, "NaN or infinite features"),
        ("group", check_cohort_shape, "group codes outside"),
        ("effort", check_cohort_shape, "effort capacities"),
        ("random", check_deterministic, "same seed, different features"),
    ],
)
def test_flaws_are_found(flaw: str, check: Any, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check(lambda: _Broken(flaw), 0)


def test_a_schema_population_with_fractional_codes_is_found() -> None:
    class Fractional(DatasetPopulation):
        def sample(self, n: int, rng: np.random.Generator) -> Cohort:
            cohort = super().sample(n, rng)
            return Cohort(cohort.features + 0.5, cohort.group, cohort.effort)

    with pytest.raises(AssertionError, match="whole numbers"):
        check_schema_codes(lambda: Fractional("sex", dataset="german"), 0)


def test_user_file_population_passes(tmp_path) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=60), "k": rng.integers(0, 4, 60), "g": rng.choice(["u", "v"], 60)})
    frame["y"] = (frame["x"] > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    types = {"x": "numeric", "k": "integer", "g": "categorical"}
    check_population(lambda: DatasetPopulation("g", path=str(tmp_path / "d.csv"), target="y", feature_types=types))
