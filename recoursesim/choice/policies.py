"""The built-in choice policies: all, best-odds, cheapest, sequential and random."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recoursesim._validate import check_float, check_list
from recoursesim.choice.base import ChoiceContext, best_odds_order, one_lender
from recoursesim.component import Component
from recoursesim.errors import ConfigError
from recoursesim.registry import register


@register("choice", "all")
class AllLenders(Component):
    """Every applicant applies to every lender."""

    def choose(self, context: ChoiceContext) -> np.ndarray:
        """All True."""
        return np.ones(context.scores.shape, dtype=bool)


@register("choice", "best-odds")
class BestOdds(Component):
    """Each applicant applies to the one lender whose score of it is highest relative to that lender's last threshold.

    At the first step (no threshold yet) the highest raw score decides; ties go to the lender
    declared first.
    """

    def choose(self, context: ChoiceContext) -> np.ndarray:
        """One True per row, at the best odds."""
        return one_lender(best_odds_order(context)[:, 0], context.scores.shape[1])


@register("choice", "cheapest")
class Cheapest(Component):
    """Each applicant applies to the lender whose last recommendation to it was cheapest.

    An applicant no lender has recommended anything to yet (its first step, or every lender
    accepted or skipped it) applies to its best odds, as ``best-odds``; ties go to the lender
    declared first.
    """

    def choose(self, context: ChoiceContext) -> np.ndarray:
        """One True per row, at the cheapest last recommendation (else the best odds)."""
        cost = np.where(np.isnan(context.last_cost), np.inf, context.last_cost)
        known = np.isfinite(cost).any(axis=1)
        index = np.where(known, np.argmin(cost, axis=1), best_odds_order(context)[:, 0])
        return one_lender(index, context.scores.shape[1])


@register("choice", "sequential")
class Sequential(Component):
    """Apply in order of best odds, one lender at a time, until accepted; each application costs ``cost``.

    Rounds: in round 1 every applicant applies to its best-odds lender. After each round the
    lenders decide on everybody who has applied to them so far this step (each lender's selector
    on all its applicants); an applicant accepted nowhere applies, in the next round, to the next
    lender in its order, if its effort capacity pays for one more application: application
    ``r`` (counting from 1) is made only if ``r * cost <= capacity``, except the first, which
    every applicant makes. Rounds stop when nobody applies anew (at most ``L`` rounds). For
    selectors that keep the best applicants (top-k, a fixed threshold) this is deferred
    acceptance: a lender's final decision on all its applicants accepts exactly the ones it held.

    The application costs are effort spent (``cost`` per application, on the lender's ledger row);
    they do not reduce the effort the applicant then spends acting on a recommendation.

    Args:
        cost: Effort one application costs (in the recourse cost's units), ``>= 0``.
        order: Lender names: every applicant applies in this order instead of its order of best
            odds (lenders not listed are never applied to). Default: best odds.
    """

    def __init__(self, cost: float = 0.0, order: Sequence[str] | None = None) -> None:
        self.cost = check_float("cost", cost, minimum=0.0)
        self.order = order
        if order is not None:
            names = check_list("order", order)
            if not names or not all(isinstance(name, str) for name in names) or len(set(names)) != len(names):
                raise ConfigError(
                    "order", f"must list lender names, each once, got {order!r}", 'write order = ["bank-a", "bank-b"]'
                )

    @property
    def application_cost(self) -> float:
        """Effort each application costs (the model adds it to the effort spent)."""
        return self.cost

    def choose(self, context: ChoiceContext) -> np.ndarray:
        """The applied mask after the last round."""
        n, n_lenders = context.scores.shape
        if self.order is None:
            order = best_odds_order(context)
        else:
            fixed = [context.lender_names.index(name) for name in self.order]
            order = np.tile(np.asarray(fixed, dtype=int), (n, 1))
            n_lenders = len(fixed)
        rows = np.arange(n)
        applied = one_lender(order[:, 0], context.scores.shape[1])
        affordable = self.applications(context.capacity, n_lenders)
        for round_ in range(1, n_lenders):
            accepted = context.decide(applied)
            searching = ~(accepted & applied).any(axis=1) & (affordable > round_)
            if not searching.any():
                break
            applied[rows[searching], order[searching, round_]] = True
        return applied

    def applications(self, capacity: np.ndarray, n_lenders: int) -> np.ndarray:
        """How many applications each applicant can make this step (1 to ``L``)."""
        if self.cost == 0:
            return np.full(capacity.shape, n_lenders)
        paid = np.floor(np.asarray(capacity, dtype=float) / self.cost)
        return np.clip(np.nan_to_num(paid, nan=1.0), 1, n_lenders).astype(int)


@register("choice", "random")
class RandomLender(Component):
    """Each applicant applies to one lender drawn uniformly (from the run's ``choice`` stream)."""

    def choose(self, context: ChoiceContext) -> np.ndarray:
        """One True per row, uniformly at random."""
        n, n_lenders = context.scores.shape
        return one_lender(np.asarray(context.rng.integers(0, n_lenders, size=n)), n_lenders)
