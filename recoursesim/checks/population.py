"""Conformance checks for population generators."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.checks._common import Check, check_picklable, same
from recoursesim.features.capabilities import OffersTrainingData, schema_of
from recoursesim.populations.base import PopulationGenerator

KIND = "population"

#: Cohort sizes every generator must handle.
SIZES: tuple[int, ...] = (0, 1, 17, 200)


def _fitted(factory: Callable[[], Any], seed: int) -> Any:
    population = factory()
    fitted = population.fit(np.random.default_rng(seed))
    assert fitted is population, f"{type(population).__name__}.fit must return self"
    return population


def check_declares_names(factory: Callable[[], Any], seed: int = 0) -> None:
    """``feature_names`` and ``group_names`` are non-empty tuples of distinct strings."""
    population = factory()
    name = type(population).__name__
    assert isinstance(population, PopulationGenerator), f"{name} must have feature_names, group_names, fit and sample"
    for attribute, names in (("feature_names", population.feature_names), ("group_names", population.group_names)):
        assert isinstance(names, tuple) and names, f"{name}.{attribute} must be a non-empty tuple"
        assert all(isinstance(n, str) for n in names), f"{name}.{attribute} must hold strings"
        assert len(set(names)) == len(names), f"{name}.{attribute} must be distinct"


def check_cohort_shape(factory: Callable[[], Any], seed: int = 0) -> None:
    """``sample(n)`` gives ``n`` agents: finite ``(n, d)`` features, valid group codes, effort >= 0."""
    population = _fitted(factory, seed)
    name = type(population).__name__
    d, n_groups = len(population.feature_names), len(population.group_names)
    rng = np.random.default_rng(seed + 1)
    for n in SIZES:
        cohort = population.sample(n, rng)
        features = np.asarray(cohort.features)
        assert features.shape == (n, d), f"{name}.sample({n}) gave features of shape {features.shape}"
        assert np.all(np.isfinite(features)), f"{name}.sample({n}) gave NaN or infinite features"
        group = np.asarray(cohort.group)
        assert group.shape == (n,) and np.issubdtype(group.dtype, np.integer), f"{name}: one integer group per agent"
        assert np.all((group >= 0) & (group < n_groups)), f"{name}: group codes outside 0..{n_groups - 1}"
        effort = np.asarray(cohort.effort, dtype=float)
        assert effort.shape == (n,), f"{name}: one effort capacity per agent"
        assert np.all(np.isfinite(effort) & (effort >= 0)), f"{name}: effort capacities must be finite and >= 0"


def check_deterministic(factory: Callable[[], Any], seed: int = 0) -> None:
    """The same seeds give the same cohorts (a run is a pure function of its seed)."""
    cohorts = []
    for _ in range(2):
        population = _fitted(factory, seed)
        rng = np.random.default_rng(seed + 7)
        cohorts.append([population.sample(n, rng) for n in (50, 13)])
    name = type(factory()).__name__
    for first, second in zip(*cohorts, strict=True):
        assert same(first.features, second.features), f"{name}: same seed, different features"
        assert same(first.group, second.group) and same(first.effort, second.effort), f"{name}: same seed, different"


def check_schema_codes(factory: Callable[[], Any], seed: int = 0) -> None:
    """A population with a feature ``schema`` draws valid code-space rows; its training rows are labelled.

    Integer, ordinal and categorical features are whole numbers inside the schema's range, the
    schema's names are the feature names, and ``training_data()`` (if present) returns aligned
    features and 0/1 labels with both outcomes.
    """
    population = _fitted(factory, seed)
    schema = schema_of(population)
    if schema is None:
        return
    name = type(population).__name__
    assert tuple(schema.names) == tuple(population.feature_names), f"{name}: schema names differ from feature_names"
    features = np.asarray(population.sample(300, np.random.default_rng(seed)).features)
    discrete = features[:, schema.is_discrete]
    assert np.array_equal(discrete, np.rint(discrete)), f"{name}: discrete features must be whole numbers"
    inside = (features >= schema.lower - 1e-9) & (features <= schema.upper + 1e-9)
    assert inside.all(), f"{name}: features outside the schema's observed range"
    np.testing.assert_array_equal(schema.encode(schema.decode(features)), features, f"{name}: decode/encode")
    if isinstance(population, OffersTrainingData):
        X, y = population.training_data()
        assert np.asarray(X).shape[1:] == (len(schema),) and len(X) == len(y), f"{name}: training rows misaligned"
        assert set(np.unique(y).tolist()) == {0, 1}, f"{name}: training labels must be 0/1 with both outcomes"


CHECKS: tuple[Check, ...] = (
    check_declares_names,
    check_cohort_shape,
    check_deterministic,
    check_schema_codes,
    check_picklable,
)


def check_population(population_factory: Callable[[], Any], *, seed: int = 0) -> None:
    """Check a population generator's contract (all of :data:`CHECKS`).

    Properties: declares distinct feature and group names; ``fit`` returns the generator;
    ``sample(n)`` for ``n`` in :data:`SIZES` gives finite ``(n, d)`` features, integer group codes
    in range and finite non-negative effort; the same seeds give the same cohorts; a population
    with a feature schema draws whole-number codes inside the schema's range that survive a
    decode/encode round trip, and labels its training rows 0/1; pickles.

    Args:
        population_factory: A zero-argument callable returning a fresh, unfitted generator
            (populations learn state in ``fit``, so each check builds its own).
        seed: Seed for fitting and sampling.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(population_factory, seed)
