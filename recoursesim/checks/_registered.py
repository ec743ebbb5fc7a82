"""Every conformance check over every registered component, one runnable case per (component, check)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from recoursesim import registry
from recoursesim.checks._common import check_context
from recoursesim.component_index import registered_classes

#: Constructor arguments for built-in components whose constructors require some. A plug-in with
#: required arguments declares its own as a class attribute ``check_params = {...}``.
EXAMPLE_PARAMS: dict[str, dict[str, dict[str, Any]]] = {
    "selector": {
        "top_k": {"k": 10},
        "circumstance_normalised": {"k": 10},
        "effort_rewarding": {"k": 10},
        "threshold": {"threshold": 0.5},
    },
    "scorer": {"linear": {"weights": [0.5, 0.5]}},
}


def _fitted_model() -> dict[str, Any]:
    from recoursesim.scoring.fitted import example_fitted_model

    return {"fitted_estimator": example_fitted_model()}


#: Objects a built-in component takes from Python rather than from a scenario table (a fitted model),
#: made when a check first needs them.
EXAMPLE_INPUTS: dict[tuple[str, str], Callable[[], dict[str, Any]]] = {("scorer", "fitted"): _fitted_model}


@dataclass(frozen=True)
class Case:
    """One check applied to one registered component.

    Attributes:
        kind: The component kind (a key of :data:`recoursesim.registry.KINDS`).
        name: The component's registered name.
        check: The check function.
    """

    kind: str
    name: str
    check: Callable[[Callable[[], Any], int], None]

    @property
    def id(self) -> str:
        """A readable test id, ``kind-name-check``."""
        return f"{self.kind}-{self.name}-{self.check.__name__.removeprefix('check_')}"

    def factory(self) -> Any:
        """Build a fresh component from its registered name and example parameters, bound to :func:`check_context`."""
        made = EXAMPLE_INPUTS.get((self.kind, self.name))
        spec = {"name": self.name, **example_params(self.kind, self.name)}
        context = None if self.kind == "population" else check_context(self.kind)
        return registry.build(self.kind, spec, context=context, **(made() if made else {}))

    def run(self, seed: int = 0) -> None:
        """Run the check (raises ``AssertionError`` naming the failed property)."""
        self.check(self.factory, seed)


def example_params(kind: str, name: str) -> Mapping[str, Any]:
    """Return the constructor arguments the checks use for a registered component."""
    cls: Any = registry.lookup(kind, name)  # a registered class: @register gave it check_params
    declared = cls.check_params
    if isinstance(declared, Mapping):
        return declared
    for key, params in EXAMPLE_PARAMS.get(kind, {}).items():
        if registry.lookup(kind, key) is cls:  # any alias of the same class
            return params
    return {}


def registered_cases(kinds: tuple[str, ...] | None = None) -> list[Case]:
    """Return one :class:`Case` per registered component and check, for every kind.

    Aliases of one class are checked once, under the class's primary registered name. Use it as
    ``pytest.mark.parametrize("case", cases, ids=[c.id for c in cases])``.

    Args:
        kinds: Restrict to these kinds (default: all of :data:`recoursesim.registry.KINDS`).

    Returns:
        The cases, in kind, name and check order.
    """
    cases: list[Case] = []
    for kind in kinds or tuple(registry.KINDS):
        module = importlib.import_module(f"{__package__}.{kind}")  # every kind has its checks module
        for primary in registered_classes(kind):
            cases.extend(Case(kind, primary, check) for check in module.CHECKS)
    return cases
