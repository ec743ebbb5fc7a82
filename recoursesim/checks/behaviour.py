"""Conformance checks for behaviours (how agents act on their recommendations)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.behaviour.base import ActionContext
from recoursesim.checks._common import Check, bound, check_picklable, same, snapshot
from recoursesim.scoring import LinearScorer

KIND = "behaviour"


def _l2(moves: np.ndarray) -> np.ndarray:
    return np.linalg.norm(moves, axis=1)


def contexts(seed: int, stream: int | None = None) -> list[ActionContext]:
    """Waiting agents of several sizes (0, 1, 40), with scalar and per-agent thresholds, in the unit square."""
    rng = np.random.default_rng(seed)
    scorer = LinearScorer([0.5, 0.5])
    cases = []
    for n, per_agent in ((0, False), (1, False), (40, False), (40, True)):
        features = rng.uniform(0, 0.8, size=(n, 2))
        recommendation = np.clip(features + rng.uniform(0, 0.2, size=(n, 2)), 0, 1)
        scores = scorer.score(features)
        target = scorer.score(recommendation)
        cases.append(
            ActionContext(
                features=features,
                recommendation=recommendation,
                effort=np.abs(rng.normal(0, 0.05, size=n)),
                scores=scores,
                threshold=target if per_agent else float(target.max()) if n else 0.5,
                scorer=scorer,
                cost=_l2,
                rng=np.random.default_rng(seed if stream is None else stream),
                step=3,
            )
        )
    return cases


def check_act_shape(factory: Callable[[], Any], seed: int = 0) -> None:
    """``act`` returns a new ``(n, d)`` array of finite features, also for 0 and 1 agents."""
    behaviour = factory()
    name = type(behaviour).__name__
    for context in contexts(seed):
        moved = np.asarray(behaviour.act(context))
        assert moved.shape == context.features.shape, f"{name}.act must return one row per agent (got {moved.shape})"
        assert np.all(np.isfinite(moved)), f"{name}.act returned non-finite features"
        assert moved is not context.features, f"{name}.act must return a new array"


def check_act_inputs_untouched(factory: Callable[[], Any], seed: int = 0) -> None:
    """``act`` does not modify the features, recommendations, effort, scores or threshold."""
    behaviour = factory()
    name = type(behaviour).__name__
    for context in contexts(seed):
        fields = ("features", "recommendation", "effort", "scores", "threshold")
        before = snapshot(tuple(getattr(context, f) for f in fields))
        behaviour.act(context)
        assert same(before, tuple(getattr(context, f) for f in fields)), f"{name}.act modified its inputs"


def check_act_deterministic(factory: Callable[[], Any], seed: int = 0) -> None:
    """The same context and the same random stream give the same moves."""
    name = type(factory()).__name__
    for first, second in zip(contexts(seed, stream=7), contexts(seed, stream=7), strict=True):
        a = np.asarray(factory().act(first))
        b = np.asarray(factory().act(second))
        assert np.array_equal(a, b), f"{name}.act is not deterministic for a given random stream"


CHECKS: tuple[Check, ...] = (check_act_shape, check_act_inputs_untouched, check_act_deterministic, check_picklable)


def check_behaviour(behaviour: Any, *, seed: int = 0) -> None:
    """Check a behaviour's contract (all of :data:`CHECKS`).

    Properties: ``act`` returns a new ``(n, d)`` array of finite features for 0, 1 and many agents
    with scalar or per-agent thresholds; leaves its inputs untouched; is deterministic for a given
    random stream; the behaviour pickles.

    Args:
        behaviour: The behaviour instance to check.
        seed: Seed for the generated agents.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(bound(KIND, lambda: behaviour), seed)
