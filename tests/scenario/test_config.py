"""The run configuration: read once from a checked table; the engine, the memory estimate and the
sweep's plan take it (or plain values) and name no scenario field."""

from __future__ import annotations

import ast
import copy
import re
from pathlib import Path
from typing import Any

import pytest

from recoursesim.errors import ConfigError
from recoursesim.resources import BASE_BYTES, BYTES_PER_AGENT_CELL, BYTES_PER_CELL, estimate_run
from recoursesim.scenario import RunConfig, load_scenario
from recoursesim.scenario.checks import SECTIONS, check_table
from tests.scenario.test_checks import VALID

PACKAGE = Path(__file__).resolve().parents[2] / "recoursesim"


def test_every_value_is_read_from_its_field() -> None:
    table = copy.deepcopy(VALID)
    table["run"] = {"steps": 3, "seed": 7}
    table["population"] = {"name": "bell2024", "initial": 10, "entrants": [4, 5, 6]}
    table["scorer"] = {"name": "linear", "weights": [1.0, 2.0, 3.0]}
    table["outcome"] = {"name": "repayment"}
    table["metrics"] = {"effort": "score_gain", "reference_group": "b"}
    config = RunConfig.of(check_table(table))
    assert config == RunConfig(
        steps=3, seed=7, initial=10, entrants=(4, 5, 6), patience=3, record_recommendations=True, reapplies=True,
        reference_group="b", effort="score_gain", k=2, n_lenders=1, n_features=3,
    )  # fmt: skip


def test_the_defaults_of_an_absent_field() -> None:
    table = copy.deepcopy(VALID)
    for section in ("model", "metrics"):
        del table[section]
    del table["run"]["seed"]
    table["selection"] = {"name": "top_k", "k": [2, 3, 4, 5]}  # a schedule: no fixed number of places
    config = RunConfig.of(check_table(table))
    assert (config.seed, config.patience, config.record_recommendations) == (0, None, True)
    assert (config.reference_group, config.effort, config.reapplies) == (None, "cost", False)
    assert (config.k, config.n_lenders, config.n_features) == (None, 1, None)


@pytest.mark.parametrize(("market", "lenders", "expected"), [({}, 2, 2), ({"copies": 5}, 1, 5)])
def test_the_lenders_of_a_market(market: dict[str, Any], lenders: int, expected: int) -> None:
    table = copy.deepcopy(VALID)
    del table["observers"]
    table["market"] = market
    table["lenders"] = [{"name": f"bank-{i}"} for i in range(lenders)]
    assert RunConfig.of(check_table(table)).n_lenders == expected


def test_a_scenario_s_config_is_its_table_read() -> None:
    scenario = load_scenario("default")
    spec = scenario.spec
    config = scenario.config
    assert (config.steps, config.seed) == (spec["run"]["steps"], spec["run"].get("seed", 0))
    assert (config.initial, config.entrants) == (spec["population"]["initial"], spec["population"]["entrants"])
    assert (scenario.steps, scenario.seed, scenario.reference_group) == (
        config.steps, config.seed, config.reference_group,
    )  # fmt: skip
    overridden = scenario.with_overrides({"population.initial": 57, "run.steps": 4})
    assert (overridden.config.initial, overridden.config.steps) == (57, 4)


def test_the_memory_estimate_by_hand() -> None:
    # 10 agents, 5 join after each of 2 steps, 3 selected a step: 10 + 12 + 14 = 36 agent-steps waiting.
    config = RunConfig(steps=2, initial=10, entrants=5, k=3, n_features=4, n_lenders=2)
    size = estimate_run(config)
    assert (size.agents, size.rows, size.columns) == (20, 72, 16)
    assert size.bytes == BASE_BYTES + 72 * 16 * BYTES_PER_CELL + 20 * 12 * BYTES_PER_AGENT_CELL
    # A schedule of entrants, an unknown k (nobody leaves) and unknown features (counted as 2); a
    # shorter run (steps=1) waits 10 + 11 agent-steps, and its agents are bounded by the whole schedule.
    schedule = estimate_run(RunConfig(steps=2, initial=10, entrants=(1, 7)), steps=1)
    assert (schedule.agents, schedule.rows, schedule.columns) == (18, 21, 12)


def test_the_engine_refuses_its_own_arguments_by_their_names() -> None:
    """Built by hand from Python, the model names its argument, not a scenario field."""
    from recoursesim.engine.model import RecourseModel

    scenario = load_scenario("default")
    good = {"n_initial": 5, "entrants": 1, "n_steps": 2, "patience": None}
    bad = [
        ({"n_initial": 0}, "n_initial", "must be >= 1"),
        ({"n_steps": -1}, "n_steps", "must be >= 0"),
        ({"n_steps": 2.0}, "n_steps", "must be an integer"),
        ({"entrants": [1]}, "entrants", "lists 1 steps"),
        ({"entrants": [1, -1]}, "entrants[1]", "must be >= 0"),
        ({"patience": 0}, "patience", "must be >= 1"),
    ]
    for change, field, problem in bad:
        arguments = {**scenario.model_arguments(), **good, **change}
        with pytest.raises(ConfigError) as caught:
            RecourseModel(**arguments)
        assert caught.value.field == field and problem in caught.value.problem, change


def test_a_scenario_s_bad_value_is_refused_naming_its_field() -> None:
    from recoursesim.scenario import Scenario

    scenario = load_scenario("default")
    with pytest.raises(ConfigError, match=r"population\.initial: must be >= 1"):
        scenario.with_overrides({"population.initial": 0})
    with pytest.raises(ConfigError, match=r"model\.patience: must be >= 1"):
        Scenario.from_dict({**scenario.spec, "model": {"patience": 0}})


#: The scenario's fields as a consumer would spell them: ``"population.initial"``, ``spec["run"]``.
_FIELD = re.compile(rf"({'|'.join(SECTIONS)})\.\w+")


@pytest.mark.parametrize("module", ["engine/model.py", "resources.py", "sweep/plan.py"])
def test_the_consumers_of_the_config_name_no_scenario_field(module: str) -> None:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    named = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        if _FIELD.fullmatch(node.value)
    ]
    read = [  # spec["population"], scenario.spec.get("run")
        ast.unparse(node)
        for node in ast.walk(tree)
        if (isinstance(node, ast.Subscript) and _section(node.slice) and "spec" in ast.unparse(node.value))
        or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and _section(node.args[0])
            and "spec" in ast.unparse(node.func.value)
        )
    ]
    assert named == [] and read == [], (named, read)


def _section(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in SECTIONS


def test_the_consumer_check_would_catch_a_field() -> None:
    assert _FIELD.fullmatch("population.initial") and _FIELD.fullmatch("run.steps")
    assert not _FIELD.fullmatch("n_steps") and not _FIELD.fullmatch("--seeds")
