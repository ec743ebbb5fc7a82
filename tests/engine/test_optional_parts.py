"""Optional parts of the component protocols: declared once with a default, read through the class.

A plug-in that subclasses a kind's base protocol inherits the defaults; a duck-typed plug-in (the
registry accepts one, as docs/plugins.md shows) gets the same default when it lacks the part and
is read as before when it has it.
"""

from __future__ import annotations

import numpy as np
import pytest

from recoursesim.choice.base import Choice, ChoiceContext, application_cost_of, lender_order_of
from recoursesim.choice.policies import AllLenders, Sequential
from recoursesim.component import RunContext
from recoursesim.features.actions import MixedActionSet
from recoursesim.recourse import LinearRecourse
from recoursesim.recourse.base import RecourseGenerator, action_set_of, reported_found
from recoursesim.refit_order import REFIT_ORDERS, refit_order_of
from recoursesim.registry import _REGISTRY, register
from recoursesim.scenario import Scenario
from recoursesim.scoring.base import Scorer
from recoursesim.selection.base import Selection, SelectionContext, Selector, places_of
from recoursesim.training.base import Trainer, TrainingContext


class SubclassedTrainer(Trainer):
    def update(self, context: TrainingContext) -> Scorer:
        return context.scorer


class ReferenceTrainer(SubclassedTrainer):
    order = "reference"


class DuckTrainer:
    def __init__(self, order: str | None = None) -> None:
        if order is not None:
            self.order = order

    def update(self, context: TrainingContext) -> Scorer:
        return context.scorer


def test_a_trainer_runs_in_spec_order_unless_it_names_another() -> None:
    assert refit_order_of(SubclassedTrainer()) is REFIT_ORDERS["spec"]
    assert refit_order_of(ReferenceTrainer()) is REFIT_ORDERS["reference"]
    assert refit_order_of(DuckTrainer()) is REFIT_ORDERS["spec"]
    assert refit_order_of(DuckTrainer("refit_before_acting")) is REFIT_ORDERS["refit_before_acting"]
    assert refit_order_of(None) is REFIT_ORDERS["spec"]


class SubclassedGenerator(RecourseGenerator):
    """Delegates to the linear generator but says nothing about ``found_`` or ``actions_``."""

    def __init__(self) -> None:
        self._inner = LinearRecourse()

    def bind(self, context: RunContext) -> SubclassedGenerator:
        self._inner.bind(context)  # a generator that wraps another binds it to the run
        return self

    def recommend(self, features, scores, threshold, scorer):  # type: ignore[no-untyped-def]
        return self._inner.recommend(features, scores, threshold, scorer)

    def cost(self, moves: np.ndarray) -> np.ndarray:
        return self._inner.cost(moves)


class DuckGenerator:
    """Duck-typed: recommends staying put and reports that nobody has recourse."""

    def recommend(self, features, scores, threshold, scorer):  # type: ignore[no-untyped-def]
        self.found_ = np.zeros(len(features), dtype=bool)
        return np.array(features, dtype=float)

    def cost(self, moves: np.ndarray) -> np.ndarray:
        return np.linalg.norm(moves, axis=1)


def test_a_generator_reports_found_and_its_action_set_only_when_it_has_them() -> None:
    assert reported_found(SubclassedGenerator()) is None
    assert action_set_of(SubclassedGenerator()) is None
    duck = DuckGenerator()
    assert reported_found(duck) is None  # nothing recommended yet: no found_
    duck.recommend(np.zeros((3, 2)), np.zeros(3), 1.0, None)
    assert reported_found(duck) is duck.found_
    linear = LinearRecourse(action_set={"lower": [0.0, 0.0]})
    assert action_set_of(linear) is None  # its action set is made when it is bound to a run
    assert isinstance(action_set_of(linear.bind(RunContext())), MixedActionSet)
    duck.actions_ = object()  # an action set of a plug-in's own type is not read as ours
    assert action_set_of(duck) is None


