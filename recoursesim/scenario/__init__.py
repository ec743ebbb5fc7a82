"""Scenarios: TOML files describing a run, validated on load."""

from recoursesim.scenario.config import RunConfig
from recoursesim.scenario.presets import PRESETS
from recoursesim.scenario.scenario import (
    Scenario,
    ScenarioError,
    bundled_names,
    load_scenario,
    load_table,
    resolve_table,
)

__all__ = [
    "PRESETS",
    "RunConfig",
    "Scenario",
    "ScenarioError",
    "bundled_names",
    "load_scenario",
    "load_table",
    "resolve_table",
]
