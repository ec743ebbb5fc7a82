"""Conformance checks for outcome components (what a granted loan does to the borrower)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.checks._common import Check, check_picklable, same, snapshot
from recoursesim.selection.loan_outcome import LoanContext, LoanResult

KIND = "outcome"


def contexts(seed: int, stream: int = 0) -> list[LoanContext]:
    """Borrowers of several sizes (none, one, many) on the 300–850 score scale, each with its own stream."""
    rng = np.random.default_rng(seed)
    cases = []
    for i, n in enumerate((0, 1, 40, 500)):
        features = np.column_stack([rng.uniform(300.0, 850.0, size=n), rng.normal(size=n)])
        cases.append(
            LoanContext(
                step=3,
                features=features,
                feature_names=("score", "other"),
                repay=rng.uniform(size=n),
                rng=np.random.default_rng([seed, stream, i]),
            )
        )
    return cases


def check_resolve_shape(factory: Callable[[], Any], seed: int = 0) -> None:
    """``resolve`` returns a :class:`LoanResult`: new finite features, one flag and one utility per loan."""
    outcome = factory()
    name = type(outcome).__name__
    for context in contexts(seed):
        result = outcome.resolve(context)
        n = context.repay.size
        assert isinstance(result, LoanResult), f"{name}.resolve must return a LoanResult (n={n})"
        features = np.asarray(result.features)
        assert features.shape == context.features.shape, f"{name}: features must keep their shape"
        assert np.all(np.isfinite(features)), f"{name}: features must stay finite"
        assert features is not context.features, f"{name}: features must be a new array"
        assert np.asarray(result.repaid).dtype == bool and np.shape(result.repaid) == (n,), f"{name}: repaid"
        assert np.shape(result.utility) == (n,) and np.all(np.isfinite(result.utility)), f"{name}: utility"


def check_resolve_deterministic(factory: Callable[[], Any], seed: int = 0) -> None:
    """The same borrowers and the same random stream give the same outcomes."""
    name = type(factory()).__name__
    for first, second in zip(contexts(seed, stream=7), contexts(seed, stream=7), strict=True):
        a, b = factory().resolve(first), factory().resolve(second)
        assert same(a, b), f"{name}.resolve is not deterministic for a given random stream"


def check_inputs_untouched(factory: Callable[[], Any], seed: int = 0) -> None:
    """``resolve`` does not modify the borrowers' features or repayment probabilities."""
    outcome = factory()
    name = type(outcome).__name__
    for context in contexts(seed):
        before = snapshot((context.features, context.repay))
        outcome.resolve(context)
        assert same(before, (context.features, context.repay)), f"{name}.resolve modified its inputs"


def check_certain_outcomes(factory: Callable[[], Any], seed: int = 0) -> None:
    """A borrower certain to repay repays; one certain to default defaults."""
    outcome = factory()
    name = type(outcome).__name__
    context = contexts(seed)[2]
    for p in (0.0, 1.0):
        certain = LoanContext(context.step, context.features, context.feature_names, np.full(40, p), context.rng)
        repaid = np.asarray(outcome.resolve(certain).repaid)
        assert np.all(repaid == bool(p)), f"{name}: a repayment probability of {p:g} must give repaid={bool(p)}"


CHECKS: tuple[Check, ...] = (
    check_resolve_shape,
    check_resolve_deterministic,
    check_inputs_untouched,
    check_certain_outcomes,
    check_picklable,
)


def check_outcome(outcome: Any, *, seed: int = 0) -> None:
    """Check an outcome component's contract (all of :data:`CHECKS`).

    Properties: ``resolve`` returns a :class:`LoanResult` with new finite features of the same
    shape and one ``repaid`` flag and finite utility per loan, for 0, 1 and many borrowers; is
    deterministic for a given random stream; leaves its inputs untouched; a repayment probability
    of 0 or 1 is obeyed; the component pickles.

    Args:
        outcome: The outcome component to check.
        seed: Seed for the generated borrowers.

    Raises:
        AssertionError: naming the first property that does not hold.
    """
    for check in CHECKS:
        check(lambda: outcome, seed)