class SubclassedChoice(Choice):
    def choose(self, context: ChoiceContext) -> np.ndarray:
        return np.ones(context.scores.shape, dtype=bool)


class DuckChoice:
    application_cost = 0.25
    order = ("b", "a")

    def choose(self, context: ChoiceContext) -> np.ndarray:
        return np.ones(context.scores.shape, dtype=bool)


def test_a_choice_policy_charges_nothing_and_fixes_no_order_by_default() -> None:
    assert application_cost_of(SubclassedChoice()) == 0.0
    assert lender_order_of(SubclassedChoice()) is None
    assert application_cost_of(AllLenders()) == 0.0
    assert application_cost_of(DuckChoice()) == 0.25
    assert lender_order_of(DuckChoice()) == ("b", "a")
    assert application_cost_of(Sequential(cost=0.5, order=["x", "y"])) == 0.5  # a property counts
    assert lender_order_of(Sequential(cost=0.5, order=["x", "y"])) == ["x", "y"]


class SubclassedSelector(Selector):
    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        return Selection(np.ones(scores.shape, dtype=bool), float("-inf"))


class DuckSelector:
    k = 3

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        return Selection(np.ones(scores.shape, dtype=bool), float("-inf"))


def test_a_selector_has_no_number_of_places_by_default() -> None:
    assert places_of(SubclassedSelector()) is None
    assert places_of(DuckSelector()) == 3


@pytest.mark.parametrize("cls", [SubclassedGenerator, DuckGenerator])
def test_plug_in_generators_run_and_found_reaches_the_ledger(cls: type) -> None:
    """A subclass without ``found_`` runs (no recourse_found column); a duck-typed one that reports it is recorded."""
    _REGISTRY["recourse"].pop("optional_parts_test", None)
    register("recourse", "optional_parts_test")(cls)
    try:
        spec = Scenario.bundled("default").spec | {"recourse": {"name": "optional_parts_test"}}
        ledger = Scenario.from_dict(spec).build_model(0).run(until=2).ledger
    finally:
        _REGISTRY["recourse"].pop("optional_parts_test", None)
    if cls is DuckGenerator:  # every rejected agent: no recourse found; the selected get none to find
        rejected = ~ledger["selected"]
        assert (ledger.loc[rejected, "recourse_found"] == False).all()  # noqa: E712 (a nullable column)
        assert ledger.loc[~rejected, "recourse_found"].isna().all()
    else:
        assert "recourse_found" not in ledger


def test_the_plugin_page_states_the_declared_defaults() -> None:
    """docs/plugins.md's table of optional parts gives the defaults the protocols declare."""
    from pathlib import Path

    from recoursesim.choice.base import ChargesApplications, FixesLenderOrder
    from recoursesim.recourse.base import KeepsActions, ReportsFound
    from recoursesim.refit_order import OrdersRefit
    from recoursesim.selection.base import HasPlaces

    page = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text(encoding="utf-8")
    declared = {
        "trainer": [("order", OrdersRefit.order)],
        "recourse generator": [("found_", ReportsFound.found_), ("actions_", KeepsActions.actions_)],
        "selector": [("k", HasPlaces.k)],
        "choice policy": [
            ("application_cost", ChargesApplications.application_cost),
            ("order", FixesLenderOrder.order),
        ],
    }
    rows = [line.split("|")[1:4] for line in page.splitlines() if line.startswith("| ") and "`" in line]
    stated: dict[str, list[tuple[str, str]]] = {}
    for kind, parts, defaults in rows:
        names = [part.strip(" `") for part in parts.split(",")]
        values = [value.strip(" `") for value in defaults.split(",")]
        stated.setdefault(kind.strip(), []).extend(zip(names, values, strict=True))
    for kind, parts in declared.items():
        assert [(name, repr(value).replace("'", '"')) for name, value in parts] == stated[kind], kind
