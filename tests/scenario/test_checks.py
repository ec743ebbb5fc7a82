"""Every refusal of recoursesim.scenario.checks, pinned directly on a table one edit away from valid.

Each case starts from a complete, valid table and changes one thing, so the test fails if that one check
is weakened (an unknown key accepted, a bound dropped, a type let through), not only if some later
check happens to catch the same table.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recoursesim.errors import ConfigError
from recoursesim.scenario.checks import SECTIONS, check_keys, check_table, key_fix

VALID: dict[str, Any] = {
    "name": "valid",
    "description": "a complete table",
    "run": {"steps": 3, "seed": 0},
    "population": {"name": "bell2024", "initial": 10, "entrants": 2},
    "scorer": {"name": "sum"},
    "selection": {"name": "top_k", "k": 2},
    "recourse": {"name": "linear_threshold"},
    "behaviour": {"name": "follow"},
    "model": {"patience": 3, "record_recommendations": True},
    "metrics": {"effort": "cost", "reference_group": "advantaged"},
    "observers": [{"name": "facts"}],
}


def edited(edit: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    table = copy.deepcopy(VALID)
    edit(table)
    return table


def test_the_valid_table_passes_unchanged() -> None:
    assert check_table(copy.deepcopy(VALID)) == VALID


REFUSALS = [
    # (what changes, the edit, the field named, words of the problem)
    ("unknown top-level key", lambda t: t.update(runs={}), "runs", "unknown top-level key"),
    ("name not a string", lambda t: t.update(name=3), "name", "must be a string"),
    ("description not a string", lambda t: t.update(description=["a"]), "description", "must be a string"),
    ("required section missing", lambda t: t.pop("behaviour"), "behaviour", "section is missing"),
    ("section not a table", lambda t: t.update(selection="top_k"), "selection", "must be a table"),
    ("optional section not a table", lambda t: t.update(model=3), "model", "must be a table"),
    ("named section without name", lambda t: t["recourse"].pop("name"), "recourse.name", "is missing"),
    ("unknown run key", lambda t: t["run"].update(bogus=1), "run.bogus", "unknown key"),
    ("steps missing", lambda t: t["run"].pop("steps"), "run.steps", "must be an integer"),
    ("negative steps", lambda t: t["run"].update(steps=-1), "run.steps", "must be >= 0"),
    ("steps not whole", lambda t: t["run"].update(steps=2.5), "run.steps", "must be an integer"),
    ("negative seed", lambda t: t["run"].update(seed=-3), "run.seed", "must be >= 0"),
    ("observers not a list", lambda t: t.update(observers={"name": "facts"}), "observers", "list of tables"),
    ("observer not a table", lambda t: t.update(observers=["facts"]), "observers", "list of tables"),
    ("unknown model key", lambda t: t["model"].update(patiance=2), "model.patiance", "unknown key"),
    (
        "record_recommendations not a bool",
        lambda t: t["model"].update(record_recommendations="yes"),
        "model.record_recommendations",
        "",
    ),
    ("unknown metrics key", lambda t: t["metrics"].update(efort="cost"), "metrics.efort", "unknown key"),
    ("effort not a choice", lambda t: t["metrics"].update(effort="time"), "metrics.effort", ""),
    (
        "reference group not a name",
        lambda t: t["metrics"].update(reference_group=1),
        "metrics.reference_group",
        "must be a group name",
    ),
    ("initial missing", lambda t: t["population"].pop("initial"), "population.initial", "is required"),
    ("entrants missing", lambda t: t["population"].pop("entrants"), "population.entrants", "is required"),
    ("no initial agents", lambda t: t["population"].update(initial=0), "population.initial", "must be >= 1"),
    ("initial not whole", lambda t: t["population"].update(initial=2.5), "population.initial", "must be an integer"),
    ("negative entrants", lambda t: t["population"].update(entrants=-1), "population.entrants", "must be >= 0"),
    ("entrants a string", lambda t: t["population"].update(entrants="9"), "population.entrants", "whole number"),
    ("entrants for 2 of 3 steps", lambda t: t["population"].update(entrants=[1, 2]), "population.entrants", "lists 2"),
    ("a negative entry", lambda t: t["population"].update(entrants=[1, -2, 0]), "population.entrants[1]", ">= 0"),
    ("no patience", lambda t: t["model"].update(patience=0), "model.patience", "must be >= 1"),
    ("patience not whole", lambda t: t["model"].update(patience=1.5), "model.patience", "must be an integer"),
]


@pytest.mark.parametrize(("change", "edit", "field", "problem"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_each_refusal_names_its_field(
    change: str, edit: Callable[[dict[str, Any]], object], field: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        check_table(edited(edit))
    assert caught.value.field == field, change
    assert problem in caught.value.problem
    assert caught.value.fix, "every refusal says how to fix it"


def test_an_unknown_key_suggests_the_closest_allowed_one() -> None:
    with pytest.raises(ConfigError) as caught:
        check_table(edited(lambda t: t["run"].update(stesp=3)))
    assert caught.value.fix.startswith("did you mean 'steps'?")
    assert caught.value.fix.endswith("allowed keys: steps, seed")
    assert key_fix("zzzz", ("steps", "seed")) == "allowed keys: steps, seed"


@given(st.text(min_size=1, max_size=12).filter(lambda key: key not in SECTIONS))
def test_no_unknown_top_level_key_is_accepted(key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        check_table(edited(lambda t: t.update({key: 1})))
    assert caught.value.field == key
    assert caught.value.problem == "unknown top-level key"


@given(
    st.sampled_from([("run", ("steps", "seed")), ("model", ("patience", "record_recommendations"))]),
    st.text(min_size=1, max_size=12),
)
def test_no_unknown_section_key_is_accepted(section_keys: tuple[str, tuple[str, ...]], key: str) -> None:
    section, allowed = section_keys
    if key in allowed:
        check_keys(section, {key: 1}, allowed)
        return
    with pytest.raises(ConfigError) as caught:
        check_keys(section, {key: 1}, allowed)
    assert caught.value.field == f"{section}.{key}"
