"""The choice protocol: given the lenders' view of the waiting applicants, who applies where.

A choice policy is a registered component of kind ``"choice"`` (``[market] choice = { name =
"...", ... }``). Its :meth:`Choice.choose` receives a :class:`ChoiceContext` and returns the
``(n, L)`` boolean ``applied`` mask: ``applied[i, j]`` says that waiting applicant ``i`` applies to
lender ``j`` this step. Every lender then selects among its own applicants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class ChoiceContext:
    """What an applicant knows when it chooses where to apply (one row per waiting applicant).

    Attributes:
        step: The step ``t``.
        lender_names: The lenders, in declaration order (column ``j`` of every array is lender ``j``).
        agent_id: ``(n,)`` the applicants' ids.
        scores: ``(n, L)`` every lender's score of every applicant (its model's predicted odds).
        last_threshold: ``(L,)`` each lender's threshold at the previous step (NaN at the first
            step and where it was not finite, e.g. a top-k lender nobody applied to; a
            per-applicant threshold is summarised by its median).
        last_cost: ``(n, L)`` the cost of the recommendation lender ``j`` gave applicant ``i`` at
            the previous step (NaN where it gave none).
        capacity: ``(n,)`` each applicant's effort capacity (what it can spend in one step).
        rng: The run's ``choice`` random stream.
        decide: Given an ``(n, L)`` applied mask, the lenders' decisions on it (an ``(n, L)``
            accepted mask): each lender's selector run on its applicants. Policies that apply in
            rounds (``sequential``) call it; the model decides once more on the mask returned.
    """

    step: int
    lender_names: tuple[str, ...]
    agent_id: np.ndarray
    scores: np.ndarray
    last_threshold: np.ndarray
    last_cost: np.ndarray
    capacity: np.ndarray
    rng: np.random.Generator
    decide: Callable[[np.ndarray], np.ndarray]

    @property
    def odds(self) -> np.ndarray:
        """``(n, L)`` each lender's score relative to its last threshold (the raw score where there is none)."""
        last = np.where(np.isnan(self.last_threshold), 0.0, self.last_threshold)
        return self.scores - last[None, :]


@runtime_checkable
class ChargesApplications(Protocol):
    """A policy whose applications cost effort: ``application_cost`` per application (default ``0.0``).

    The model adds it to the effort each applicant spends, on the ledger row of each lender applied to.
    """

    application_cost: float = 0.0


@runtime_checkable
class FixesLenderOrder(Protocol):
    """A policy that applies in a fixed ``order`` of lender names (default ``None``: no fixed order).

    The conformance checks try such a policy only in markets that have every lender it names.
    """

    order: Sequence[str] | None = None


def application_cost_of(choice: object) -> float:
    """The effort one application under ``choice`` costs (:class:`ChargesApplications`; ``0.0`` by default)."""
    return choice.application_cost if isinstance(choice, ChargesApplications) else ChargesApplications.application_cost


def lender_order_of(choice: object) -> Sequence[str] | None:
    """The fixed order of lender names a policy applies in (:class:`FixesLenderOrder`), or ``None``."""
    return choice.order if isinstance(choice, FixesLenderOrder) else FixesLenderOrder.order


@runtime_checkable
class Choice(ChargesApplications, FixesLenderOrder, Protocol):
    """Decides where each waiting applicant applies.

    Its optional members, declared with their defaults on the classes it inherits:
    ``application_cost`` (:class:`ChargesApplications`) and ``order`` (:class:`FixesLenderOrder`).
    """

    def choose(self, context: ChoiceContext) -> np.ndarray:
        """Return the ``(n, L)`` boolean applied mask (every applicant applies somewhere)."""
        ...


def best_odds_order(context: ChoiceContext) -> np.ndarray:
    """``(n, L)`` the lenders in each applicant's order of best odds (ties: declaration order)."""
    return np.argsort(-context.odds, axis=1, kind="stable")


def one_lender(index: np.ndarray, n_lenders: int) -> np.ndarray:
    """The ``(n, L)`` mask with one True per row, at column ``index[i]``."""
    mask = np.zeros((index.size, n_lenders), dtype=bool)
    mask[np.arange(index.size), index] = True
    return mask
