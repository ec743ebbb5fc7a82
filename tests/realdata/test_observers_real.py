"""FACTS and CCM observers on a dataset population keep the data set's feature types."""

from __future__ import annotations

import numpy as np
import pytest

from recoursesim.auditors.ccm.observer import CounterfactualSwitchObserver, _category_map
from recoursesim.auditors.facts.observer import FactsObserver
from recoursesim.auditors.facts.population_view import population_view
from recoursesim.behaviour import BoundedEffortBehaviour
from recoursesim.component import RunContext
from recoursesim.engine.model import RecourseModel
from recoursesim.populations import DatasetPopulation
from recoursesim.scoring import ModelScorer
from recoursesim.selection import TopKSelector


@pytest.fixture(scope="module")
def model(random_legal_recourse: type) -> RecourseModel:
    columns = ["status", "duration", "purpose", "credit_amount", "savings", "present_employment", "installment_rate"]
    population = DatasetPopulation("sex", dataset="german", features=[*columns, "sex", "age"])
    observers = [
        FactsObserver(every=2, min_support=0.1).bind(RunContext(action_defaults=population.default_action_set)),
        CounterfactualSwitchObserver(every=2),
    ]
    model = RecourseModel(
        population,
        ModelScorer("logistic"),
        TopKSelector(k=20),
        random_legal_recourse(population.schema, population.default_action_set),
        BoundedEffortBehaviour().bind(RunContext(schema=population.schema)),
        n_initial=400,
        entrants=20,
        n_steps=2,
        observers=observers,
        seed=0,
    )
    return model.run()


def test_facts_view_keeps_categories(model: RecourseModel) -> None:
    snapshot = model.snapshot()
    view = population_view(snapshot, 4, model.population.default_action_set)
    schema = model.schema
    assert set(view.frame["purpose"]) <= set(schema["purpose"].categories)
    assert view.config.kind("purpose") == "categorical"
    assert view.config.ordinal_orders["present_employment"] == list(schema["present_employment"].categories)
    assert view.config.weight("present_employment") == pytest.approx(1 / 4)
    assert view.frame["credit_amount"].nunique() <= 4  # a number with many values is binned
    assert view.frame["installment_rate"].nunique() == 4  # an integer with few values keeps them
    assert "sex" in view.config.immutable and "present_employment" in view.config.increase_only
    for name, lookup in view.lookups.items():
        if schema[name].kind in ("categorical", "ordinal"):
            codes = np.array([lookup[label] for label in view.frame[name]])
            np.testing.assert_array_equal(codes, snapshot.features[:, schema.index(name)])


def test_observers_report_rows(model: RecourseModel) -> None:
    observations = model.observations
    facts = observations[observations["observer"] == "facts"]
    assert set(facts["step"]) == {0, 2} and "n_subgroups" in set(facts["metric"])
    ccm = observations[observations["observer"] == "ccm"]
    assert {"SR", "CMCC"} <= set(ccm["metric"]) and set(ccm["group"]) == {"female", "male"}


def test_category_map() -> None:
    np.testing.assert_array_equal(_category_map(np.zeros(3), np.ones(2)), np.ones(3))
    np.testing.assert_array_equal(_category_map(np.array([0.0, 2.0]), np.ones(2)), [0.0, 2.0])
