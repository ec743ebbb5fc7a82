"""Conformance checks for per-step observers (auditors, shift and ground-truth observers, plug-ins)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pandas as pd

from recoursesim.checks._common import Check, bound, check_picklable, constructor, expect, init_params
from recoursesim.errors import ConfigError
from recoursesim.observers import observation_rows

KIND = "observer"

#: The small run every observer is checked in: the bell2024 world (features ``x0``, ``x1``; groups
#: ``advantaged``, ``disadvantaged``), 3 steps, top-k selection, a fixed linear ranker.
CHECK_RUN: dict[str, Any] = {
    "run": {"steps": 3, "seed": 0},
    "population": {"name": "bell2024", "initial": 80, "entrants": 8, "scaler_sample": 500},
    "scorer": {"name": "linear", "weights": [0.5, 0.5]},
    "selection": {"name": "top_k", "k": 8},
    "recourse": {"name": "linear"},
    "behaviour": {"name": "bounded_effort"},
}

#: The columns of a model's observations.
ROW_COLUMNS = ["step", "observer", "group", "metric", "value"]


def _run(factory: Callable[[], Any], seed: int) -> pd.DataFrame:
    """Run the check scenario with one fresh observer and return its observations."""
    from recoursesim.scenario import Scenario

    model = Scenario.from_dict(CHECK_RUN).build_model(seed)
    model.observers = (factory(),)
    model.run()
    return model.observations


def check_rejects_bad_every(factory: Callable[[], Any], seed: int = 0) -> None:
    """An ``every`` below 1 is refused when the observer is built, with a :class:`ConfigError` naming ``every``."""
    observer = factory()
    name = type(observer).__name__
    if "every" not in inspect.signature(type(observer)).parameters:
        return
    for value in (0, -2):
        params = {**init_params(observer), "every": value}
        expect(
            ConfigError, constructor(type(observer), params), f"{name}(every={value}) must raise ConfigError", "every"
        )


def check_rows_shape(factory: Callable[[], Any], seed: int = 0) -> None:
    """Inside a run, the observer reports at steps ``0, every, 2·every, …`` in the documented row shape.

    ``observe`` returns ``{metric: number}`` or a frame with ``metric``, ``value`` (and optionally
    ``group``); each row's group is NA (everyone) or a string label, each metric a non-empty string,
    each value a number (NaN and infinity allowed, but not all NaN).
    """
    observer = factory()
    name = type(observer).__name__
    observations = _run(factory, seed)
    assert list(observations.columns) == ROW_COLUMNS, f"{name}: observation columns {list(observations.columns)}"
    steps = sorted(int(s) for s in observations["step"].unique())
    expected = list(range(0, CHECK_RUN["run"]["steps"] + 1, observer.every))
    assert steps == expected, f"{name}: observed at steps {steps}, expected {expected} (every={observer.every})"
    assert set(observations["observer"]) == {observer.name}, f"{name}: rows must carry the observer's name"
    assert observations["metric"].map(lambda m: isinstance(m, str) and m != "").all(), f"{name}: metric names"
    groups = observations["group"]
    assert groups.map(lambda g: g is pd.NA or g is None or isinstance(g, str) or g != g).all(), f"{name}: groups"
    values = pd.to_numeric(observations["value"], errors="coerce")
    assert values.notna().sum() > 0, f"{name}: every value is NaN or not a number"


def check_deterministic(factory: Callable[[], Any], seed: int = 0) -> None:
    """Two runs with the same seed and fresh observers give identical rows."""
    name = type(factory()).__name__
    first, second = _run(factory, seed), _run(factory, seed)
    try:
        pd.testing.assert_frame_equal(first, second)
    except AssertionError as error:
        raise AssertionError(f"{name} is not deterministic for a seed: {error}") from None


def check_name_and_every(factory: Callable[[], Any], seed: int = 0) -> None:
    """The observer has a non-empty ``name`` and a positive integer ``every``."""
    observer = factory()
    name = type(observer).__name__
    assert isinstance(observer.name, str) and observer.name, f"{name}: name must be a non-empty string"
    every = observer.every
    assert isinstance(every, int) and not isinstance(every, bool) and every >= 1, f"{name}: every must be an int >= 1"
    empty = observation_rows(observer.name, 0, {})
    assert list(empty.columns) == ROW_COLUMNS


CHECKS: tuple[Check, ...] = (
    check_name_and_every,
    check_rejects_bad_every,
    check_rows_shape,
    check_deterministic,
    check_picklable,
)


def check_observer(factory: Callable[[], Any], *, seed: int = 0) -> None:
    """Check an observer's contract (all of :data:`CHECKS`).

    Properties: has a name and a positive integer ``every``; refuses ``every < 1`` with a
    :class:`~recoursesim.errors.ConfigError` naming ``every`` when built (so a scenario fails when it
    is loaded); inside a small run it reports at steps ``0, every, …`` with rows ``step, observer,
    group, metric, value`` (group NA or a label, numeric values, not all NaN); gives the
    same rows for the same seed; pickles.

    Args:
        factory: A zero-argument callable returning a fresh observer (observers keep per-run state).
            The check run is the bell2024 world: features ``x0`` and ``x1``.
        seed: The run seed.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(bound(KIND, factory), seed)
