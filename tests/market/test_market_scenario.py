"""A market in scenario files: defaults written out, inheritance, sweep keys, the memory estimate, a sweep."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from recoursesim import registry
from recoursesim.errors import ConfigError
from recoursesim.resources import estimate_run
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate
from recoursesim.sweep.plan import SweepPlan
from recoursesim.sweep.runner import run_sweep

TWO = '[[lenders]]\nname = "a"\n[[lenders]]\nname = "b"\n'


def test_the_market_defaults_are_written_into_the_resolved_scenario():
    scenario = Scenario.from_dict({"base": "default", "market": {}, "lenders": [{"name": "a"}]})
    assert scenario.spec["market"] == {"choice": {"name": "all"}, "culture": "polyculture"}
    assert scenario.with_overrides({"market.choice.name": "random"}).spec["market"]["choice"] == {"name": "random"}


def test_a_choice_of_another_name_replaces_the_base_choice_and_one_of_the_same_name_merges(tmp_path):
    (tmp_path / "a.toml").write_text('base = "default"\n[market]\nchoice = { name = "sequential", cost = 0.1 }\n' + TWO)
    (tmp_path / "b.toml").write_text('base = "a.toml"\n[market]\nchoice = { name = "random" }\n')
    (tmp_path / "c.toml").write_text('base = "a.toml"\n[market]\nchoice = { cost = 0.2 }\nculture = "monoculture"\n')
    assert Scenario.from_file(tmp_path / "b.toml").spec["market"]["choice"] == {"name": "random"}
    market = Scenario.from_file(tmp_path / "c.toml").spec["market"]
    assert market == {"choice": {"name": "sequential", "cost": 0.2}, "culture": "monoculture"}
    assert Scenario.from_file(tmp_path / "c.toml").spec["lenders"] == [{"name": "a"}, {"name": "b"}]


def test_a_sweep_key_naming_no_lender_is_refused_naming_the_lenders():
    scenario = Scenario.from_dict({"base": "default", "market": {}, "lenders": [{"name": "a"}, {"name": "b"}]})
    with pytest.raises(ConfigError, match=r"lenders\.zzz.*\(a, b\)"):
        scenario.with_overrides({"lenders.zzz.selection.k": 3})
    with pytest.raises(ConfigError, match=r"lenders\.2"):
        scenario.with_overrides({"lenders.2.selection.k": 3})


def test_the_memory_estimate_counts_a_row_per_lender():
    plain = Scenario.bundled("default")
    three = Scenario.from_dict({**plain.spec, "market": {"copies": 3}, "lenders": [{"name": "bank"}]})
    assert estimate_run(three.config).rows == 3 * estimate_run(plain.config).rows


def test_a_sweep_over_the_number_of_lenders_and_the_choice_policy(tmp_path):
    market = {"market": {"choice": {"name": "all"}, "copies": 1}, "lenders": [{"name": "bank"}]}
    base = Scenario.from_dict({"base": "default", "run": {"steps": 2}, **market})
    grid = {"market.copies": [1, 3], "market.choice.name": ["all", "best-odds"]}
    plan = SweepPlan.from_grid(base, grid, n_seeds=1)
    assert sorted(len(point.scenario.build_model().lenders) for point in plan.points) == [1, 1, 3, 3]
    report = run_sweep(plan, tmp_path / "sweep", progress=False)
    assert not report.failures and report.succeeded == 4


class LastLender:
    """A plug-in choice policy: everybody applies to the lender declared last."""

    def choose(self, context):
        applied = np.zeros(context.scores.shape, dtype=bool)
        applied[:, -1] = True
        return applied


def test_a_plug_in_choice_travels_with_the_pickled_scenario(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "choice", dict(registry._REGISTRY["choice"]))
    registry.register("choice", "last-lender")(LastLender)
    spec = {"base": "default", "run": {"steps": 2}, "market": {"choice": {"name": "last-lender"}}}
    scenario = Scenario.from_dict({**spec, "lenders": [{"name": "a"}, {"name": "b"}]})
    assert registry.plugin_classes(scenario.spec) == {"choice": {"last-lender": LastLender}}
    shipped = pickle.dumps(scenario)
    del registry._REGISTRY["choice"]["last-lender"]  # a worker process that never registered it
    ledger = simulate(pickle.loads(shipped)).ledger
    assert ledger["lender"].astype(str).eq("b").all()
