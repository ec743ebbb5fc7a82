"""Checking a resolved scenario table's sections and keys before any component is built."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from recoursesim._validate import check_bool, check_choice, check_entrants, check_int, check_keys, key_fix
from recoursesim.errors import ConfigError
from recoursesim.registry import names

__all__ = ["SECTIONS", "check_keys", "check_table", "key_fix"]
from recoursesim.engine.market import CULTURES
from recoursesim.scenario.market import DEFAULT_CHOICE, check_market
from recoursesim.scenario.tables import scorer_shorthand

#: Top-level scenario keys and what they hold.
SECTIONS: dict[str, str] = {
    "base": "a preset, bundled scenario or TOML file whose values this file overrides",
    "preset": "another spelling of base",
    "unset": 'keys inherited from the base to remove, dotted: ["population.features"]',
    "name": "short name of the scenario",
    "description": "what the scenario is about",
    "run": "steps (T) and seed",
    "population": "generator name, initial size, entrants per step, generator parameters",
    "scorer": "the decision model",
    "selection": "the selector",
    "recourse": "the recommendation generator",
    "behaviour": "how agents act",
    "training": "optional retraining of the decision model each step",
    "observers": "optional per-step auditors (a list of tables)",
    "outcome": "optional consequences of a positive outcome (a loan): the selected stay and apply again",
    "model": "patience, record_recommendations",
    "metrics": "effort measure and reference group",
    "market": "optional: several lenders (choice policy, culture, copies); see [[lenders]]",
    "lenders": "a market's lenders (a list of tables: name and their own scorer, selection, recourse, training)",
}
_RUN_KEYS = ("steps", "seed")
_MODEL_KEYS = ("patience", "record_recommendations")
_METRIC_KEYS = ("effort", "reference_group")
#: The sections every scenario has (after its ``base`` chain is merged in).
_REQUIRED = ("run", "population", "scorer", "selection", "recourse", "behaviour")
#: The sections written as one TOML table.
_TABLES = (*_REQUIRED, "training", "model", "metrics", "outcome")
#: The sections naming a registered component, with the component's kind where it differs.
_NAMED = {"population": "population", "scorer": "scorer", "selection": "selector", "recourse": "recourse"}
_NAMED |= {"behaviour": "behaviour", "training": "trainer", "outcome": "outcome"}


def check_table(data: dict[str, Any]) -> dict[str, Any]:
    """Return the scenario table with its scorer shorthand expanded, after checking its sections and keys.

    Raises:
        ConfigError: the first unknown, missing or malformed section or key, naming its field.
    """
    data = scorer_shorthand(data)
    _check_top_level(data)
    if isinstance(data.get("scorer"), dict) and "trusted" in data["scorer"]:
        raise ConfigError(
            "scorer.trusted",
            "a scenario cannot grant trust to a model file's types (it is data, written by anyone)",
            'the person running grants it: --trust TYPE on the command line, trusted=["TYPE"] in Python',
        )
    _check_run(data["run"])
    if "observers" in data and (
        not isinstance(data["observers"], list) or not all(isinstance(o, dict) for o in data["observers"])
    ):
        raise ConfigError("observers", "must be a list of tables", "write [[observers]] tables")
    if "model" in data:
        _check_model(data["model"])
    if "metrics" in data:
        _check_metrics(data["metrics"])
    check_market(data)
    if "market" in data:  # the defaults written out, so a saved scenario says them and sweeps reach them
        data["market"] = {"choice": dict(DEFAULT_CHOICE), "culture": CULTURES[0], **data["market"]}
    _check_sizes(data["population"], data["run"]["steps"])
    return data


#: A bundled scenario to inherit the missing sections from, by the population's kind: one of data
#: (a data set or the user's file) or a synthetic one.
FITTING_BASES = {"data": "german-credit-lending", "synthetic": "bell2024"}


def _fitting_base(data: Mapping[str, Any]) -> str:
    """A ``base = ...`` suggestion that fits ``data``: a bundled data scenario when the population reads data."""
    population = data.get("population")
    reads_data = isinstance(population, Mapping) and (
        population.get("name") == "dataset" or "path" in population or "dataset" in population
    )
    name = FITTING_BASES["data" if reads_data else "synthetic"]
    if reads_data:
        return f'base = "{name}", whose [population] your dataset or path replaces'
    return f'base = "{name}"'


def _check_top_level(data: Mapping[str, Any]) -> None:
    unknown = [key for key in data if key not in SECTIONS]
    if unknown:
        raise ConfigError(unknown[0], "unknown top-level key", key_fix(unknown[0], SECTIONS))
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(key, "must be a string", f'write {key} = "..."')
    for section in _REQUIRED:
        if section not in data:
            raise ConfigError(section, "section is missing", f"add a [{section}] table (or {_fitting_base(data)})")
    for section in _TABLES:
        if section in data and not isinstance(data[section], dict):
            raise ConfigError(section, "must be a table", f"write it as [{section}]")
    for section, kind in _NAMED.items():
        if section in data and "name" not in data[section]:
            raise ConfigError(f"{section}.name", "is missing", f"name one of: {', '.join(names(kind))}")


def _check_run(run: Mapping[str, Any]) -> None:
    check_keys("run", run, _RUN_KEYS)
    check_int("run.steps", run.get("steps"), minimum=0)
    check_int("run.seed", run.get("seed", 0), minimum=0)


def _check_model(model: Mapping[str, Any]) -> None:
    check_keys("model", model, _MODEL_KEYS)
    if model.get("patience") is not None:
        check_int("model.patience", model["patience"], minimum=1)
    check_bool("model.record_recommendations", model.get("record_recommendations", True))


def _check_sizes(population: Mapping[str, Any], steps: int) -> None:
    """``population.initial`` (at least 1) and ``population.entrants``: a count, or one count per step."""
    for key in ("initial", "entrants"):
        if key not in population:
            raise ConfigError(f"population.{key}", "is required", f"add {key} = ... to [population]")
    check_int("population.initial", population["initial"], minimum=1)
    check_entrants(population["entrants"], steps, "population.entrants")


def _check_metrics(metrics: Mapping[str, Any]) -> None:
    check_keys("metrics", metrics, _METRIC_KEYS)
    check_choice("metrics.effort", metrics.get("effort", "cost"), ["cost", "score_gain"])
    reference = metrics.get("reference_group")
    if reference is not None and not isinstance(reference, str):
        raise ConfigError("metrics.reference_group", "must be a group name", 'write reference_group = "..."')
