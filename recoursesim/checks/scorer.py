"""Conformance checks for scorers (fixed ones, and models fitted by ``prepare`` when a run starts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.checks._common import Check, bound, check_picklable, same, snapshot
from recoursesim.component import CHECK_POPULATION
from recoursesim.scoring.base import LinearForm, linear_form_of, width_of

KIND = "scorer"


def ready(factory: Callable[[], Any], seed: int) -> tuple[Any, np.ndarray]:
    """Return a scorer ready to score and 60 rows of features it accepts.

    A scorer that fits on the population (``fits_on_population``) is prepared on
    :data:`CHECK_POPULATION`; any other scorer gets uniform features with ``n_features_in_`` columns
    (2 if it does not say).
    """
    scorer = factory()
    rng = np.random.default_rng(seed)
    if scorer.fits_on_population:
        from recoursesim.registry import build

        population = build("population", CHECK_POPULATION)
        population.fit(rng)
        features = population.sample(60, rng).features
        return scorer.prepare(population, rng), features
    width = width_of(scorer)
    width = 2 if width is None else width
    return scorer, rng.uniform(0, 1, size=(60, width))


def check_score_shape(factory: Callable[[], Any], seed: int = 0) -> None:
    """``score`` returns one finite float per row, also for zero rows and one row."""
    scorer, features = ready(factory, seed)
    name = type(scorer).__name__
    for rows in (features[:0], features[:1], features):
        scores = np.asarray(scorer.score(rows))
        assert scores.shape == (rows.shape[0],), f"{name}.score must return one score per row (got {scores.shape})"
        assert np.issubdtype(scores.dtype, np.floating) or np.issubdtype(scores.dtype, np.integer), (
            f"{name}.score must return numbers"
        )
        assert np.all(np.isfinite(scores)), f"{name}.score returned non-finite scores"


def check_score_deterministic_and_pure(factory: Callable[[], Any], seed: int = 0) -> None:
    """Scoring twice gives the same scores and leaves the features untouched."""
    scorer, features = ready(factory, seed)
    name = type(scorer).__name__
    before = snapshot(features)
    first = np.asarray(scorer.score(features))
    second = np.asarray(scorer.score(features.copy()))
    assert same(features, before), f"{name}.score modified its input"
    assert np.array_equal(first, second), f"{name}.score is not deterministic"


def check_rows_scored_independently(factory: Callable[[], Any], seed: int = 0) -> None:
    """A row's score does not depend on the other rows scored with it (subsets and reordering)."""
    scorer, features = ready(factory, seed)
    name = type(scorer).__name__
    whole = np.asarray(scorer.score(features))
    order = np.random.default_rng(seed).permutation(features.shape[0])
    assert np.allclose(np.asarray(scorer.score(features[order])), whole[order]), f"{name}: scores depend on row order"
    assert np.allclose(np.asarray(scorer.score(features[:7])), whole[:7]), f"{name}: scores depend on the batch"


def check_linear_form_matches(factory: Callable[[], Any], seed: int = 0) -> None:
    """A scorer that offers ``linear_form()`` scores exactly as that form says."""
    scorer, features = ready(factory, seed)
    form = linear_form_of(scorer)
    if form is None:
        return
    name = type(scorer).__name__
    assert isinstance(form, LinearForm), f"{name}.linear_form must return a LinearForm or None"
    expected = np.asarray(form.to_score(form.margin(features)))
    assert np.allclose(np.asarray(scorer.score(features)), expected), f"{name}: score disagrees with linear_form"


def check_ready_scorer_picklable(factory: Callable[[], Any], seed: int = 0) -> None:
    """The scorer, and the fitted scorer ``prepare`` returns, survive a pickle round trip."""
    check_picklable(factory, seed)
    scorer, _ = ready(factory, seed)
    check_picklable(lambda: scorer, seed)


CHECKS: tuple[Check, ...] = (
    check_score_shape,
    check_score_deterministic_and_pure,
    check_rows_scored_independently,
    check_linear_form_matches,
    check_ready_scorer_picklable,
)


def check_scorer(scorer: Any, *, seed: int = 0) -> None:
    """Check a scorer's contract (all of :data:`CHECKS`).

    Properties: ``score`` returns one finite number per row (also for 0 and 1 rows), is
    deterministic, leaves its input untouched and scores each row independently of the others;
    ``linear_form()``, when offered, agrees with ``score``; the scorer (and the fitted scorer
    ``prepare`` returns, for models fitted when a run starts) pickles.

    Args:
        scorer: The scorer instance to check.
        seed: Seed for the generated features.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(bound(KIND, lambda: scorer), seed)
