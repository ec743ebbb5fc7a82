"""Leaf tables score the built-in gradient boosting exactly as scikit-learn does, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from recoursesim.features import Feature, FeatureSchema
from recoursesim.scoring.encoding import builtin_pipeline
from recoursesim.scoring.tabular import TabularModel, tabular_estimator
from recoursesim.scoring.tree_tables import BoostingTables, boosting_tables

SCHEMA = FeatureSchema(
    [
        Feature("income", "numeric", (), 0.0, 10.0),
        Feature("years", "integer", (), 0.0, 40.0),
        Feature("level", "ordinal", ("a", "b", "c", "d", "e"), 0.0, 4.0),
        Feature("sector", "categorical", ("x", "y", "z", "w"), 0.0, 3.0),
        Feature("owner", "categorical", ("no", "yes"), 0.0, 1.0),
    ]
)


def _rows(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack(
        [
            rng.uniform(0, 10, n),
            rng.integers(0, 41, n),
            rng.integers(0, 5, n),
            rng.integers(0, 4, n),
            rng.integers(0, 2, n),
        ]
    ).astype(float)


def _label(X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    logit = 0.6 * X[:, 0] - 0.1 * X[:, 1] + (X[:, 3] == 2) * 2.0 - X[:, 4] + np.sin(X[:, 2]) - 2.0
    return (rng.random(X.shape[0]) < 1 / (1 + np.exp(-logit))).astype(int)


def _fit(seed: int = 0, **params: object) -> TabularModel:
    rng = np.random.default_rng(seed)
    X = _rows(rng, 3000)
    booster = HistGradientBoostingClassifier(max_iter=40, random_state=seed, **params)  # type: ignore[arg-type]
    return tabular_estimator(SCHEMA, booster).fit(X, _label(X, rng))


@pytest.fixture(scope="module")
def model() -> TabularModel:
    return _fit()


def _edge_rows(tables: BoostingTables, rng: np.random.Generator, n: int) -> np.ndarray:
    """Rows whose numbers sit exactly on, just above and just below the model's split points."""
    encoder = tables._encoder
    X = _rows(rng, n)
    linear = np.flatnonzero(~SCHEMA.is_categorical)
    for kind, j, _, parameters in tables._features:
        if kind == "number":
            thresholds, mean, scale = parameters
            at = thresholds * scale + mean
            values = np.concatenate([at, np.nextafter(at, np.inf), np.nextafter(at, -np.inf)])
            X[:, j] = rng.choice(values, size=n)
            assert float(encoder.mean_[list(linear).index(j)]) == mean
    return X


def test_tables_equal_scikit_learn_bit_for_bit(model: TabularModel) -> None:
    tables = boosting_tables(model.estimator_)
    assert tables is not None and tables.n_trees == model.estimator_[-1].n_iter_
    rng = np.random.default_rng(1)
    X = np.vstack([_rows(rng, 5000), _edge_rows(tables, rng, 5000)])
    X[:7, 3] = [-1, 4, 7, 2.4, 2.6, -0.4, 3.5]  # codes outside the categories and between them
    expected = model.estimator_.predict_proba(X)
    np.testing.assert_array_equal(tables.proba(X), expected)
    np.testing.assert_array_equal(tables.raw(X), model.estimator_.decision_function(X))
    np.testing.assert_array_equal(model.predict_proba(X), expected)  # the wrapper takes the tables' path


def test_rows_with_missing_values_are_scored_by_scikit_learn(model: TabularModel) -> None:
    tables = boosting_tables(model.estimator_)
    assert tables is not None
    X = _rows(np.random.default_rng(2), 300)
    X[::3, 0] = np.nan
    np.testing.assert_array_equal(tables.proba(X), model.estimator_.predict_proba(X))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-5, 15),
            st.integers(-3, 45),
            st.integers(0, 4),
            st.integers(-1, 5),
            st.integers(0, 1),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_any_rows_score_as_in_scikit_learn(rows: list[tuple[float, int, int, int, int]]) -> None:
    model = _MODEL
    X = np.asarray(rows, dtype=float)
    tables = boosting_tables(model.estimator_)
    assert tables is not None
    np.testing.assert_array_equal(tables.proba(X), model.estimator_.predict_proba(X))


_MODEL = _fit(seed=5, max_leaf_nodes=40)  # more than 32 leaves: 64-bit masks


def test_a_refit_model_gets_new_tables(model: TabularModel) -> None:
    other = _fit(seed=3)
    X = _rows(np.random.default_rng(4), 2000)
    first, second = boosting_tables(model.estimator_), boosting_tables(other.estimator_)
    assert first is not None and second is not None and first is not second
    np.testing.assert_array_equal(second.proba(X), other.estimator_.predict_proba(X))
    assert not np.array_equal(first.proba(X), second.proba(X))


def test_other_models_are_left_to_scikit_learn() -> None:
    rng = np.random.default_rng(0)
    X = _rows(rng, 500)
    logistic = builtin_pipeline(SCHEMA, LogisticRegression()).fit(X, _label(X, rng))
    assert boosting_tables(logistic) is None
    three = (X[:, 0] // 4).astype(int)  # three classes
    multiclass = builtin_pipeline(SCHEMA, HistGradientBoostingClassifier(max_iter=5)).fit(X, three)
    assert boosting_tables(multiclass) is None
    assert boosting_tables(HistGradientBoostingClassifier(max_iter=5).fit(X, three)) is None  # no encoder
