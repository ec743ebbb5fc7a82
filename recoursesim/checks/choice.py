"""Conformance checks for choice policies (where applicants apply in a market of lenders)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.checks._common import Check, check_picklable, same, snapshot
from recoursesim.choice.base import ChoiceContext, lender_order_of

KIND = "choice"


def _decide(scores: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Lenders that accept every applicant scoring at least 0.5 (what ``decide`` returns in the checks)."""
    return lambda applied: applied & (scores >= 0.5)


def contexts(seed: int, stream: int = 0) -> list[ChoiceContext]:
    """Markets of several shapes: no applicant, one, many; one to four lenders; first step (no thresholds) and later."""
    rng = np.random.default_rng(seed)
    cases = []
    for i, (n, n_lenders, first) in enumerate(
        ((0, 2, True), (1, 1, False), (1, 3, True), (60, 2, False), (200, 4, False))
    ):
        scores = rng.uniform(size=(n, n_lenders))
        last_cost = np.where(rng.uniform(size=(n, n_lenders)) < 0.3, np.nan, rng.uniform(size=(n, n_lenders)))
        cases.append(
            ChoiceContext(
                step=0 if first else 4,
                lender_names=tuple(f"lender-{j}" for j in range(n_lenders)),
                agent_id=np.arange(n) + 10,
                scores=scores,
                last_threshold=np.full(n_lenders, np.nan) if first else rng.uniform(0.3, 0.7, size=n_lenders),
                last_cost=np.full((n, n_lenders), np.nan) if first else last_cost,
                capacity=rng.uniform(0.0, 2.0, size=n),
                rng=np.random.default_rng([seed, stream, i]),
                decide=_decide(scores),
            )
        )
    return cases


def check_choose_shape(factory: Callable[[], Any], seed: int = 0) -> None:
    """``choose`` returns an ``(n, L)`` boolean mask in which every applicant applies somewhere."""
    choice = factory()
    name = type(choice).__name__
    for context in contexts(seed):
        if not _applicable(choice, context):
            continue
        applied = np.asarray(choice.choose(context))
        assert applied.dtype == bool and applied.shape == context.scores.shape, f"{name}: applied must be (n, L) bools"
        assert applied.any(axis=1).all(), f"{name}: every applicant must apply to at least one lender"


def check_one_lender_is_all(factory: Callable[[], Any], seed: int = 0) -> None:
    """With one lender every applicant applies to it."""
    choice = factory()
    for context in contexts(seed):
        if context.scores.shape[1] == 1 and _applicable(choice, context):
            assert np.asarray(choice.choose(context)).all(), f"{type(choice).__name__}: with one lender, apply to it"


def check_choose_deterministic(factory: Callable[[], Any], seed: int = 0) -> None:
    """The same context and random stream give the same mask."""
    name = type(factory()).__name__
    for first, second in zip(contexts(seed, stream=3), contexts(seed, stream=3), strict=True):
        if _applicable(factory(), first):
            assert same(factory().choose(first), factory().choose(second)), f"{name}.choose is not deterministic"


def check_inputs_untouched(factory: Callable[[], Any], seed: int = 0) -> None:
    """``choose`` does not modify the scores, thresholds, costs or capacities it is given."""
    choice = factory()
    name = type(choice).__name__
    for context in contexts(seed):
        if not _applicable(choice, context):
            continue
        arrays = (context.scores, context.last_threshold, context.last_cost, context.capacity, context.agent_id)
        before = snapshot(arrays)
        choice.choose(context)
        assert same(before, arrays), f"{name}.choose modified its inputs"


def _applicable(choice: Any, context: ChoiceContext) -> bool:
    """Whether ``context`` has the lenders a policy with a fixed ``order`` of lender names names."""
    order = lender_order_of(choice)
    return order is None or all(lender in context.lender_names for lender in order)


CHECKS: tuple[Check, ...] = (
    check_choose_shape,
    check_one_lender_is_all,
    check_choose_deterministic,
    check_inputs_untouched,
    check_picklable,
)


def check_choice(choice: Any, *, seed: int = 0) -> None:
    """Check a choice policy's contract (all of :data:`CHECKS`).

    Properties: ``choose`` returns an ``(n, L)`` boolean mask with at least one lender per
    applicant, for 0, 1 and many applicants and 1 to 4 lenders, at the first step (no thresholds,
    no costs) and later; with one lender, everybody applies to it; the same context and random
    stream give the same mask; the inputs are left untouched; the policy pickles.

    Args:
        choice: The choice policy to check.
        seed: Seed for the generated markets.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(lambda: choice, seed)
