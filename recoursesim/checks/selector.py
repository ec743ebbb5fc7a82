"""Conformance checks for selectors."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.checks._common import Check, check_picklable, constructor, expect, init_params, same, snapshot
from recoursesim.errors import ConfigError, DataError
from recoursesim.selection.base import Selection, SelectionContext, check_places, places_at, places_of

KIND = "selector"


def contexts(seed: int) -> list[tuple[np.ndarray, SelectionContext]]:
    """Populations of several sizes and shapes (empty, one agent, heavy ties, a group empty this step).

    Each context carries repayment probabilities, for selectors that lend (``lending``).
    """
    rng = np.random.default_rng(seed)
    repay_rng = np.random.default_rng([seed, 1])  # a stream of its own: the other draws stay as they were
    cases = []
    shapes = [(0, 2, False), (1, 2, False), (7, 2, False), (50, 2, True), (200, 3, False), (30, 3, True)]
    for n, n_groups, tied in shapes:
        scores = rng.choice([0.2, 0.5, 0.8], size=n) if tied else rng.normal(size=n)
        group = rng.integers(0, n_groups, size=n)
        if n_groups == 3 and n:
            group[group == 2] = 1  # group 2 exists but is empty this step
        entry = rng.integers(0, 5, size=n)
        context = SelectionContext(
            step=5,
            agent_id=np.arange(n) + 100,
            entry_step=entry,
            group=group.astype(np.int16),
            n_groups=n_groups,
            features=rng.normal(size=(n, 2)),
            initial_score=scores - np.abs(rng.normal(size=n)) * (entry < 5),
            effort_spent=np.abs(rng.normal(size=n)) * (entry < 5),
            repay=repay_rng.uniform(size=n),
        )
        cases.append((scores, context))
    return cases


def _select(selector: Any, scores: np.ndarray, context: SelectionContext) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return selector.select(scores, context)


def check_selection_shape(factory: Callable[[], Any], seed: int = 0) -> None:
    """``select`` returns a :class:`Selection`: one bool per agent and a scalar or per-agent threshold."""
    selector = factory()
    name = type(selector).__name__
    for scores, context in contexts(seed):
        result = _select(selector, scores, context)
        assert isinstance(result, Selection), f"{name}.select must return a Selection (n={scores.size})"
        mask = np.asarray(result.selected)
        assert mask.dtype == bool and mask.shape == scores.shape, f"{name}: selected must be one bool per agent"
        threshold = result.threshold
        assert np.isscalar(threshold) or np.shape(threshold) == scores.shape, f"{name}: threshold shape"
        assert not np.isnan(np.asarray(threshold, dtype=float)).any(), f"{name}: threshold is NaN (+inf: nobody)"


def check_selection_deterministic(factory: Callable[[], Any], seed: int = 0) -> None:
    """The same scores and context give the same selection and threshold."""
    selector = factory()
    name = type(selector).__name__
    for scores, context in contexts(seed):
        first = _select(selector, scores, context)
        second = _select(factory(), scores.copy(), snapshot(context))
        assert same(first.selected, second.selected) and same(
            np.asarray(first.threshold), np.asarray(second.threshold)
        ), f"{name}.select is not deterministic"


def check_inputs_untouched(factory: Callable[[], Any], seed: int = 0) -> None:
    """``select`` does not modify the scores or the context."""
    selector = factory()
    name = type(selector).__name__
    for scores, context in contexts(seed):
        before = (snapshot(scores), snapshot(context))
        _select(selector, scores, context)
        assert same(scores, before[0]) and same(context, before[1]), f"{name}.select modified its inputs"


def check_selects_min_k_n(factory: Callable[[], Any], seed: int = 0) -> None:
    """A selector with a ``k`` selects exactly ``min(k, n)`` agents."""
    selector = factory()
    k = places_of(selector)
    if k is None:
        return
    name = type(selector).__name__
    for scores, context in contexts(seed):
        mask = np.asarray(_select(selector, scores, context).selected)
        places = places_at(check_places("k", k), context.step)
        assert mask.sum() == min(places, scores.size), f"{name}: selected {mask.sum()} agents, expected min(k, n)"


def check_rejects_bad_scores(factory: Callable[[], Any], seed: int = 0) -> None:
    """NaN scores and scores not aligned with the context raise :class:`DataError`."""
    selector = factory()
    name = type(selector).__name__
    scores, context = contexts(seed)[3]
    bad = scores.copy()
    bad[0] = np.nan
    expect(DataError, lambda: selector.select(bad, context), f"{name} must reject NaN scores with DataError")
    expect(DataError, lambda: selector.select(scores[:-1], context), f"{name} must reject misaligned scores")


def check_rejects_bad_k(factory: Callable[[], Any], seed: int = 0) -> None:
    """A non-positive ``k`` is refused with a :class:`ConfigError` naming ``k``."""
    selector = factory()
    name = type(selector).__name__
    if "k" not in inspect.signature(type(selector)).parameters:
        return
    for value in (0, -1):
        params = {**init_params(selector), "k": value}
        expect(ConfigError, constructor(type(selector), params), f"{name}(k={value}) must raise ConfigError", "k")


CHECKS: tuple[Check, ...] = (
    check_selection_shape,
    check_selection_deterministic,
    check_inputs_untouched,
    check_selects_min_k_n,
    check_rejects_bad_scores,
    check_rejects_bad_k,
    check_picklable,
)


def check_selector(selector: Any, *, seed: int = 0) -> None:
    """Check a selector's contract on varied populations (all of :data:`CHECKS`).

    Properties: returns a :class:`Selection` with one boolean per agent and a scalar or per-agent
    threshold, also for an empty population; is deterministic; does not modify its inputs; selects
    exactly ``min(k, n)`` agents when it has a ``k``; raises :class:`~recoursesim.errors.DataError`
    on NaN scores and on scores not aligned with the context; rejects a non-positive ``k`` with a
    :class:`~recoursesim.errors.ConfigError` naming ``k``; pickles.

    Args:
        selector: The selector instance to check.
        seed: Seed for the generated populations.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(lambda: selector, seed)
