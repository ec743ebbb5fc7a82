"""Dataset populations: disjoint training split, stratified bootstrap, groups, effort, bad input."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from recoursesim.errors import ConfigError, DataError
from recoursesim.populations import DatasetPopulation
from recoursesim.populations.dataset import _bundled


def _fitted(seed: int = 0, **kwargs: object) -> DatasetPopulation:
    params = {"group": "sex", "dataset": "german", **kwargs}
    return DatasetPopulation(**params).fit(np.random.default_rng(seed))  # type: ignore[arg-type]


def test_training_rows_and_pool_are_disjoint_and_cover_the_data() -> None:
    population = _fitted()
    train, pool = set(population.train_rows_.tolist()), set(population.pool_rows_.tolist())
    assert not train & pool
    assert len(train) + len(pool) == len(population.labels) == 1000
    assert len(train) == 500


def test_cohorts_come_from_the_pool_only() -> None:
    population = _fitted()
    cohort = population.sample(3000, np.random.default_rng(1))
    pool = {tuple(row) for row in population.codes[population.pool_rows_]}
    train_only = {tuple(row) for row in population.codes[population.train_rows_]} - pool
    drawn = {tuple(row) for row in cohort.features}
    assert drawn <= pool and not drawn & train_only


def test_stratified_cohort_follows_the_shares_exactly() -> None:
    population = _fitted(shares={"female": 0.5, "male": 0.5})
    cohort = population.sample(101, np.random.default_rng(2))
    assert np.bincount(cohort.group).tolist() == [51, 50]
    sex = population.schema.index("sex")
    female = population.schema["sex"].categories.index("female")
    assert np.all((cohort.features[:, sex] == female) == (cohort.group == 0))


def test_per_group_effort() -> None:
    effort = {"female": {"mean": 0.0, "sd": 0.0, "scale": 1.0}, "male": {"mean": 2.0, "sd": 0.0, "scale": 0.5}}
    cohort = _fitted(effort=effort).sample(50, np.random.default_rng(3))
    assert np.all(cohort.effort[cohort.group == 0] == 0.0)
    assert np.all(cohort.effort[cohort.group == 1] == 1.0)


def test_same_seed_same_population() -> None:
    a = _fitted(seed=5).sample(200, np.random.default_rng(9))
    b = _fitted(seed=5).sample(200, np.random.default_rng(9))
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_array_equal(a.effort, b.effort)


def test_adult_drops_rows_with_missing_values() -> None:
    population = DatasetPopulation("race", dataset="adult")
    assert len(population.labels) == 45222
    assert population.group_names == ("Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White")


def _csv(tmp_path, frame: pd.DataFrame) -> str:
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    return str(path)


def _people(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "income": rng.normal(30, 5, n).round(1),
            "level": rng.choice(["low", "mid", "high"], n),
            "sex": rng.choice(["f", "m"], n),
            "ok": rng.integers(0, 2, n),
        }
    )


TYPES = {"income": "numeric", "level": {"kind": "ordinal", "order": ["low", "mid", "high"]}, "sex": "categorical"}


def test_user_csv(tmp_path) -> None:
    population = DatasetPopulation("sex", path=_csv(tmp_path, _people()), target="ok", feature_types=TYPES)
    population.fit(np.random.default_rng(0))
    assert population.schema.names == ("income", "level", "sex")
    assert population.sample(10, np.random.default_rng(0)).features.shape == (10, 3)


def test_user_parquet_matches_csv(tmp_path) -> None:
    frame = _people()
    frame.to_parquet(tmp_path / "people.parquet")
    a = DatasetPopulation("sex", path=_csv(tmp_path, frame), target="ok", feature_types=TYPES)
    b = DatasetPopulation("sex", path=str(tmp_path / "people.parquet"), target="ok", feature_types=TYPES)
    np.testing.assert_array_equal(a.codes, b.codes)


def test_protected_column_not_in_the_data() -> None:
    with pytest.raises(ConfigError, match=r"^group: 'gender' is not a column of the data; fix: use one of status"):
        DatasetPopulation("gender", dataset="german")


def test_nan_in_a_needed_feature_of_a_user_file(tmp_path) -> None:
    frame = _people()
    frame.loc[3, "income"] = np.nan
    with pytest.raises(
        DataError, match=r"^feature_types\.income: column has 1 missing \(NaN\) value\(s\) in .*, first in data row 4"
    ):
        DatasetPopulation("sex", path=_csv(tmp_path, frame), target="ok", feature_types=TYPES)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dataset": "credit"}, r"^dataset: unknown data set 'credit'"),
        ({"dataset": "german", "path": "x.csv"}, r"^dataset: give exactly one of dataset, path and a DataFrame"),
        ({"train_fraction": 1.0}, r"^train_fraction: must be between 0 and 1"),
        ({"shares": {"female": 0.2, "male": 0.2}}, r"^shares: sum to 0.4, not 1"),
        ({"shares": {"other": 1.0}}, r"^shares\.other: is not a group"),
        ({"effort": {"female": {"mean": 1.0}}}, r"^effort\.male: is missing"),
        ({"features": ["duration", "height"]}, r"^features: 'height' is not a feature of german"),
        ({"group": "age"}, r"^group: 'age' has 53 distinct values"),
    ],
)
def test_bad_parameters_name_the_field(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DatasetPopulation(**{"group": "sex", "dataset": "german", **kwargs})


def test_user_file_errors(tmp_path) -> None:
    path = _csv(tmp_path, _people())
    with pytest.raises(ConfigError, match=r"^target: is required with user data"):
        DatasetPopulation("sex", path=path, feature_types=TYPES)
    with pytest.raises(DataError, match=r"^path: file .* not found"):
        DatasetPopulation("sex", path=str(tmp_path / "none.csv"), target="ok", feature_types=TYPES)
    with pytest.raises(DataError, match=r"^path: people.txt is neither CSV nor Parquet"):
        DatasetPopulation("sex", path=str(tmp_path / "people.txt"), target="ok", feature_types=TYPES)


def test_user_file_types_are_inferred_and_reported(tmp_path, caplog) -> None:
    path = _csv(tmp_path, _people().assign(children=lambda f: np.arange(len(f)) % 3))
    with caplog.at_level(logging.INFO, logger="recoursesim.data"):
        population = DatasetPopulation("sex", path=path, target="ok")
    assert population.inferred_types_ == {
        "income": "numeric", "level": "categorical", "sex": "categorical", "children": "integer"
    }  # fmt: skip
    assert population.schema.kinds == ("numeric", "categorical", "categorical", "integer")
    assert "inferred feature types: income numeric, level categorical, sex categorical, children integer" in caplog.text
    # The group column, a feature, is immutable by default; declared types override inferred ones.
    assert population.default_action_set == {"immutable": ["sex"]}
    ordered = {"level": {"kind": "ordinal", "order": ["low", "mid", "high"]}}
    population = DatasetPopulation("sex", path=path, target="ok", features=["income", "level"], feature_types=ordered)
    assert population.schema.kinds == ("numeric", "ordinal")
    assert population.inferred_types_ == {"income": "numeric"}
    assert population.default_action_set == {}


def test_inference_refuses_an_identifier_column(tmp_path) -> None:
    path = _csv(tmp_path, _people(80).assign(name=[f"person {i}" for i in range(80)]))
    with pytest.raises(ConfigError, match=r"^feature_types\.name: holds 80 distinct text values"):
        DatasetPopulation("sex", path=path, target="ok")


def test_a_dataframe_replaces_the_file_and_actions_add_to_the_defaults(tmp_path) -> None:
    frame = _people()
    population = DatasetPopulation("sex", data=frame, target="ok", actions={"immutable": ["level"]})
    assert population.default_action_set == {"immutable": ["sex", "level"]}
    assert population.codes.shape == (40, 3)
    with pytest.raises(ConfigError, match=r"^data_fingerprint: the scenario names a DataFrame given from Python"):
        DatasetPopulation("sex", data_fingerprint="abc", target="ok")
    with pytest.raises(ConfigError, match=r"^actions\.immutable: unknown feature 'height'"):
        DatasetPopulation("sex", data=frame, target="ok", actions={"immutable": ["height"]})


@pytest.mark.parametrize(
    ("dataset", "group", "features"),
    [
        ("german", "sex", None),
        ("german", "sex", ["duration", "purpose"]),
        ("adult", "race", None),
        ("compas", "race", None),
    ],
)
def test_a_bundled_data_set_is_encoded_once_as_a_fresh_encoding_would(dataset, group, features) -> None:
    kwargs = {"features": features} if features else {}
    first = DatasetPopulation(group=group, dataset=dataset, **kwargs)
    again = DatasetPopulation(group=group, dataset=dataset, **kwargs)
    assert again.codes is first.codes  # shared between populations, hence read-only
    assert not first.codes.flags.writeable
    bundled = _bundled(dataset)
    needed = [*first.schema.names, group, bundled.target]
    rows = bundled.frame.loc[~bundled.frame[needed].isna().any(axis=1)].reset_index(drop=True)
    assert len(rows) == len(first.labels) == first.codes.shape[0]
    np.testing.assert_array_equal(first.codes, first.schema.encode(rows, field="data"), strict=True)


def test_labelled_rows_and_test_split_are_typed_capabilities():
    """Every labelled row, and the applicant pool as the held-out split (``None`` before ``fit``)."""
    from recoursesim.features.capabilities import (
        NamesGroupColumn,
        OffersLabelledRows,
        OffersTestSplit,
        group_column_of,
    )
    from recoursesim.populations.bell2024 import Bell2024Population

    population = DatasetPopulation(dataset="german", group="sex")
    assert isinstance(population, OffersLabelledRows) and isinstance(population, OffersTestSplit)
    assert isinstance(population, NamesGroupColumn) and group_column_of(population) == "sex"
    features, labels = population.labelled_rows()
    assert features.dtype == np.float64 and labels.dtype == np.int64
    assert np.array_equal(features, population.codes) and np.array_equal(labels, population.labels)
    assert population.test_split() is None
    population.fit(np.random.default_rng(0))
    pool_features, pool_labels = population.test_split()
    assert np.array_equal(pool_features, population.codes[population.pool_rows_])
    assert np.array_equal(pool_labels, population.labels[population.pool_rows_])
    assert not np.isin(population.pool_rows_, population.train_rows_).any()  # never fitted on
    synthetic = Bell2024Population()
    assert not isinstance(synthetic, OffersLabelledRows | OffersTestSplit) and group_column_of(synthetic) is None
