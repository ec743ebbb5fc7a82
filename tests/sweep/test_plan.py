import re

import numpy as np
import pytest

from recoursesim.errors import ConfigError
from recoursesim.sweep import SweepPlan, parse_grid
from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.plan import check_seeds


def test_parse_grid_reads_toml_values_and_bare_strings():
    grid = parse_grid(["selection.k=10,20", "population.q=0, 1.5", "behaviour.budget=flexible,fixed", "a.b=[1, 2],[3]"])
    assert grid == {
        "selection.k": [10, 20],
        "population.q": [0, 1.5],
        "behaviour.budget": ["flexible", "fixed"],
        "a.b": [[1, 2], [3]],
    }
    assert isinstance(grid["selection.k"][0], int) and isinstance(grid["population.q"][1], float)


@pytest.mark.parametrize("items", [["selection.k"], ["=1,2"], ["selection.k="], ["k=1", "k=2"], ["k=1,,2"]])
def test_parse_grid_rejects_malformed_items(items):
    with pytest.raises(ConfigError, match="--grid"):
        parse_grid(items)


def test_unknown_grid_key_is_a_config_error_naming_it(small):
    with pytest.raises(ConfigError, match=r"--grid selection\.kk"):
        SweepPlan.from_grid(small, {"selection.kk": [1, 2]}, n_seeds=2)
    with pytest.raises(ConfigError, match=r"--grid nosuch\.key"):
        SweepPlan.from_grid(small, {"nosuch.key": [1]}, n_seeds=2)
    with pytest.raises(ConfigError, match=r"selection\.k"):
        SweepPlan.from_grid(small, {"selection.k": [-5]}, n_seeds=2)


def test_grid_is_a_product_and_points_are_validated_scenarios(small):
    plan = SweepPlan.from_grid(small, {"selection.k": [10, 20], "run.steps": [2, 3, 4]}, n_seeds=3)
    assert len(plan.points) == 6 and plan.n_runs == 18
    assert plan.param_names == ["run.steps", "selection.k"]
    assert {(p.params["selection.k"], p.scenario.spec["selection"]["k"]) for p in plan.points} == {(10, 10), (20, 20)}
    tasks = list(plan.tasks())
    assert len({t.run_id for t in tasks}) == 18


def test_seeds_are_spawned_children_of_the_root(small):
    plan = SweepPlan.from_grid(small, {"selection.k": [10, 20]}, n_seeds=4, root_seed=123)
    children = np.random.SeedSequence(123).spawn(4)
    for task in plan.tasks():
        child = children[task.seed_index]
        assert task.seed.entropy == 123 and task.seed.spawn_key == child.spawn_key == (task.seed_index,)
        assert np.array_equal(task.seed.generate_state(4), child.generate_state(4))


def test_run_identity_depends_on_scenario_params_seed_not_on_the_rest_of_the_grid(small):
    a = SweepPlan.from_grid(small, {"selection.k": [10, 20]}, n_seeds=3)
    b = SweepPlan.from_grid(small, {"selection.k": [20, 30, 10]}, n_seeds=5)
    ids_a = {(t.params["selection.k"], t.seed_index): t.run_id for t in a.tasks()}
    ids_b = {(t.params["selection.k"], t.seed_index): t.run_id for t in b.tasks()}
    assert all(ids_b[key] == run_id for key, run_id in ids_a.items())
    assert a.sweep_id != b.sweep_id
    other_root = SweepPlan.from_grid(small, {"selection.k": [10, 20]}, n_seeds=3, root_seed=1)
    assert not {t.run_id for t in other_root.tasks()} & set(ids_a.values())
    assert SweepPlan.from_grid(small, {"selection.k": [10, 20]}, n_seeds=3).sweep_id == a.sweep_id


def test_plan_rejects_bad_sizes_and_duplicates(small):
    with pytest.raises(ConfigError, match="seeds"):
        SweepPlan.from_grid(small, {}, n_seeds=0)
    with pytest.raises(ConfigError, match="twice"):
        SweepPlan.from_grid(small, {"selection.k": [10, 10]}, n_seeds=1)
    with pytest.raises(ConfigError, match="non-empty"):
        SweepPlan.from_grid(small, {"selection.k": []}, n_seeds=1)


def test_canonical_json_is_order_free_and_rejects_nan():
    assert canonical_json({"b": 1, "a": np.int64(2)}) == canonical_json({"a": 2, "b": 1}) == '{"a":2,"b":1}'
    with pytest.raises(ValueError):
        canonical_json({"a": float("nan")})


@pytest.mark.parametrize(
    ("given", "minimum", "maximum", "problem"),
    [
        (0, 1, None, "must be a positive integer, got 0"),
        (1, 2, None, "must be at least 2 (an interval across seeds needs two), got 1"),
        (2.0, 1, None, "must be an integer, got 2.0"),
        (True, 1, None, "must be an integer, got True"),
        (11, 1, 10, "must be at most 10 seeds, got 11"),
    ],
)
def test_seeds_are_checked_in_one_place(given, minimum, maximum, problem):
    with pytest.raises(ConfigError) as caught:
        check_seeds(given, minimum, maximum)
    assert caught.value.field == "--seeds" and caught.value.problem == problem
    assert check_seeds(np.int64(10), 2, 10) == 10


@pytest.mark.parametrize("n_seeds", [0, -3, 1.5])
def test_every_plan_checks_its_seeds_with_the_same_function(small, n_seeds, monkeypatch):
    import recoursesim.sweep.plan as plan

    calls = []
    monkeypatch.setattr(plan, "check_seeds", lambda *a, **k: calls.append(a) or check_seeds(*a, **k))
    with pytest.raises(ConfigError, match="--seeds"):
        SweepPlan.from_grid(small, {}, n_seeds=n_seeds)
    with pytest.raises(ConfigError, match="--seeds"):
        SweepPlan.from_draws(small, {"selection.k": [10]}, n_seeds=n_seeds)
    with pytest.raises(ConfigError, match="--seeds"):
        SweepPlan((plan.Point({}, small),), n_seeds=n_seeds)
    assert len(calls) == 3


def test_every_seeds_option_type_is_that_check():
    import argparse

    from recoursesim.cli._common import seed_count, sweep_seed_count, two_or_more

    for option, text, message in [
        (seed_count, "0", "must be a positive integer, got 0"),
        (seed_count, "2000000", "must be at most 1,000,000 seeds, got 2,000,000"),
        (two_or_more, "1", "must be at least 2 (an interval across seeds needs two), got 1"),
        (sweep_seed_count, "x", "must be an integer, got 'x'"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
            option(text)
    assert sweep_seed_count("2000000") == 2_000_000  # a sweep's plan bounds points x seeds instead
