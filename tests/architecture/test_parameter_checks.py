"""A component parameter's rules live in one place, its constructor; the registry checks only keys.

Every scenario-settable parameter of every registered component is given values of the wrong
type (ones a TOML file can hold); each must be refused by the constructor with a one-line
:class:`~recoursesim.errors.ConfigError` naming that parameter, not accepted and not turned into
the registry's generic "cannot use these parameters" message. A constructor that stops checking a
parameter fails here; so does a registry that starts checking values again.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import warnings
from typing import Any

import pytest

from recoursesim import registry
from recoursesim.checks._common import check_context
from recoursesim.checks._registered import EXAMPLE_INPUTS, example_params
from recoursesim.component_index import registered_classes
from recoursesim.errors import ConfigError

#: Values of the wrong type for each annotation, all of kinds a TOML file can hold (TOML has no null).
WRONG: dict[str, list[Any]] = {
    "int": ["x", 1.5, True, [1], {"a": 1}],
    "float": ["x", True, math.nan, [1.0]],
    "bool": ["yes", 1],
    "str": [5, ["a"]],
    "list": ["notalist", 5, {"a": 1}],
    "table": [5, "s", [1]],
    "choice": ["bogus-choice", 5],
}


def wrong_values(annotation: Any) -> list[Any]:
    """Values contradicting a plain, ``Literal``, list or table annotation (``[]`` for any other)."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    base = text.removesuffix(" | None")
    container = base.split("[", 1)[0]
    if base.startswith("Literal["):
        return WRONG["choice"]
    if container in ("Sequence", "list", "tuple"):
        return WRONG["list"]
    if container in ("Mapping", "dict"):
        return WRONG["table"]
    return WRONG.get(base, [])


def components() -> list[tuple[str, str]]:
    """``(kind, primary name)`` of every registered component (DiCE only when dice-ml is installed)."""
    found = [(kind, name) for kind in registry.KINDS for name in registered_classes(kind)]
    dice_installed = importlib.util.find_spec("dice_ml") is not None
    return [(kind, name) for kind, name in found if name != "dice" or dice_installed]


COMPONENTS = components()


@pytest.mark.parametrize(("kind", "name"), COMPONENTS, ids=[f"{kind}-{name}" for kind, name in COMPONENTS])
def test_the_constructor_refuses_a_wrong_type_naming_the_parameter(kind: str, name: str) -> None:
    cls = registry.lookup(kind, name)
    made = EXAMPLE_INPUTS.get((kind, name))  # a fitted model given from Python
    extra = made() if made else {}
    # Bound as a scenario binds it: a value checked against the run's features is refused there.
    context = None if kind == "population" else check_context(kind)
    section = registry.KINDS[kind]
    signature = inspect.signature(cls)
    problems = []
    for parameter in registry.accepted_parameters(cls):
        for value in wrong_values(signature.parameters[parameter].annotation):
            spec = {"name": name, **example_params(kind, name), parameter: value}
            field = f"{section}.{parameter}"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # convergence warnings of the example models
                    registry.build(kind, spec, context=context, **extra)
            except ConfigError as error:
                if error.field != field and not error.field.startswith((f"{field}.", f"{field}[")):
                    problems.append(f"{parameter}={value!r}: {error}")
            else:
                problems.append(f"{parameter}={value!r}: accepted")
    assert problems == []


def test_most_parameters_are_covered() -> None:
    """The table of wrong values reaches the annotations components use (so the test above is not empty)."""
    covered = 0
    for kind, name in COMPONENTS:
        cls = registry.lookup(kind, name)
        signature = inspect.signature(cls)
        covered += sum(
            bool(wrong_values(signature.parameters[p].annotation)) for p in registry.accepted_parameters(cls)
        )
    assert covered >= 100


class _Unchecked:
    """A plug-in selector whose constructor checks nothing."""

    def __init__(self, k: int = 1, flag: bool = False) -> None:
        self.k = k
        self.flag = flag

    def select(self, scores: Any, context: Any) -> Any:
        raise NotImplementedError


def test_the_registry_checks_keys_and_leaves_values_to_the_constructor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry._REGISTRY["selector"], "unchecked_probe", _Unchecked)
    built = registry.build("selector", {"name": "unchecked_probe", "k": "x", "flag": "yes"})
    assert (built.k, built.flag) == ("x", "yes")
    with pytest.raises(ConfigError, match=r"^selection\.kk: unknown parameter .*did you mean 'k'"):
        registry.build("selector", {"name": "unchecked_probe", "kk": 1})
