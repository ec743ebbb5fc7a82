"""What happens to a granted loan: repaid or not, the borrower's score moves, the lender gains or loses.

An *outcome* component turns a step's positive outcomes into consequences. With one in a model,
the selected agents do not leave: their loan is resolved (:meth:`RepaymentOutcome.resolve`) and
they apply again at the next step, as borrowers in Liu et al. (2018) and in repeated lending do
(see ``outcome`` in :class:`~recoursesim.engine.model.RecourseModel`). Without one (the default), the
selected agents leave for good, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from recoursesim._validate import check_str
from recoursesim.component import Component
from recoursesim.errors import ConfigError
from recoursesim.registry import register
from recoursesim.selection.lending import Utility, gain_table
from recoursesim.selection.outcome_curve import ScoreChange


@dataclass(frozen=True)
class LoanContext:
    """The borrowers of one step.

    Attributes:
        step: The current step ``t``.
        features: ``(n, d)`` the borrowers' features when the loan is granted.
        feature_names: The names of the ``d`` columns.
        repay: ``(n,)`` each borrower's repayment probability.
        rng: The run's ``outcome`` stream (the only source of randomness).
    """

    step: int
    features: np.ndarray
    feature_names: tuple[str, ...]
    repay: np.ndarray
    rng: np.random.Generator


@dataclass(frozen=True)
class LoanResult:
    """The resolved loans, one entry per borrower.

    Attributes:
        features: ``(n, d)`` the borrowers' features afterwards (a new array).
        repaid: ``(n,)`` whether the loan was repaid.
        utility: ``(n,)`` the lender's gain (``u₊``) or loss (``u₋``) on the loan.
    """

    features: np.ndarray
    repaid: np.ndarray
    utility: np.ndarray


@runtime_checkable
class Outcome(Protocol):
    """Resolves the loans granted at a step."""

    def resolve(self, context: LoanContext) -> LoanResult:
        """Return the borrowers' features afterwards, repayments and utilities (must not modify its inputs)."""
        ...


@register("outcome", "repayment")
class RepaymentOutcome(Component):
    """Each loan is repaid with the borrower's probability; the score moves by ``c₊`` or ``c₋``.

    A repaid loan raises the score feature by ``c₊`` and earns the lender ``u₊``; a default lowers
    it by ``|c₋|`` and costs ``|u₋|``. Each new score is kept within the scale (300–850). Liu et
    al.'s ``Δμ`` (:class:`~recoursesim.selection.outcome_curve.ScoreChange`) clips the *expected*
    new score instead, so the two differ for borrowers close to either end of the scale.

    Args:
        score_change: ``{repaid = c₊ > 0, default = c₋ < 0}`` (the paper's 75 and −150).
        utility: ``{repaid = u₊ > 0, default = u₋ < 0}`` (the paper's 1 and −4).
        feature: The feature the score change applies to.
    """

    #: Parameters the conformance checks build it with.
    check_params: ClassVar[dict[str, Any]] = {}

    def __init__(
        self,
        score_change: dict[str, float] | None = None,
        utility: dict[str, float] | None = None,
        feature: str = "score",
    ) -> None:
        self.score_change = score_change
        self.utility = utility
        self.feature = check_str("feature", feature)
        change = gain_table("score_change", score_change)
        defaults = ScoreChange()
        self._change = ScoreChange(
            repaid=change.get("repaid", defaults.repaid), default=change.get("default", defaults.default)
        )
        self._utility = Utility(**gain_table("utility", utility))

    def resolve(self, context: LoanContext) -> LoanResult:
        """Draw each repayment, move the score, and value the loan (see the class docstring)."""
        if self.feature not in context.feature_names:
            raise ConfigError(
                "outcome.feature",
                f"{self.feature!r} is not a feature of the population",
                f"use one of {', '.join(context.feature_names)}",
            )
        column = context.feature_names.index(self.feature)
        repaid = context.rng.random(context.repay.size) < context.repay
        features = np.array(context.features, dtype=float, copy=True)
        moved = features[:, column] + np.where(repaid, self._change.repaid, self._change.default)
        features[:, column] = np.clip(moved, *self._change.bounds)
        utility = np.where(repaid, self._utility.repaid, self._utility.default)
        return LoanResult(features, repaid, utility)
