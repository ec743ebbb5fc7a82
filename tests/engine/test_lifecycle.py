"""The component lifecycle: constructors take hyper-parameters, ``bind(context)`` hands over the run.

A plug-in written against the older API (a constructor declaring ``schema``) keeps working for one
release with one deprecation warning and gives the same ledger as the same plug-in written with
``bind``; a duck-typed plug-in class without ``bind`` is given one when it is registered.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import ClassVar

import pandas as pd
import pytest
from sklearn.base import clone

from recoursesim import lifecycle, registry
from recoursesim.behaviour import BoundedEffortBehaviour
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.recourse import SearchRecourse
from recoursesim.scenario import Scenario
from recoursesim.selection import TopKSelector


class OldStyleEffort(Component):
    """Bounded effort written against the older API: the builder passes the schema to the constructor."""

    def __init__(self, budget: str = "flexible", schema=None) -> None:
        self.budget = budget
        self.schema = schema

    def act(self, context):
        return BoundedEffortBehaviour(budget=self.budget).bind(RunContext(schema=self.schema)).act(context)


class NewStyleEffort(Component):
    """The same behaviour, learning the schema in ``bind``."""

    def __init__(self, budget: str = "flexible") -> None:
        self.budget = budget

    def bind(self, context: RunContext) -> NewStyleEffort:
        self.inner_ = BoundedEffortBehaviour(budget=self.budget).bind(context)
        return self

    def act(self, context):
        return self.inner_.act(context)


@pytest.fixture
def effort_plugins():
    registry.register("behaviour", "old_style_effort")(OldStyleEffort)
    registry.register("behaviour", "new_style_effort")(NewStyleEffort)
    yield
    for name in ("old_style_effort", "new_style_effort"):
        registry._REGISTRY["behaviour"].pop(name, None)


def _ledger(behaviour: str) -> pd.DataFrame:
    spec = Scenario.bundled("german-credit-lending").spec
    spec = {**spec, "run": {**spec["run"], "steps": 3}, "behaviour": {"name": behaviour}}
    return Scenario.from_dict(spec).build_model(0).run().ledger


def test_an_old_style_plugin_runs_warns_once_and_gives_the_new_style_ledger(effort_plugins):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = _ledger("old_style_effort")
        again = _ledger("old_style_effort")  # a second build of the same class: no second warning
    messages = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    assert len(messages) == 1, messages
    assert "OldStyleEffort takes schema in its constructor" in messages[0]
    assert "bind(context)" in messages[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # the new way warns about nothing
        new = _ledger("new_style_effort")
    pd.testing.assert_frame_equal(old, new)
    pd.testing.assert_frame_equal(old, again)
    # and both equal the built-in behaviour they wrap: the mixed-type schema reached both
    pd.testing.assert_frame_equal(new, _ledger("bounded_effort"))


def test_a_plugin_class_without_bind_is_given_one_when_registered():
    class DuckSelector:  # not a Component: no bind of its own
        def __init__(self, k: int = 1) -> None:
            self.k = k

        def select(self, scores, context):
            raise NotImplementedError

    registry.register("selector", "duck_lifecycle_test")(DuckSelector)
    try:
        selector = DuckSelector()
        assert selector.bind(RunContext()) is selector
    finally:
        registry._REGISTRY["selector"].pop("duck_lifecycle_test", None)


def test_bind_again_with_another_context_and_clone_gives_an_unbound_component():
    from recoursesim.component import CHECK_POPULATION

    german = RunContext.of(registry.build("population", CHECK_POPULATION))
    generator = SearchRecourse(action_set={"upper": {"duration": 48}}).bind(german)
    assert generator.schema_ is german.schema
    # the data set's default action set is merged in: its immutable features stay immutable
    immutable = {name for name, fixed in zip(german.schema.names, generator.actions_.immutable, strict=True) if fixed}
    assert immutable == set(german.action_defaults["immutable"])
    twin = clone(generator)
    assert twin.get_params() == generator.get_params() and not hasattr(twin, "schema_")  # unbound
    # bound again, to the two-feature world: everything learned is replaced
    plain = SearchRecourse().bind(german)
    assert plain.actions_.immutable.any()
    assert plain.bind(RunContext()) is plain
    assert plain.schema_.names == ("x0", "x1") and not plain.actions_.immutable.any()
    with pytest.raises(ConfigError, match=r"^action_set\.upper\.duration: unknown feature"):
        generator.bind(RunContext())  # its explicit table names a feature that world lacks


def test_a_context_made_by_hand_defaults_to_the_schema_names_or_the_two_feature_world():
    assert RunContext().feature_names == ("x0", "x1")
    assert RunContext(feature_names=("a",)).feature_names == ("a",)
    from recoursesim.features import FeatureSchema

    schema = FeatureSchema.numeric(["p", "q", "r"])
    assert RunContext(schema=schema).feature_names == ("p", "q", "r")
    assert RunContext(schema=schema).feature_schema is schema
    assert RunContext(feature_names=("a", "b")).feature_schema.names == ("a", "b")


def test_registration_gives_duck_typed_scorers_and_trainers_the_defaults_of_their_kind():
    class Fixed:  # no prepare: it does not fit on the population
        def score(self, features):
            return features.sum(axis=1)

    class Prepared(Fixed):  # its own prepare: the model prepares it on the training rows
        def prepare(self, population, rng):
            return Fixed()

    class Keeps:  # a trainer without start
        def update(self, context):
            return context.scorer

    added = [("scorer", "duck_fixed", Fixed), ("scorer", "duck_prepared", Prepared), ("trainer", "duck_keeps", Keeps)]
    try:
        for kind, name, cls in added:
            registry.register(kind, name)(cls)
        fixed, prepared = Fixed(), Prepared()
        assert Fixed.fits_on_population is False and fixed.prepare(None, None) is fixed
        assert Prepared.fits_on_population is True and type(prepared.prepare(None, None)) is Fixed
        assert Keeps().start(None, None, fixed, None) is fixed
        assert Keeps().bind(RunContext()) is not None
    finally:
        for kind, name, _ in added:
            registry._REGISTRY[kind].pop(name, None)


def test_the_deprecation_warning_is_shown_under_pythons_default_filters(effort_plugins):
    # A DeprecationWarning raised inside recoursesim would be hidden from the plug-in's author.
    lifecycle._warned.discard((OldStyleEffort, "takes schema in its constructor"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        _ledger("old_style_effort")
    assert any(issubclass(w.category, FutureWarning) for w in caught)


class RequiredSchemaEffort(OldStyleEffort):
    """An older plug-in whose constructor requires the schema (no default)."""

    def __init__(self, schema, budget: str = "flexible") -> None:
        super().__init__(budget=budget, schema=schema)


def test_an_old_style_plugin_that_requires_the_schema_is_given_it(effort_plugins):
    registry.register("behaviour", "required_schema_effort")(RequiredSchemaEffort)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            pd.testing.assert_frame_equal(_ledger("required_schema_effort"), _ledger("new_style_effort"))
    finally:
        registry._REGISTRY["behaviour"].pop("required_schema_effort", None)


def test_a_scorer_subclass_with_its_own_prepare_is_prepared():
    from recoursesim.scoring import LinearScorer
    from recoursesim.scoring.base import Scorer

    class Fitted(Scorer):
        def score(self, features):
            return features.sum(axis=1)

        def prepare(self, population, rng):
            return self

    class Plain(LinearScorer):
        pass

    class Declined(Fitted):
        fits_on_population = False

    assert Fitted.fits_on_population and not Plain.fits_on_population and not Declined.fits_on_population

    class Duck:  # never registered: its class is given the defaults when a model binds it
        def score(self, features):
            return features.sum(axis=1)

        @classmethod
        def prepare(cls, population, rng):
            return cls()

    lifecycle.adopt("scorer", Duck)
    assert Duck.fits_on_population


def test_duck_typed_parts_built_by_hand_run_in_a_model():
    import numpy as np

    from recoursesim import RecourseModel

    class DuckTrainer:  # only update: no bind, no start
        def update(self, context):
            return context.scorer

    parts = Scenario.bundled("default").model_arguments()
    model = RecourseModel(**{**parts, "trainer": DuckTrainer(), "n_steps": 2})
    model.run()
    assert model.t == 3 and np.isfinite(model.ledger["score"]).all()


def test_an_error_of_bind_is_not_blamed_on_the_scenarios_parameters():
    class BadBind(Component):
        def bind(self, context):
            raise KeyError("immutable")

        def act(self, context):
            raise NotImplementedError

    registry.register("behaviour", "bad_bind_test")(BadBind)
    try:
        with pytest.raises(KeyError):
            registry.build("behaviour", {"name": "bad_bind_test"}, context=RunContext())
    finally:
        registry._REGISTRY["behaviour"].pop("bad_bind_test", None)


class OldStyleRecourse(Component):
    """A recourse generator written against the older API: the schema comes to the constructor."""

    def __init__(self, schema=None) -> None:
        self.schema = schema

    def recommend(self, features, scores, threshold, scorer):
        return features

    def cost(self, moves):
        return abs(moves).sum(axis=1)


def test_an_old_style_generator_wrapped_by_margin_is_given_the_schema():
    from recoursesim.component import CHECK_POPULATION

    population = registry.build("population", CHECK_POPULATION)
    context = RunContext.of(population)
    registry.register("recourse", "old_style_recourse_test")(OldStyleRecourse)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            margin = registry.build(
                "recourse", {"name": "margin", "base": {"name": "old_style_recourse_test"}}, context=context
            )
    finally:
        registry._REGISTRY["recourse"].pop("old_style_recourse_test", None)
    assert margin.base_.schema is population.schema


def test_an_unbound_component_says_to_bind_it_first():
    from recoursesim.recourse import LinearRecourse

    generator = LinearRecourse()
    with pytest.raises(AttributeError, match=r"'weights_' yet: it is learned when the component is bound"):
        generator.weights_  # noqa: B018
    assert not hasattr(generator, "weights_")
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        generator.nonsense  # noqa: B018
    assert generator.bind(RunContext()).weights_.shape == (2,)


class CountingEffort(NewStyleEffort):
    """Keeps every instance ``bind`` is called on, once per call (alive, so their ids are distinct)."""

    bound: ClassVar[list[object]] = []

    def bind(self, context: RunContext) -> CountingEffort:
        CountingEffort.bound.append(self)
        return super().bind(context)


class CountingSelector(TopKSelector):
    """Top-k, keeping every instance ``bind`` is called on (the model binds selectors too)."""

    bound: ClassVar[list[object]] = []

    def bind(self, context: RunContext) -> CountingSelector:
        CountingSelector.bound.append(self)
        return self


def _binds(cls: type[CountingEffort] | type[CountingSelector]) -> Counter[int]:
    """``bind`` calls per instance."""
    return Counter(map(id, cls.bound))


@pytest.fixture
def counting_plugins():
    registry.register("behaviour", "counting_effort")(CountingEffort)
    registry.register("selector", "counting_top_k")(CountingSelector)
    CountingEffort.bound.clear()
    CountingSelector.bound.clear()
    yield
    registry._REGISTRY["behaviour"].pop("counting_effort", None)
    registry._REGISTRY["selector"].pop("counting_top_k", None)


def _counting_scenario() -> Scenario:
    spec = Scenario.bundled("german-credit-lending").spec
    return Scenario.from_dict(
        {
            **spec,
            "run": {**spec["run"], "steps": 2},
            "behaviour": {"name": "counting_effort"},
            "selection": {**spec["selection"], "name": "counting_top_k"},
        }
    )


def test_each_part_is_bound_once_per_run_through_simulate_and_a_sweep_point(counting_plugins):
    from recoursesim.simulate import simulate
    from recoursesim.sweep import SweepPlan
    from recoursesim.sweep.worker import execute

    scenario = _counting_scenario()  # loading checks the parts: a dry build, bound once
    assert list(_binds(CountingEffort).values()) == [1] and list(_binds(CountingSelector).values()) == [1]
    simulate(scenario, seed=1)
    plan = SweepPlan.from_grid(scenario, {"selection.k": [3]}, n_seeds=1)
    (task,) = plan.tasks()
    assert execute(task).ok, execute(task).error
    for counts in (_binds(CountingEffort), _binds(CountingSelector)):
        assert len(counts) >= 4 and set(counts.values()) == {1}, counts  # no part bound twice


def test_the_model_binds_what_the_builder_did_not_and_a_second_model_binds_again(counting_plugins):
    from recoursesim import RecourseModel

    parts = _counting_scenario().model_arguments()
    behaviour = parts["behaviour"]
    assert _binds(CountingEffort)[id(behaviour)] == 1
    RecourseModel(**parts)  # handed over bound: not bound again
    assert _binds(CountingEffort)[id(behaviour)] == 1
    RecourseModel(**parts)  # the same parts in a second model: bound to that run
    assert _binds(CountingEffort)[id(behaviour)] == 2
    fresh = CountingEffort()
    RecourseModel(**{**parts, "behaviour": fresh, "context": None})  # built by hand: bound by the model
    assert _binds(CountingEffort)[id(fresh)] == 1


@pytest.mark.parametrize("name", ["default", "market-german-credit", "bell2024-cns-cda"])
def test_a_built_model_leaves_no_part_listed_as_bound_in_its_context(name):
    from recoursesim import RecourseModel

    parts = Scenario.bundled(name).model_arguments()
    assert parts["context"].bound_parts  # the builder listed the parts it bound for the model
    model = RecourseModel(**parts)
    assert model.context.bound_parts == {}  # taken, or (a market's unused top-level parts) dropped


def test_building_outside_a_scenario_lists_nothing_as_bound():
    from recoursesim import registry
    from recoursesim.component import RunContext

    context = RunContext.of(registry.build("population", {"name": "bell2024"}))
    registry.build("recourse", {"name": "worst_case", "base": {"name": "linear"}}, context=context)
    registry.build("behaviour", {"name": "bounded_effort"}, context=context)
    assert context.bound_parts == {}
