"""CostModel against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from recoursesim.errors import ConfigError
from recoursesim.features import CostModel, Feature, FeatureSchema


def _schema() -> FeatureSchema:
    return FeatureSchema(
        [
            Feature("income", "numeric", (), 0.0, 50.0),
            Feature("children", "integer", (), 0.0, 4.0),
            Feature("education", "ordinal", ("a", "b", "c", "d", "e"), 0.0, 4.0),
            Feature("sector", "categorical", ("x", "y", "z"), 0.0, 2.0),
        ]
    )


def test_cost_by_hand() -> None:
    moves = np.array([[10.0, 0, 0, 0], [0, -2, 0, 0], [0, 0, 3, 0], [0, 0, 0, -2], [5.0, 1, -1, 1]])
    # 10/50; 2/4; 3/4; one switch; 5/50 + 1/4 + 1/4 + 1
    expected = [0.2, 0.5, 0.75, 1.0, 0.1 + 0.25 + 0.25 + 1.0]
    np.testing.assert_allclose(CostModel(_schema()).cost(moves), expected)


def test_weights_multiply() -> None:
    model = CostModel(_schema(), {"income": 2.0, "sector": 3.0})
    np.testing.assert_allclose(model.cost(np.array([[10.0, 0, 0, 2]])), [2 * 0.2 + 3.0])
    assert model.cost(np.zeros((1, 4))).dtype == np.float64


def test_facts_weights_price_ordinal_steps_alike() -> None:
    weights = CostModel(_schema(), {"education": 2.0}).facts_weights()
    assert weights["education"] == pytest.approx(2.0 / 4)
    assert weights["sector"] == 1.0


def test_unknown_feature_and_negative_weight_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"^weights\.wage: unknown feature 'wage'"):
        CostModel(_schema(), {"wage": 1.0})
    with pytest.raises(ConfigError, match=r"^weights\.income: must be >= 0"):
        CostModel(_schema(), {"income": -1.0})
