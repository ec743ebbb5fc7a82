"""Conformance checks for recourse generators (built-in and plug-ins).

The checks run in a small world every generator can work in: two numeric features on
``[0, 1]`` (``x0``, ``x1``) scored by the linear ranker ``0.5 x0 + 0.5 x1``, 20 agents (two
corners and the centre among them) with the cut-off at the median score, so half of them need
a recommendation (few enough for slow generators such as DiCE).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.checks._common import Check, bound, check_picklable, same, snapshot
from recoursesim.recourse.base import action_set_of, reported_found
from recoursesim.scoring import LinearScorer

KIND = "recourse"


def _world(seed: int, n: int = 20) -> tuple[np.ndarray, np.ndarray, float, LinearScorer]:
    rng = np.random.default_rng(seed)
    features = rng.uniform(0.0, 1.0, size=(n, 2))
    features[:3] = [[1.0, 1.0], [0.0, 0.0], [0.5, 0.5]]  # a corner, the far corner, a tie-prone point
    scorer = LinearScorer([0.5, 0.5])
    scores = scorer.score(features)
    return features, scores, float(np.quantile(scores, 0.5)), scorer


def check_recommendation_shape(factory: Callable[[], Any], seed: int) -> None:
    """One finite recommendation per agent, in feature space; agents at or above the cut-off stay put."""
    generator = factory()
    name = type(generator).__name__
    features, scores, threshold, scorer = _world(seed)
    recommendation = np.asarray(generator.recommend(features, scores, threshold, scorer))
    assert recommendation.shape == features.shape, f"{name}: recommendation shape {recommendation.shape}"
    assert np.all(np.isfinite(recommendation)), f"{name}: a recommendation is NaN or infinite"
    above = scores >= threshold
    assert np.array_equal(recommendation[above], features[above]), f"{name}: moved an agent already at the cut-off"
    empty = np.asarray(generator.recommend(features[:0], scores[:0], threshold, scorer))
    assert empty.shape == (0, 2), f"{name}: an empty population gave shape {empty.shape}"


def check_recommendation_deterministic(factory: Callable[[], Any], seed: int) -> None:
    """The same inputs give the same recommendations (also from a fresh generator)."""
    features, scores, threshold, scorer = _world(seed)
    first = factory().recommend(features, scores, threshold, scorer)
    generator = factory()
    second = generator.recommend(features, scores, threshold, scorer)
    third = generator.recommend(features, scores, threshold, scorer)
    name = type(generator).__name__
    assert same(np.asarray(first), np.asarray(second)), f"{name}: two fresh generators disagree"
    assert same(np.asarray(second), np.asarray(third)), f"{name}: a second call disagrees with the first"


def check_inputs_untouched(factory: Callable[[], Any], seed: int) -> None:
    """``recommend`` and ``cost`` do not modify their arguments."""
    generator = factory()
    features, scores, threshold, scorer = _world(seed)
    kept = snapshot((features, scores))
    recommendation = np.asarray(generator.recommend(features, scores, threshold, scorer))
    assert same(kept, (features, scores)), f"{type(generator).__name__}: recommend modified its inputs"
    moves = recommendation - features
    kept_moves = moves.copy()
    generator.cost(moves)
    assert same(kept_moves, moves), f"{type(generator).__name__}: cost modified the moves"


def check_cost(factory: Callable[[], Any], seed: int) -> None:
    """Costs are one finite float >= 0 per move, 0 for no move, and do not fall when a move is doubled."""
    generator = factory()
    name = type(generator).__name__
    rng = np.random.default_rng(seed)
    moves = rng.normal(scale=0.2, size=(40, 2))
    cost = np.asarray(generator.cost(moves))
    assert cost.shape == (40,) and cost.dtype.kind == "f", f"{name}: cost gave {cost.shape} {cost.dtype}"
    assert np.all(np.isfinite(cost)) and np.all(cost >= 0), f"{name}: a cost is negative or not finite"
    assert np.all(np.asarray(generator.cost(np.zeros((3, 2)))) == 0), f"{name}: standing still costs something"
    assert np.all(np.asarray(generator.cost(2 * moves)) >= cost - 1e-12), f"{name}: a longer move costs less"


def check_found_is_reported_honestly(factory: Callable[[], Any], seed: int) -> None:
    """If the generator reports ``found_``: one boolean per agent; found ones are accepted, the rest stay put.

    Generators that do not report ``found_`` pass (the attribute is optional).
    """
    generator = factory()
    name = type(generator).__name__
    features, scores, threshold, scorer = _world(seed)
    recommendation = np.asarray(generator.recommend(features, scores, threshold, scorer))
    found = reported_found(generator)
    if found is None:
        return
    found = np.asarray(found)
    assert found.shape == (features.shape[0],) and found.dtype == bool, f"{name}: found_ is {found.shape} {found.dtype}"
    accepted = scorer.score(recommendation) >= threshold
    assert np.all(accepted[found]), f"{name}: a recommendation reported as found is below the cut-off"
    assert np.array_equal(recommendation[~found], features[~found]), f"{name}: an agent with none found was moved"
    assert np.all(found[scores >= threshold]), f"{name}: an agent at the cut-off is reported as without recourse"
    actions = action_set_of(generator)
    if actions is not None:
        assert np.all(actions.is_valid(features, recommendation)), f"{name}: a recommendation breaks the action set"


CHECKS: tuple[Check, ...] = (
    check_recommendation_shape,
    check_recommendation_deterministic,
    check_inputs_untouched,
    check_cost,
    check_found_is_reported_honestly,
    check_picklable,
)


def check_recourse(generator: Any, *, seed: int = 0) -> None:
    """Check a recourse generator's contract (all of :data:`CHECKS`).

    Properties: one finite recommendation per agent, agents at the cut-off unchanged, also for no
    agents; deterministic; inputs untouched; costs finite, non-negative, zero for no move and not
    smaller for a doubled move; when ``found_`` is reported, it is one boolean per agent, every
    found recommendation is accepted by the model and legal under the generator's action set, and
    agents without one stay put; pickles.

    Args:
        generator: The generator instance to check (for two features ``x0``, ``x1``).
        seed: Seed for the generated agents.

    Raises:
        AssertionError: naming the property that failed.
    """
    for check in CHECKS:
        check(bound(KIND, lambda: generator), seed)
