"""Scikit-learn models on mixed-type populations: built-ins, user pipelines, encoding, errors."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from recoursesim.errors import ConfigError
from recoursesim.features import Feature, FeatureSchema
from recoursesim.populations import DatasetPopulation, MixturePopulation
from recoursesim.registry import build
from recoursesim.scoring import MODELS, CodeEncoder, ModelScorer, scorer_from_estimator


@pytest.fixture(scope="module")
def population() -> DatasetPopulation:
    return DatasetPopulation("sex", dataset="german").fit(np.random.default_rng(0))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_builtin_is_fitted_on_the_training_rows_only(population: DatasetPopulation, name: str) -> None:
    scorer = ModelScorer(name).prepare(population, np.random.default_rng(0))
    encoder = scorer.estimator.estimator_.named_steps["encode"]
    train = population.codes[population.train_rows_]
    linear = ~population.schema.is_categorical
    np.testing.assert_allclose(encoder.mean_, train[:, linear].mean(axis=0))
    scores = scorer.score(population.codes[population.pool_rows_])
    assert scores.shape == (population.pool_rows_.size,) and np.all((scores >= 0) & (scores <= 1))


def test_same_seed_same_model(population: DatasetPopulation) -> None:
    rows = population.codes[:50]
    a = ModelScorer("random_forest").prepare(population, np.random.default_rng(3)).score(rows)
    b = ModelScorer("random_forest").prepare(population, np.random.default_rng(3)).score(rows)
    np.testing.assert_array_equal(a, b)


def test_code_encoder_by_hand() -> None:
    schema = FeatureSchema(
        [Feature("x", "numeric", (), 0.0, 4.0), Feature("c", "categorical", ("a", "b", "c"), 0.0, 2.0)]
    )
    X = np.array([[0.0, 2.0], [4.0, 0.0]])
    out = CodeEncoder(schema).fit(X).transform(X)
    np.testing.assert_array_equal(out, [[0, 0, 1, -1], [1, 0, 0, 1]])


def test_user_pipeline_on_a_dataframe(population: DatasetPopulation) -> None:
    schema = population.schema
    categorical = [f.name for f in schema.features if f.kind in ("categorical", "ordinal")]
    scaler = StandardScaler()
    pipeline = Pipeline(
        [
            (
                "encode",
                ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), categorical)], remainder=scaler),
            ),
            ("model", LogisticRegression()),
        ]
    )
    frame = schema.decode(population.codes[population.train_rows_])
    pipeline.fit(frame, population.labels[population.train_rows_])
    scorer = scorer_from_estimator(pipeline, schema)
    rows = population.codes[population.pool_rows_[:40]]
    np.testing.assert_allclose(scorer.score(rows), pipeline.predict_proba(schema.decode(rows))[:, 1])


def test_unknown_model_names_the_field() -> None:
    with pytest.raises(ConfigError, match=r"^scorer\.model: unknown model 'xgboost'; fix: use one of logistic"):
        build("scorer", {"name": "model", "model": "xgboost"})


def test_bad_model_parameter_names_the_field() -> None:
    with pytest.raises(ConfigError, match=r"^scorer\.params\.depth: .*; fix: use one of its parameters: C, "):
        build("scorer", {"name": "model", "model": "logistic", "params": {"depth": 3}})


def test_needs_a_dataset_population() -> None:
    mixture = MixturePopulation([{"name": "a", "share": 1.0, "qualification": [{"means": [0.0]}]}])
    with pytest.raises(ConfigError, match=r"^scorer\.name: 'model' is fitted on a dataset population"):
        ModelScorer("logistic").prepare(mixture, np.random.default_rng(0))


@pytest.mark.parametrize("name", ["random_forest", "logistic"])  # gradient boosting: test_boosting_tables.py
def test_large_batches_are_scored_in_blocks_with_the_same_result(
    population: DatasetPopulation, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recoursesim.scoring import tabular

    scorer = ModelScorer(name).prepare(population, np.random.default_rng(0))
    rows = population.codes[population.pool_rows_]
    whole = scorer.estimator.estimator_.predict_proba(rows)
    calls = []
    pipeline = scorer.estimator.estimator_
    original = pipeline.predict_proba
    monkeypatch.setattr(pipeline, "predict_proba", lambda X: calls.append(len(X)) or original(X))
    monkeypatch.setattr(tabular, "PREDICT_BATCH_ROWS", 64)
    np.testing.assert_allclose(scorer.estimator.predict_proba(rows), whole, rtol=1e-12, atol=1e-15)
    assert max(calls) == 64 and sum(calls) == len(rows) and len(calls) == -(-len(rows) // 64)


def test_gradient_boosting_stops_early_on_small_training_sets(population: DatasetPopulation) -> None:
    scorer = ModelScorer("gradient_boosting").prepare(population, np.random.default_rng(0))
    model = scorer.estimator.estimator_.named_steps["model"]
    assert model.early_stopping is True and model.n_iter_ < model.max_iter  # 500 training rows
    full = ModelScorer("gradient_boosting", params={"early_stopping": False}).prepare(
        population, np.random.default_rng(0)
    )
    assert full.estimator.estimator_.named_steps["model"].n_iter_ == 100
