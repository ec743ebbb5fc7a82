"""Rows edited in one feature score by the leaf tables' shortcut exactly as the same rows built and scored."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from recoursesim.scoring import tree_tables
from recoursesim.scoring.base import ScoresEdits, edited_rows, score_edits
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.linear import LinearScorer
from recoursesim.scoring.tabular import TabularModel, tabular_estimator
from recoursesim.scoring.tree_tables import BoostingTables, boosting_tables
from tests.scoring.test_boosting_tables import SCHEMA, _edge_rows, _fit, _label, _rows


def _edits(tables: BoostingTables, rng: np.random.Generator, m: int, n: int) -> tuple[np.ndarray, ...]:
    """``m`` base rows at split points and ``n`` edits of them, to values at, above and below split points."""
    base = _edge_rows(tables, rng, m)
    agent = rng.integers(0, m, n)
    column = rng.integers(0, base.shape[1], n)
    value = _edge_rows(tables, rng, n)[np.arange(n), column]
    value[column == 3] = rng.choice([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 2.6], size=int((column == 3).sum()))
    return base, agent, column, value


def _tables(model: TabularModel) -> BoostingTables:
    tables = boosting_tables(model.estimator_)
    assert tables is not None
    return tables


@pytest.mark.parametrize("params", [{}, {"max_leaf_nodes": 40}], ids=["32-bit masks", "64-bit masks"])
def test_edited_rows_score_as_the_rows_built(params: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_tables, "EDIT_BASE_ROWS", 64)  # the base rows' look-ups kept in several blocks
    model = _fit(seed=7, **params)
    tables = _tables(model)
    rng = np.random.default_rng(11)
    # edits in no particular order
    base, agent, column, value = _edits(tables, rng, 700, 20_000)
    rows = edited_rows(base, agent, column, value)
    assert np.array_equal(rows[0], np.where(np.arange(5) == column[0], value[0], base[agent[0]]))
    expected = model.estimator_.decision_function(rows)  # scikit-learn itself
    np.testing.assert_array_equal(tables.raw_edits(base, agent, column, value), expected)
    np.testing.assert_array_equal(tables.proba_edits(base, agent, column, value), model.estimator_.predict_proba(rows))
    for method in ("predict_proba", "decision_function"):
        edited = model.predict_edits(method, base, agent, column, value)
        np.testing.assert_array_equal(edited, getattr(model, method)(rows))


def test_an_edit_of_a_feature_no_split_tests_keeps_the_base_rows_score() -> None:
    rng = np.random.default_rng(3)
    X = _rows(rng, 2000)
    y = _label(X, rng)
    X[:, 1] = 7.0  # constant: no tree splits on "years"
    model = tabular_estimator(SCHEMA, HistGradientBoostingClassifier(max_iter=20, random_state=0)).fit(X, y)
    tables = _tables(model)
    assert 1 not in tables._place and 0 in tables._place
    base = _rows(rng, 50)
    agent = np.arange(50).repeat(2)
    column = np.tile([1, 0], 50)
    value = np.tile([30.0, 2.5], 50)
    raw = tables.raw_edits(base, agent, column, value)
    np.testing.assert_array_equal(raw, model.estimator_.decision_function(edited_rows(base, agent, column, value)))
    np.testing.assert_array_equal(raw[::2], tables.raw(base))


def test_missing_values_and_empty_edits() -> None:
    model = _fit(seed=2)
    tables = _tables(model)
    rng = np.random.default_rng(5)
    base, agent, column, value = _edits(tables, rng, 40, 300)
    missing = np.flatnonzero(column == 0)[::3]
    value[missing] = np.nan  # scikit-learn's rules for missing values apply
    expected = model.estimator_.decision_function(edited_rows(base, agent, column, value))
    np.testing.assert_array_equal(tables.raw_edits(base, agent, column, value), expected)
    base[3, 0] = np.nan
    value[missing] = 1.0
    expected = model.estimator_.decision_function(edited_rows(base, agent, column, value))
    np.testing.assert_array_equal(tables.raw_edits(base, agent, column, value), expected)
    none = np.zeros(0, dtype=np.int64)
    assert tables.raw_edits(base, none, none, np.zeros(0)).shape == (0,)


@pytest.mark.parametrize("output", ["proba", "decision"])
def test_a_classifier_scorer_scores_edits_as_it_scores_rows(output: str) -> None:
    model = _fit(seed=4)
    rng = np.random.default_rng(9)
    base, agent, column, value = _edits(_tables(model), rng, 300, 5000)
    rows = edited_rows(base, agent, column, value)
    scorer = ClassifierScorer(model, output=output)  # type: ignore[arg-type]
    assert isinstance(scorer, ScoresEdits)
    np.testing.assert_array_equal(scorer.score_edits(base, agent, column, value), scorer.score(rows))
    np.testing.assert_array_equal(score_edits(scorer, base, agent, column, value), scorer.score(rows))
    none = np.zeros(0, dtype=np.int64)
    assert scorer.score_edits(base, none, none, np.zeros(0)).shape == (0,)


def test_other_scorers_get_the_rows_built() -> None:
    rng = np.random.default_rng(1)
    X = _rows(rng, 400)
    logistic = tabular_estimator(SCHEMA, LogisticRegression(max_iter=500)).fit(X, _label(X, rng))
    base, agent = X[:30], rng.integers(0, 30, 200)
    column, value = rng.integers(0, 5, 200), rng.uniform(0, 4, 200).round()
    rows = edited_rows(base, agent, column, value)
    scorer = ClassifierScorer(logistic)
    np.testing.assert_array_equal(scorer.score_edits(base, agent, column, value), scorer.score(rows))
    linear = LinearScorer([1.0, -2.0, 0.5, 0.0, 3.0], intercept=0.25)
    assert not isinstance(linear, ScoresEdits)
    # hand-computed: row 0 of base with column 4 set to 1 and row 1 with column 0 set to 10
    two = np.array([[1.0, 2.0, 3.0, 0.0, 0.0], [4.0, 0.0, 1.0, 2.0, 1.0]])
    scores = score_edits(linear, two, np.array([0, 1]), np.array([4, 0]), np.array([1.0, 10.0]))
    np.testing.assert_array_equal(scores, [1.0 - 4.0 + 1.5 + 3.0 + 0.25, 10.0 + 0.5 + 3.0 + 0.25])


def test_all_positions_are_each_features_own_table_rows() -> None:
    tables = _tables(_fit(seed=3))
    X = _edge_rows(tables, np.random.default_rng(5), 200)
    X[:5, 3] = [-1.0, 4.0, 2.6, 0.4, 7.0]  # no such category (twice), rounded codes, far out
    at = tables._all_positions(X)
    assert {j for _, j, _, _ in tables._features} >= {3, 4}  # both categorical features are tested
    for kind, j, _, parameters in tables._features:
        np.testing.assert_array_equal(at[:, j], tree_tables._positions(kind, parameters, X[:, j]))
    np.testing.assert_array_equal(at[:5, 3], [4, 4, 3, 0, 4])  # 4 categories: row 4 means none
    untested = sorted(set(range(X.shape[1])) - {j for _, j, _, _ in tables._features})
    assert not at[:, untested].any()
