"""Shared pieces of the real-data tests: a small recourse generator used only here."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from recoursesim.component import Component
from recoursesim.features import CostModel, FeatureSchema, MixedActionSet


class RandomLegalRecourse(Component):
    """Recommend a random legal move (tests only): exercises the engine without a real generator."""

    def __init__(self, schema: FeatureSchema, spec: dict[str, Any] | None = None, seed: int = 0) -> None:
        self.actions = MixedActionSet.from_spec(schema, spec)
        self.costs = CostModel(schema)
        self.rng = np.random.default_rng(seed)

    def recommend(self, features: np.ndarray, scores: np.ndarray, threshold: Any, scorer: Any) -> np.ndarray:
        spread = self.actions.schema.span
        candidate = features + self.rng.normal(0.0, 0.3, features.shape) * spread
        return self.actions.legalise(features, candidate)

    def cost(self, moves: np.ndarray) -> np.ndarray:
        return self.costs.cost(moves)


@pytest.fixture(scope="session")
def random_legal_recourse() -> type[RandomLegalRecourse]:
    """The test-only generator class."""
    return RandomLegalRecourse
