"""Helpers shared by the conformance checks of every component kind."""

from __future__ import annotations

import copy
import inspect
import pickle
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from recoursesim import registry
from recoursesim.component import CHECK_POPULATION, RunContext
from recoursesim.lifecycle import bind

#: A conformance check: takes a zero-argument factory of fresh components and a seed, raises
#: ``AssertionError`` naming the failed property.
Check = Callable[[Callable[[], Any], int], None]


#: The population of the checks' runs: the scorers' is German credit (mixed-type, fitted on its
#: training rows), every other kind's the two-feature bell2024 world.
CHECK_POPULATIONS: dict[str, dict[str, Any]] = {"scorer": CHECK_POPULATION}
WORLD_POPULATION: dict[str, Any] = {"name": "bell2024"}


@cache
def check_context(kind: str) -> RunContext:
    """The context the conformance checks bind a component of ``kind`` to."""
    return RunContext.of(registry.build("population", CHECK_POPULATIONS.get(kind, WORLD_POPULATION)))


def bound(kind: str, factory: Callable[[], Any]) -> Callable[[], Any]:
    """A factory of the components ``factory`` makes, each bound to :func:`check_context` (as a model binds them)."""
    context = check_context(kind)

    return lambda: bind(kind, factory(), context)


def snapshot(value: Any) -> Any:
    """Return a deep copy to compare against after a call (to detect modified inputs)."""
    return copy.deepcopy(value)


def same(a: Any, b: Any) -> bool:
    """Return whether two values (arrays, dataclasses of arrays, scalars, tuples) are equal, NaN equal to NaN."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    if hasattr(a, "__dataclass_fields__"):
        return all(same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return bool(a == b)


def init_params(obj: Any) -> dict[str, Any]:
    """Return the constructor arguments an object keeps as attributes of the same name."""
    return {name: getattr(obj, name) for name in inspect.signature(type(obj)).parameters if hasattr(obj, name)}


def constructor(cls: type, params: dict[str, Any]) -> Callable[[], Any]:
    """A call that builds ``cls(**params)`` when made (an ``action`` for :func:`expect`)."""
    return lambda: cls(**params)


def expect(error: type[Exception], action: Callable[[], Any], message: str, field: str | None = None) -> None:
    """Assert that ``action`` raises ``error`` (whose message starts with ``field`` when given)."""
    try:
        action()
    except error as caught:
        if field is not None:
            assert str(caught).startswith(field), f"{message} (got {caught})"
        return
    raise AssertionError(message)


def check_picklable(factory: Callable[[], Any], seed: int = 0) -> None:
    """The component survives a pickle round trip (worker processes and Dask receive components that way)."""
    component = factory()
    name = type(component).__name__
    try:
        restored = pickle.loads(pickle.dumps(component))
    except Exception as error:  # any failure to pickle is the finding
        raise AssertionError(f"{name} cannot be pickled: {error}") from error
    assert type(restored) is type(component), f"{name}: unpickling gave a {type(restored).__name__}"
