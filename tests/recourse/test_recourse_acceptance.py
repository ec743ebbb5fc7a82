"""Recourse correctness on German credit: cost against the exact optimum, validity, the action set."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recoursesim.component import RunContext
from recoursesim.features import MixedActionSet
from recoursesim.recourse import ExactLinearRecourse, NearestAcceptedRecourse, SearchRecourse


def _setting(world, n: int | None = None):
    agents = world.agents if n is None else world.agents[:n]
    scores = world.scorer.score(agents)
    return agents, scores, float(np.quantile(world.scorer.score(world.agents), 0.8))


@pytest.mark.parametrize("world_name", ["german_logistic", "german_builtin_logistic", "adult_builtin_logistic"])
@pytest.mark.parametrize(("cut", "level"), [("probability", 0.5), ("quantile", 0.8), ("quantile", 0.95)])
def test_search_matches_the_exact_optimum_on_a_one_hot_logistic_model(request, world_name, cut, level):
    # a user pipeline and the built-in logistic model, at a probability cut-off and two score quantiles
    world = request.getfixturevalue(world_name)
    agents = world.agents
    scores = world.scorer.score(agents)
    threshold = level if cut == "probability" else float(np.quantile(scores, level))
    exact = ExactLinearRecourse(action_set=world.action_set).bind(RunContext(schema=world.schema))
    search = SearchRecourse(action_set=world.action_set).bind(RunContext(schema=world.schema))
    best = exact.recommend(agents, scores, threshold, world.scorer)
    found = search.recommend(agents, scores, threshold, world.scorer)
    solvable = (scores < threshold) & exact.found_
    assert solvable.sum() >= 100  # the test means something only if many agents need recourse
    # validity: the model accepts the search recommendation for >= 99% of agents the exact solver can help
    accepted = world.scorer.score(found) >= threshold
    assert np.mean((search.found_ & accepted)[solvable]) >= 0.99
    # cost: within 5% of the optimum for >= 95% of them
    optimum = exact.cost(best - agents)[solvable]
    cost = search.cost(found - agents)[solvable]
    assert np.all(cost >= optimum - 1e-9)  # nothing legal and accepted is cheaper than the optimum
    assert np.mean(cost <= 1.05 * optimum + 1e-12) >= 0.95


def test_exact_optimum_is_a_lower_bound_for_observed_profiles(german_logistic):
    agents, scores, threshold = _setting(german_logistic)
    exact = ExactLinearRecourse(action_set=german_logistic.action_set).bind(RunContext(schema=german_logistic.schema))
    manifold = NearestAcceptedRecourse(
        action_set=german_logistic.action_set,
        reference=german_logistic.train,
    ).bind(RunContext(schema=german_logistic.schema))
    best = exact.recommend(agents, scores, threshold, german_logistic.scorer)
    observed = manifold.recommend(agents, scores, threshold, german_logistic.scorer)
    both = (scores < threshold) & manifold.found_
    assert both.sum() >= 20 and np.all(exact.found_[both])
    assert np.all(manifold.cost(observed - agents)[both] >= exact.cost(best - agents)[both] - 1e-9)
    # every manifold recommendation is a reference row
    rows = {tuple(r) for r in german_logistic.train}
    assert all(tuple(r) in rows for r in observed[both])


def test_manifold_picks_the_cheapest_reachable_accepted_row(german_gbm):
    agents, scores, threshold = _setting(german_gbm, 120)
    manifold = NearestAcceptedRecourse(
        action_set=german_gbm.action_set,
        reference=german_gbm.train,
    ).bind(RunContext(schema=german_gbm.schema))
    observed = manifold.recommend(agents, scores, threshold, german_gbm.scorer)
    reference = german_gbm.train
    accepted = german_gbm.scorer.score(reference) >= threshold
    for i in np.flatnonzero(scores < threshold):
        start = np.repeat(agents[i : i + 1], len(reference), axis=0)
        reachable = manifold.actions_.is_valid(start, reference) & accepted
        if not reachable.any():
            assert not manifold.found_[i]
            continue
        assert manifold.found_[i]
        cheapest = manifold.cost(reference[reachable] - agents[i]).min()
        assert manifold.cost(observed[i : i + 1] - agents[i])[0] == pytest.approx(cheapest, abs=1e-12)


def test_exact_solution_by_hand():
    # Two features: a number x on [0, 10] (range 10, cost 0.1 per unit) and a 3-category colour.
    # Margin = 0.5 x + {red: 0, green: 1, blue: 3}; cut-off margin 4 (probability expit(4)).
    from scipy.special import expit

    from recoursesim.features import Feature, FeatureSchema

    schema = FeatureSchema(
        [Feature("x", "numeric", (), 0.0, 10.0), Feature("colour", "categorical", ("red", "green", "blue"), 0.0, 2.0)]
    )

    class Model:
        def score(self, rows):
            return expit(0.5 * rows[:, 0] + np.array([0.0, 1.0, 3.0])[rows[:, 1].astype(int)])

    agents = np.array([[2.0, 0.0], [7.0, 0.0], [2.0, 1.0]])
    threshold = float(expit(4.0))
    generator = ExactLinearRecourse().bind(RunContext(schema=schema))
    moved = generator.recommend(agents, Model().score(agents), threshold, Model())
    # agent 0 (margin 1): x to 8 costs 0.6; blue (+3) costs 1 and reaches 4 exactly -> x to 8 is cheaper
    # agent 1 (margin 3.5): x to 8 costs 0.1
    # agent 2 (green, margin 2): x to 6 costs 0.4
    np.testing.assert_allclose(moved, [[8.0, 0.0], [8.0, 0.0], [6.0, 1.0]], atol=1e-6)
    np.testing.assert_allclose(generator.cost(moved - agents), [0.6, 0.1, 0.4], atol=1e-6)
    weighted = ExactLinearRecourse(cost_weights={"x": 3.0}).bind(RunContext(schema=schema))  # x now costs 0.3 per unit
    moved = weighted.recommend(agents, Model().score(agents), threshold, Model())
    # agent 0: x to 8 costs 1.8; blue costs 1 and reaches margin 4 -> switch to blue, x unchanged
    np.testing.assert_allclose(moved[0], [2.0, 2.0], atol=1e-6)


@st.composite
def action_sets(draw, world):
    schema = world.schema
    names = list(schema.names)
    immutable = draw(st.lists(st.sampled_from(names), unique=True, max_size=6))
    ordered = [n for n in names if n not in immutable and schema[n].kind != "categorical"]
    increase = draw(st.lists(st.sampled_from(ordered), unique=True, max_size=3)) if ordered else []
    rest = [n for n in ordered if n not in increase]
    decrease = draw(st.lists(st.sampled_from(rest), unique=True, max_size=3)) if rest else []
    spec = {"immutable": immutable, "increase_only": increase, "decrease_only": decrease}
    categorical = [n for n in names if schema[n].kind == "categorical" and n not in immutable]
    allowed = {}
    for name in draw(st.lists(st.sampled_from(categorical), unique=True, max_size=4)) if categorical else []:
        categories = list(schema[name].categories)
        allowed[name] = draw(st.lists(st.sampled_from(categories), unique=True, max_size=len(categories)))
    if allowed:
        spec["allowed_categories"] = allowed
    numeric = [n for n in names if schema[n].kind == "integer" and n not in immutable]
    if numeric:
        name = draw(st.sampled_from(numeric))
        feature = schema[name]
        cut = draw(st.floats(0.2, 0.9))
        spec["upper"] = {name: float(np.floor(feature.lower + cut * (feature.upper - feature.lower)))}
    return spec


def _respects(actions: MixedActionSet, start: np.ndarray, moved: np.ndarray, spec: dict) -> None:
    schema = actions.schema
    changed = np.abs(moved - start) > 1e-9
    for name in spec["immutable"]:
        assert not changed[:, schema.index(name)].any(), f"immutable {name} changed"
    for name in spec["increase_only"]:
        j = schema.index(name)
        assert np.all(moved[:, j] >= start[:, j] - 1e-9), f"increase-only {name} fell"
    for name in spec["decrease_only"]:
        j = schema.index(name)
        assert np.all(moved[:, j] <= start[:, j] + 1e-9), f"decrease-only {name} rose"
    for name, categories in spec.get("allowed_categories", {}).items():
        j = schema.index(name)
        legal = [schema[name].categories.index(c) for c in categories]
        assert np.all(np.isin(moved[changed[:, j], j], legal)), f"{name} moved to an unlisted category"
    whole = ~schema.is_numeric
    assert np.all(moved[:, whole] == np.rint(moved[:, whole])), "an integer/ordinal/categorical code is fractional"
    for name, bound in spec.get("upper", {}).items():
        j = schema.index(name)
        assert np.all(moved[changed[:, j], j] <= bound + 1e-9), f"{name} moved above its upper bound"
    inside = (moved >= schema.lower - 1e-9) & (moved <= schema.upper + 1e-9)
    assert np.all(inside | ~changed), "a changed feature left the observed range"


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_recommendation_respects_random_action_sets(german_logistic, german_gbm, data):
    for world in (german_logistic, german_gbm):
        spec = data.draw(action_sets(world))
        agents, scores, threshold = _setting(world, 40)
        generators = [
            SearchRecourse(action_set=spec, samples=16).bind(RunContext(schema=world.schema)),
            NearestAcceptedRecourse(action_set=spec, reference=world.train).bind(RunContext(schema=world.schema)),
        ]
        if world is german_logistic:
            generators.append(ExactLinearRecourse(action_set=spec).bind(RunContext(schema=world.schema)))
        for generator in generators:
            moved = generator.recommend(agents, scores, threshold, world.scorer)
            _respects(generator.actions_, agents, moved, spec)
            found = generator.found_
            assert np.all(world.scorer.score(moved)[found] >= threshold)
            assert np.array_equal(moved[~found], agents[~found])


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"name": "search", "samples": 0}, "recourse.samples"),
        ({"name": "search", "action_set": {"immutable": ["nope"]}}, "recourse.action_set.immutable"),
        ({"name": "exact_linear", "cost_weights": {"x0": -1.0}}, "recourse.cost_weights.x0"),
        ({"name": "manifold", "max_reference": -3}, "recourse.max_reference"),
        pytest.param({"name": "dice", "method": "magic"}, "recourse.method", marks=pytest.mark.dice),
        ({"name": "search", "radius": "wide"}, "recourse.radius"),
    ],
)
def test_bad_generator_parameters_name_the_field(spec, field):
    from recoursesim.errors import ConfigError
    from recoursesim.registry import build

    with pytest.raises(ConfigError) as caught:
        build("recourse", spec, context=RunContext())
    assert str(caught.value).startswith(field), str(caught.value)
    assert "\n" not in str(caught.value)


def test_exact_linear_refuses_a_non_additive_model(german_gbm):
    from recoursesim.errors import ConfigError

    agents, scores, threshold = _setting(german_gbm, 50)
    generator = ExactLinearRecourse(action_set=german_gbm.action_set).bind(RunContext(schema=german_gbm.schema))
    with pytest.raises(ConfigError, match="search"):
        generator.recommend(agents, scores, threshold, german_gbm.scorer)


def test_manifold_without_reference_rows_says_how_to_fix():
    from recoursesim.errors import ConfigError
    from recoursesim.scoring import LinearScorer

    generator = NearestAcceptedRecourse().bind(RunContext())
    scorer = LinearScorer([0.5, 0.5])
    agents = np.array([[0.1, 0.1]])
    with pytest.raises(ConfigError, match="reference"):
        generator.recommend(agents, scorer.score(agents), 0.9, scorer)
