"""MixedActionSet: hypothesis properties over random schemas and action sets, plus error messages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.errors import ConfigError
from recoursesim.features import Feature, FeatureSchema, MixedActionSet

KIND = st.sampled_from(["numeric", "integer", "ordinal", "categorical"])


@st.composite
def worlds(draw: st.DrawFn) -> tuple[MixedActionSet, np.ndarray, np.ndarray]:
    """A random schema, a random action set on it, agents inside the range and wild candidates."""
    d = draw(st.integers(1, 5))
    features = []
    for j in range(d):
        kind = draw(KIND)
        if kind in ("ordinal", "categorical"):
            m = draw(st.integers(1, 5))
            features.append(Feature(f"f{j}", kind, tuple(f"c{i}" for i in range(m)), 0.0, float(m - 1)))
        else:
            lo = float(draw(st.integers(-5, 5)))
            features.append(Feature(f"f{j}", kind, (), lo, lo + draw(st.integers(0, 10))))
    schema = FeatureSchema(features)
    role = [draw(st.sampled_from(["free", "immutable", "up", "down"])) for _ in range(d)]
    role = ["free" if r in ("up", "down") and schema.is_categorical[j] else r for j, r in enumerate(role)]
    allowed = {}
    for f in features:
        if f.kind in ("ordinal", "categorical") and draw(st.booleans()):
            allowed[f.name] = draw(st.lists(st.sampled_from(f.categories), unique=True))
    actions = MixedActionSet(
        schema,
        immutable=[f.name for f, r in zip(features, role, strict=True) if r == "immutable"],
        increase_only=[f.name for f, r in zip(features, role, strict=True) if r == "up"],
        decrease_only=[f.name for f, r in zip(features, role, strict=True) if r == "down"],
        allowed_categories=allowed,
    )
    n = draw(st.integers(1, 20))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    start = rng.uniform(schema.lower, schema.upper, size=(n, d))
    start[:, schema.is_discrete] = np.rint(start[:, schema.is_discrete])
    candidate = start + rng.normal(0.0, 4.0, size=(n, d))
    candidate[rng.random((n, d)) < 0.05] = np.nan
    return actions, start, candidate


def _check_legal(actions: MixedActionSet, start: np.ndarray, moved: np.ndarray) -> None:
    schema = actions.schema
    changed = moved != start
    np.testing.assert_array_equal(moved[:, actions.immutable], start[:, actions.immutable])
    assert np.all(moved[:, actions.increase_only] >= start[:, actions.increase_only])
    assert np.all(moved[:, actions.decrease_only] <= start[:, actions.decrease_only])
    assert np.all(~changed | ((moved >= schema.lower) & (moved <= schema.upper)))
    discrete = moved[:, schema.is_discrete]
    np.testing.assert_array_equal(discrete, np.rint(discrete))
    for j in np.flatnonzero(schema.is_categorical | schema.is_ordinal):
        moves = changed[:, j]
        assert actions.allowed[j][moved[moves, j].astype(int)].all()


@settings(max_examples=200, deadline=None)
@given(worlds())
def test_legalised_moves_respect_every_rule(world: tuple[MixedActionSet, np.ndarray, np.ndarray]) -> None:
    actions, start, candidate = world
    moved = actions.legalise(start, candidate)
    assert np.all(np.isfinite(moved))
    _check_legal(actions, start, moved)
    assert actions.is_valid(start, moved).all()


@settings(max_examples=200, deadline=None)
@given(worlds())
def test_is_valid_agrees_with_the_rules(world: tuple[MixedActionSet, np.ndarray, np.ndarray]) -> None:
    """A raw candidate row is valid exactly when every rule holds for it."""
    actions, start, candidate = world
    valid = actions.is_valid(start, candidate)
    for i in range(start.shape[0]):
        row_from, row_to = start[i : i + 1], candidate[i : i + 1]
        try:
            assert np.all(np.isfinite(row_to))
            _check_legal(actions, row_from, row_to)
            expected = True
        except AssertionError:
            expected = False
        assert valid[i] == expected


@settings(max_examples=100, deadline=None)
@given(worlds())
def test_legal_candidates_are_kept(world: tuple[MixedActionSet, np.ndarray, np.ndarray]) -> None:
    actions, start, candidate = world
    legal = actions.legalise(start, candidate)
    np.testing.assert_array_equal(actions.legalise(start, legal), legal)


def _schema() -> FeatureSchema:
    return FeatureSchema(
        [
            Feature("income", "numeric", (), 0.0, 50.0),
            Feature("education", "ordinal", ("a", "b", "c", "d"), 0.0, 3.0),
            Feature("sector", "categorical", ("x", "y", "z"), 0.0, 2.0),
        ]
    )


def test_nearest_allowed_rank_and_undone_switch() -> None:
    actions = MixedActionSet(_schema(), allowed_categories={"education": ["b", "d"], "sector": ["y"]})
    start = np.array([[10.0, 0, 0], [10.0, 0, 0]])
    out = actions.legalise(start, np.array([[60.0, 2.2, 2.0], [-3.0, 2.9, 1.0]]))
    np.testing.assert_array_equal(out, [[50.0, 1, 0], [0.0, 3, 1]])
    # the same with the box passed in; a narrower box passed in is the one used
    box = actions.box(start)
    np.testing.assert_array_equal(actions.legalise(start, np.array([[60.0, 2.2, 2.0], [-3.0, 2.9, 1.0]]), box), out)
    narrow = (box[0], np.where(np.arange(3) == 0, 40.0, box[1]))
    np.testing.assert_array_equal(actions.legalise(start, np.array([[60.0, 2.2, 2.0]] * 2), narrow)[:, 0], [40.0, 40.0])


def test_categories_allowed_per_change() -> None:
    actions = MixedActionSet(_schema(), allowed_categories={"education": ["b", "d"], "sector": ["y"]})
    np.testing.assert_array_equal(actions.category_columns, [1, 2])
    start = np.array([[10.0, 0, 0], [10.0, 2, 2], [10.0, 1, 1], [10.0, 0, 0]])
    moved = np.array([[20.0, 1, 1], [20.0, 2, 0], [20.0, 3.4, np.nan], [20.0, 4, -1]])
    # education: 0->1 (b, allowed), unchanged, 1->3.4 (rounds to d, allowed), 0->4 (no such code);
    # sector: 0->1 (y, allowed), 2->0 (x, not allowed), NaN, 0->-1 (no such code)
    np.testing.assert_array_equal(
        actions.categories_allowed(start, moved), [[True, True], [True, False], [True, False], [False, False]]
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"immutable": ["wage"]}, r"^immutable: unknown feature 'wage'"),
        ({"allowed_categories": {"sector": ["x", "w"]}}, r"^allowed_categories\.sector: 'w' is not a category"),
        ({"allowed_categories": {"wage": ["x"]}}, r"^allowed_categories\.wage: unknown feature 'wage'"),
        ({"increase_only": ["sector"]}, r"^increase_only: 'sector' is categorical"),
        ({"lower": {"sector": "x"}}, r"^lower\.sector: 'sector' is categorical"),
        ({"upper": {"education": "z"}}, r"^upper\.education: 'z' is not a category"),
        ({"cheap": ["income"]}, r"^cheap: unknown action-set key"),
    ],
)
def test_bad_action_sets_name_the_field(spec: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        MixedActionSet.from_spec(_schema(), spec)


def test_numeric_form_bounds_moves_only_by_the_table() -> None:
    """The synthetic worlds' action set: unbounded numeric features, list bounds, one value per feature."""
    actions = MixedActionSet.numeric(
        ["x0", "x1", "x2"], {"lower": [0.0, 0.2, -1.0], "upper": [1.0, 0.8, 2.0], "increase_only": ["x0"]}
    )
    start = np.array([[0.5, 0.5, 0.0], [1.5, 0.1, 3.0]])
    lo, hi = actions.box(start)
    # x0 may only go up from 0.5 (to the upper bound 1); agent 2 starts above it, so its box is empty there
    assert lo.tolist() == [[0.5, 0.2, -1.0], [1.5, 0.2, -1.0]]
    assert hi.tolist() == [[1.0, 0.8, 2.0], [1.0, 0.8, 2.0]]
    unbounded = MixedActionSet.numeric(["x0", "x1"], {"immutable": ["x1"]})
    lo, hi = unbounded.box(np.array([[3.0, 4.0]]))
    assert lo.tolist() == [[-np.inf, 4.0]] and hi.tolist() == [[np.inf, 4.0]]
    assert unbounded.is_valid(np.array([[3.0, 4.0]]), np.array([[1e9, 4.0]])).tolist() == [True]
    assert unbounded.is_valid(np.array([[3.0, 4.0]]), np.array([[3.0, 4.5]])).tolist() == [False]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"lower": [0.0]}, r"^lower: must have 2 entries \(one per feature\), got 1"),
        ({"lower": [0.0, 0.5], "upper": [1.0, 0.4]}, r"^upper: is below lower for feature 'x1'"),
        ({"lower": "low"}, r"^lower: must be a table of feature = value, or a list of one value per feature"),
        ({"increase_only": ["x0"], "decrease_only": ["x0"]}, r"^increase_only: 'x0' is also decrease_only"),
    ],
)
def test_numeric_form_errors_name_the_field(spec: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        MixedActionSet.numeric(["x0", "x1"], spec)
