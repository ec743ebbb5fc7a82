"""Conformance checks for trainers (they keep a history, so every check builds fresh ones)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from recoursesim.checks._common import Check, bound, check_picklable, same, snapshot
from recoursesim.scoring import LinearScorer
from recoursesim.scoring.base import Scores
from recoursesim.training.base import TrainingContext

KIND = "trainer"


@dataclass(frozen=True)
class _Step:
    """One step's data: 120 agents, the top 20 selected, recommendations for the rest."""

    features: np.ndarray
    group: np.ndarray
    scores: np.ndarray
    selected: np.ndarray
    threshold: float
    recommendation: np.ndarray
    scorer: LinearScorer

    def context(self, stream: int, selected: np.ndarray | None = None) -> TrainingContext:
        return TrainingContext(
            step=1,
            features=self.features,
            group=self.group,
            scores=self.scores,
            selected=self.selected if selected is None else selected,
            threshold=self.threshold,
            recommendation=self.recommendation,
            scorer=self.scorer,
            rng=np.random.default_rng(stream),
        )


def _step(seed: int) -> _Step:
    rng = np.random.default_rng(seed)
    n = 120
    features = rng.uniform(0, 1, size=(n, 2))
    group = (rng.random(n) < 0.5).astype(np.int16)
    scorer = LinearScorer([0.5, 0.5])
    scores = scorer.score(features)
    selected = np.zeros(n, dtype=bool)
    selected[np.argsort(-scores)[:20]] = True
    threshold = float(scores[selected].min())
    recommendation = np.full(features.shape, np.nan)
    gap = threshold - scores[~selected]
    recommendation[~selected] = features[~selected] + gap[:, None] * np.array([1.0, 1.0])
    return _Step(features, group, scores, selected, threshold, recommendation, scorer)


def _update(trainer: Any, context: TrainingContext) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return trainer.update(context)


def check_update_returns_scorer(factory: Callable[[], Any], seed: int = 0) -> None:
    """``update`` returns a scorer (an object with ``score``) whose scores are finite."""
    step = _step(seed)
    name = type(factory()).__name__
    model = _update(factory(), step.context(seed))
    assert isinstance(model, Scores), f"{name}.update must return a scorer"
    probe = np.random.default_rng(seed + 1).uniform(0, 1, size=(25, 2))
    assert np.all(np.isfinite(model.score(probe))), f"{name}: the returned scorer gives non-finite scores"


def check_update_deterministic(factory: Callable[[], Any], seed: int = 0) -> None:
    """The same inputs and the same random stream give the same model."""
    step = _step(seed)
    name = type(factory()).__name__
    first = _update(factory(), step.context(seed))
    second = _update(factory(), step.context(seed))
    probe = np.random.default_rng(seed + 1).uniform(0, 1, size=(25, 2))
    assert np.allclose(first.score(probe), second.score(probe)), f"{name}.update is not deterministic"


def check_update_inputs_untouched(factory: Callable[[], Any], seed: int = 0) -> None:
    """``update`` does not modify the step's arrays."""
    step = _step(seed)
    name = type(factory()).__name__
    fields = ("features", "group", "scores", "selected", "recommendation")
    before = snapshot(tuple(getattr(step, f) for f in fields))
    _update(factory(), step.context(seed))
    after = tuple(getattr(step, f) for f in fields)
    assert same(before, after), f"{name}.update modified its inputs"


def check_one_class_keeps_model(factory: Callable[[], Any], seed: int = 0) -> None:
    """A step where everybody was selected (one class) keeps the current model, with a RuntimeWarning."""
    step = _step(seed)
    name = type(factory()).__name__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept = factory().update(step.context(seed, np.ones(step.scores.size, dtype=bool)))
    assert kept is step.scorer, f"{name}: with one-class labels the current model must be kept"
    assert any(issubclass(w.category, RuntimeWarning) for w in caught), f"{name}: one-class labels must warn"


def check_start_returns_scorer(factory: Callable[[], Any], seed: int = 0) -> None:
    """``start`` returns a scorer (the default ``start`` returns the scorer given)."""
    trainer = factory()
    step = _step(seed)
    started = trainer.start(step.features, step.group, step.scorer, np.random.default_rng(seed))
    assert isinstance(started, Scores), f"{type(trainer).__name__}.start must return a scorer"


CHECKS: tuple[Check, ...] = (
    check_update_returns_scorer,
    check_update_deterministic,
    check_update_inputs_untouched,
    check_one_class_keeps_model,
    check_start_returns_scorer,
    check_picklable,
)


def check_trainer(trainer_factory: Callable[[], Any], *, seed: int = 0) -> None:
    """Check a trainer's contract (all of :data:`CHECKS`).

    Properties: ``update`` returns a scorer whose scores are finite; the same inputs and the same
    random stream give the same model; inputs are not modified; a step where everybody was selected
    (one class, nothing to augment) keeps the current model with a warning; ``start`` (if present)
    returns a scorer; the trainer pickles.

    Args:
        trainer_factory: Builds a fresh trainer (trainers keep a history, so each check uses a new one).
        seed: Seed for the generated data.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(bound(KIND, trainer_factory), seed)
