"""The EMA Workbench adapter on a tiny scenario: EMA's evaluators run recoursesim and agree with direct runs."""

import json

import numpy as np
import pytest

from recoursesim.errors import ConfigError
from recoursesim.policy.ema import ema_model, outcome_table
from recoursesim.policy.robust import robustness
from recoursesim.scenario import load_scenario
from recoursesim.simulate import simulate
from recoursesim.sweep.worker import fresh_seed

pytestmark = [pytest.mark.ema, pytest.mark.filterwarnings("ignore::UserWarning")]

CDA, REFIT = '{"name":"cda"}', '{"name":"refit"}'


@pytest.fixture(scope="module")
def tiny():
    return load_scenario("bell2024-cda").with_overrides({"run.steps": 3, "population.initial": 40})


@pytest.fixture(scope="module")
def model(tiny):
    return ema_model(
        tiny,
        uncertainties=["population.entrants=3:8", "population.q=0.5:2.5"],
        levers=["selection.k=5:15", 'training={name="cda"},{name="refit"}'],
        outcomes=["dTTR:disadvantaged", "selected:all"],
        n_seeds=2,
        root_seed=11,
    )


def _samples():
    from ema_workbench.em_framework.points import Sample

    scenarios = [
        Sample("s0", population_entrants=4, population_q=1.0),
        Sample("s1", population_entrants=7, population_q=2.0),
    ]
    policies = [Sample("p0", selection_k=6, training=CDA), Sample("p1", selection_k=12, training=REFIT)]
    return scenarios, policies


def _direct(tiny, params, metric):
    """The outcome computed without EMA: mean over the two spawned seeds of the metric in each run."""
    overrides = {**params, "training": json.loads(params["training"])}
    values = []
    for seed in np.random.SeedSequence(11).spawn(2):
        summary = simulate(tiny.with_overrides(overrides), fresh_seed(seed)).summary.set_index("group")
        if metric == "dttr":
            values.append(summary.loc["disadvantaged", "dttr"])
        else:  # selected:all — selected on entry plus through recourse, summed over both groups
            values.append(summary[["selected_on_entry", "recourse"]].to_numpy().sum())
    return float(np.mean(values))


def test_sequential_evaluator_runs_the_scenario_and_matches_direct_runs(model, tiny):
    from ema_workbench import SequentialEvaluator

    scenarios, policies = _samples()
    with SequentialEvaluator(model) as evaluator:
        experiments, outcomes = evaluator.perform_experiments(scenarios=scenarios, policies=policies)
    assert len(experiments) == 4 and set(outcomes) == {"dttr_disadvantaged", "selected_all"}
    assert {"population_entrants", "population_q", "selection_k", "training", "scenario", "policy"} <= set(experiments)
    rows = zip(
        experiments.itertuples(index=False), outcomes["dttr_disadvantaged"], outcomes["selected_all"], strict=True
    )
    for row, dttr, selected in rows:
        params = {
            "population.entrants": int(row.population_entrants),
            "population.q": float(row.population_q),
            "selection.k": int(row.selection_k),
            "training": row.training,
        }
        assert dttr == pytest.approx(_direct(tiny, params, "dttr"))
        assert selected == pytest.approx(_direct(tiny, params, "selected"))
    table = outcome_table(experiments, outcomes, "dttr_disadvantaged")
    assert table.shape == (2, 2)
    assert set(robustness(table, 0.5).columns) == {"regret", "satisficing", "mean", "worst"}


def test_multiprocessing_evaluator_gives_the_same_outcomes(model):
    from ema_workbench import MultiprocessingEvaluator, SequentialEvaluator

    scenarios, policies = _samples()
    with SequentialEvaluator(model) as evaluator:
        _, sequential = evaluator.perform_experiments(scenarios=scenarios, policies=policies)
    with MultiprocessingEvaluator(model, n_processes=2) as evaluator:
        _, parallel = evaluator.perform_experiments(scenarios=scenarios, policies=policies)
    for name in sequential:
        assert parallel[name] == pytest.approx(sequential[name])


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"levers": ["selection.nope=1:5"]}, "lever selection.nope"),
        ({"levers": ["selection.k=9:3"]}, "lever selection.k"),
        ({"uncertainties": ["population.q=0:1"], "levers": ["population.q=0:2"]}, "lever population.q: is named twice"),
        ({"outcomes": []}, "outcomes: no outcome"),
        ({"outcomes": ["dTTR"]}, "outcomes: cannot read"),
        ({"n_seeds": 0}, "n_seeds"),
    ],
)
def test_bad_input_names_the_field(tiny, kwargs, fragment):
    arguments = {"levers": ["selection.k=5:15"], "outcomes": ["dTTR:disadvantaged"], **kwargs}
    with pytest.raises(ConfigError) as error:
        ema_model(tiny, **arguments)
    assert fragment in str(error.value)


def test_outcome_table_refuses_an_unknown_outcome():
    import pandas as pd

    experiments = pd.DataFrame({"policy": ["a", "b"], "scenario": ["1", "1"]})
    with pytest.raises(ConfigError, match="'speed' is not among the outcomes"):
        outcome_table(experiments, {"dttr_a": np.array([1.0, 2.0])}, "speed")
