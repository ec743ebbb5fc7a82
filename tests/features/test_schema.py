"""FeatureSchema: encode/decode round trips, kinds from metadata, errors naming the field."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recoursesim.datasets import LOADERS, load_german
from recoursesim.errors import ConfigError, DataError
from recoursesim.features import DEFAULT_COLUMNS, FeatureSchema


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "income": [10.5, 20.0, 30.25],
            "children": [0, 2, 1],
            "education": ["secondary", "primary", "tertiary"],
            "sex": ["f", "m", "f"],
        }
    )


def _schema() -> FeatureSchema:
    table = {
        "income": "numeric",
        "children": "integer",
        "education": {"kind": "ordinal", "order": ["primary", "secondary", "tertiary"]},
        "sex": "categorical",
    }
    return FeatureSchema.from_table(_frame(), table)


def test_encode_gives_values_ranks_and_codes() -> None:
    codes = _schema().encode(_frame())
    expected = np.array([[10.5, 0, 1, 0], [20.0, 2, 0, 1], [30.25, 1, 2, 0]])
    np.testing.assert_array_equal(codes, expected)


def test_decode_restores_values_and_types() -> None:
    schema = _schema()
    back = schema.decode(schema.encode(_frame()))
    assert back["children"].dtype == np.int64
    assert isinstance(back["education"].dtype, pd.CategoricalDtype) and back["education"].cat.ordered
    assert list(back["sex"].cat.categories) == ["f", "m"]
    pd.testing.assert_frame_equal(back.astype(object), _frame().astype(object))


def test_ranges_are_observed() -> None:
    schema = _schema()
    np.testing.assert_array_equal(schema.lower, [10.5, 0, 0, 0])
    np.testing.assert_array_equal(schema.upper, [30.25, 2, 2, 1])


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_bundled_round_trip(name: str) -> None:
    data = LOADERS[name]()
    schema = FeatureSchema.from_dataset(data, DEFAULT_COLUMNS[name])
    frame = data.frame[list(schema.names)].dropna().head(500)
    codes = schema.encode(frame)
    np.testing.assert_array_equal(schema.encode(schema.decode(codes)), codes)


def test_german_kinds_from_metadata() -> None:
    schema = FeatureSchema.from_dataset(load_german())
    assert schema["duration"].kind == "integer"
    assert schema["present_employment"].kind == "ordinal"
    assert schema["present_employment"].categories[0] == "unemployed"
    assert schema["sex"].kind == "categorical" and schema["sex"].categories == ("female", "male")


def test_unknown_category_names_the_column() -> None:
    frame = _frame().assign(sex=["f", "x", "m"])
    with pytest.raises(DataError, match=r"^data\.sex: holds 'x'"):
        _schema().encode(frame)


def test_nan_names_the_column() -> None:
    frame = _frame().assign(income=[1.0, np.nan, 2.0])
    with pytest.raises(DataError, match=r"^data\.income: has 1 missing values"):
        _schema().encode(frame)


def test_ordinal_without_order_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^population\.feature_types\.education: is ordinal but has no order"):
        FeatureSchema.from_table(_frame(), {"education": "ordinal"})


def test_unknown_kind_and_column_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"^population\.feature_types\.income: unknown feature kind 'float'"):
        FeatureSchema.from_table(_frame(), {"income": "float"})
    with pytest.raises(ConfigError, match=r"^population\.feature_types\.wage: is not a column"):
        FeatureSchema.from_table(_frame(), {"wage": "numeric"})
