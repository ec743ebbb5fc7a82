"""Conformance suites for plug-ins, in the spirit of scikit-learn's estimator checks.

Every selector and trainer shipped with recoursesim passes these, and a user's plug-in should
too::

    from recoursesim.checks import check_selector
    check_selector(MySelector(k=10))

Each check raises ``AssertionError`` with a message naming the failed property.
"""

from __future__ import annotations

import copy
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.errors import ConfigError, DataError
from recoursesim.scoring import LinearScorer
from recoursesim.selection.base import Selection, SelectionContext
from recoursesim.training.base import TrainingContext


def _contexts(rng: np.random.Generator) -> list[tuple[np.ndarray, SelectionContext]]:
    """Populations of several sizes and shapes, some with heavy ties and a missing group."""
    cases = []
    for n, n_groups, tied in [
        (0, 2, False),
        (1, 2, False),
        (7, 2, False),
        (50, 2, True),
        (200, 3, False),
        (30, 3, True),
    ]:
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
        )
        cases.append((scores, context))
    return cases


def _snapshot(value: Any) -> Any:
    return copy.deepcopy(value)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    if hasattr(a, "__dataclass_fields__"):
        return all(_same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    return a == b or (isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b))


def check_selector(selector: Any, *, seed: int = 0) -> None:
    """Check a selector's contract on varied populations.

    Properties: returns a :class:`Selection` with one boolean per agent and a scalar or per-agent
    threshold; is deterministic; does not modify its inputs; selects exactly ``min(k, n)`` agents
    when it has a ``k``; raises :class:`~recoursesim.errors.DataError` on NaN scores and on
    scores not aligned with the context; rejects a non-positive ``k`` with a
    :class:`~recoursesim.errors.ConfigError` naming ``k``.

    Args:
        selector: The selector instance to check.
        seed: Seed for the generated populations.
    """
    name = type(selector).__name__
    rng = np.random.default_rng(seed)
    for scores, context in _contexts(rng):
        before = (_snapshot(scores), _snapshot(context))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            first = selector.select(scores, context)
            second = selector.select(scores.copy(), _snapshot(context))
        assert isinstance(first, Selection), f"{name}.select must return a Selection"
        assert _same(scores, before[0]) and _same(context, before[1]), f"{name}.select modified its inputs"
        mask = np.asarray(first.selected)
        assert mask.dtype == bool and mask.shape == scores.shape, f"{name}: selected must be one bool per agent"
        threshold = first.threshold
        assert np.isscalar(threshold) or np.shape(threshold) == scores.shape, f"{name}: threshold shape"
        assert _same(first.selected, second.selected) and _same(
            np.asarray(first.threshold), np.asarray(second.threshold)
        ), f"{name}.select is not deterministic"
        k = getattr(selector, "k", None)
        if k is not None:
            assert mask.sum() == min(k, scores.size), f"{name}: selected {mask.sum()} agents, expected min(k, n)"
    scores, context = _contexts(rng)[3]
    bad = scores.copy()
    bad[0] = np.nan
    _expect(DataError, lambda: selector.select(bad, context), f"{name} must reject NaN scores with DataError")
    _expect(DataError, lambda: selector.select(scores[:-1], context), f"{name} must reject misaligned scores")
    if "k" in inspect.signature(type(selector)).parameters:
        for value in (0, -1):
            params = {**_init_params(selector), "k": value}
            _expect(ConfigError, lambda p=params: type(selector)(**p), f"{name}(k={value}) must raise ConfigError", "k")


def check_trainer(trainer_factory: Callable[[], Any], *, seed: int = 0) -> None:
    """Check a trainer's contract.

    Properties: ``update`` returns a scorer (an object with ``score``) whose scores are finite;
    the same inputs and the same random stream give the same model; inputs are not modified; a
    step where everybody was selected (one class, nothing to augment) keeps the current model with a
    warning; ``start`` (if
    present) returns a scorer.

    Args:
        trainer_factory: Builds a fresh trainer (trainers keep a history, so each check uses a new one).
        seed: Seed for the generated data.
    """
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

    def context(stream: int, chosen: np.ndarray = selected) -> TrainingContext:
        return TrainingContext(
            step=1,
            features=features,
            group=group,
            scores=scores,
            selected=chosen,
            threshold=threshold,
            recommendation=recommendation,
            scorer=scorer,
            rng=np.random.default_rng(stream),
        )

    name = type(trainer_factory()).__name__
    before = _snapshot((features, group, scores, selected, recommendation))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        first = trainer_factory().update(context(seed))
        second = trainer_factory().update(context(seed))
    assert callable(getattr(first, "score", None)), f"{name}.update must return a scorer"
    probe = rng.uniform(0, 1, size=(25, 2))
    assert np.all(np.isfinite(first.score(probe))), f"{name}: the returned scorer gives non-finite scores"
    assert np.allclose(first.score(probe), second.score(probe)), f"{name}.update is not deterministic"
    after = (features, group, scores, selected, recommendation)
    assert all(_same(a, b) for a, b in zip(before, after, strict=True)), f"{name}.update modified its inputs"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept = trainer_factory().update(context(seed, np.ones(n, dtype=bool)))  # nobody negative: one class
    assert kept is scorer, f"{name}: with one-class labels the current model must be kept"
    assert any(issubclass(w.category, RuntimeWarning) for w in caught), f"{name}: one-class labels must warn"
    trainer = trainer_factory()
    if hasattr(trainer, "start"):
        started = trainer.start(features, group, scorer, np.random.default_rng(seed))
        assert callable(getattr(started, "score", None)), f"{name}.start must return a scorer"


def _init_params(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in inspect.signature(type(obj)).parameters if hasattr(obj, name)}


def _expect(error: type[Exception], action: Callable[[], Any], message: str, field: str | None = None) -> None:
    try:
        action()
    except error as caught:
        if field is not None:
            assert str(caught).startswith(field), f"{message} (got {caught})"
        return
    raise AssertionError(message)
