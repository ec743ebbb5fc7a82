"""Lending criteria on a score distribution: maximum utility, demographic parity, equal opportunity.

The setting of Liu, Dean, Rolf, Simchowitz & Hardt (2018), *Delayed Impact of Fair Machine
Learning*. Each group ``g`` has a distribution ``π_g`` over a shared grid of scores and a
repayment probability ``ρ_g(x)`` at each score; the lender gains ``u₊`` per repaid loan and
``u₋ < 0`` per default, so a loan at score ``x`` is worth ``u₊ ρ_g(x) + u₋ (1 − ρ_g(x))`` and pays
off exactly when ``ρ_g(x)`` reaches the break-even probability ``p* = u₋ / (u₋ − u₊)``.

A policy is, per group, the probability ``τ_g(x)`` of lending at each score. A threshold policy at
selection rate ``β`` lends to the top ``β`` of the group, randomising at the one score where the
rate is reached. The criteria (all exact: the objectives are piecewise linear, so their maxima
are searched over every breakpoint rather than by a numerical search):

- ``max_utility``: group-aware, lend wherever the loan pays off (``ρ_g(x) ≥ p*``);
- ``max_utility_blind``: one score cut-off for every group, the one of highest total utility;
- ``demographic_parity``: the same selection rate ``β`` in every group, the ``β`` of highest utility;
- ``equal_opportunity``: the same true positive rate (share of a group's would-be repayers who
  get a loan) in every group, the rate of highest utility.

Total utility weighs each group by its share of the population.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from recoursesim._validate import check_float
from recoursesim.errors import ConfigError, DataError


@dataclass(frozen=True)
class LendingGroup:
    """One group's score distribution and repayment probabilities on an increasing score grid.

    Attributes:
        name: The group's name.
        score: ``(m,)`` increasing scores.
        pmf: ``(m,)`` share of the group at each score (sums to 1).
        repay: ``(m,)`` probability of repaying a loan at each score.
        size: The group's size (only its share of the total matters).
    """

    name: str
    score: np.ndarray
    pmf: np.ndarray
    repay: np.ndarray
    size: float

    def tail_mass(self) -> np.ndarray:
        """``(m + 1,)`` selection rates of lending to the top ``k`` scores, ``k = 0 … m``."""
        return np.minimum(np.concatenate([[0.0], np.cumsum(self.pmf[::-1])]), 1.0)

    def tail_sum(self, per_score: np.ndarray) -> np.ndarray:
        """``(m + 1,)`` sums of ``pmf * per_score`` over the top ``k`` scores, ``k = 0 … m``."""
        return np.concatenate([[0.0], np.cumsum((self.pmf * per_score)[::-1])])


@dataclass(frozen=True)
class Utility:
    """The lender's gain per repaid loan and loss per default (the paper's default ratio ``u₋/u₊ = −4``).

    Args:
        repaid: ``u₊ > 0``.
        default: ``u₋ < 0`` (a default is a loss).
    """

    repaid: float = 1.0
    default: float = -4.0

    def __post_init__(self) -> None:
        check_float("utility.repaid", self.repaid, minimum=0.0, strict_minimum=True)
        value = check_float("utility.default", self.default)
        if value >= 0:
            raise ConfigError("utility.default", f"must be a loss (< 0), got {value:g}", "write utility.default = -4")

    @property
    def break_even(self) -> float:
        """The repayment probability ``p* = u₋ / (u₋ − u₊)`` at which a loan is worth nothing."""
        return self.default / (self.default - self.repaid)

    def per_loan(self, repay: np.ndarray) -> np.ndarray:
        """Expected utility of one loan at repayment probability ``repay``."""
        return self.repaid * repay + self.default * (1.0 - repay)


def gain_table(field: str, table: object) -> dict[str, float]:
    """The entries of a ``{repaid, default}`` scenario table (``{}`` for ``None``), refusing anything else.

    Raises:
        ConfigError: not a table, or a key other than ``repaid`` and ``default``, naming ``field``.
    """
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ConfigError(field, "must be a table", f"write {field} = {{ repaid = ..., default = ... }}")
    unknown = sorted(set(table) - {"repaid", "default"})
    if unknown:
        raise ConfigError(f"{field}.{unknown[0]}", "unknown key", "use repaid and default")
    return dict(table)


def policy_at_rate(pmf: np.ndarray, rate: float) -> np.ndarray:
    """The threshold policy lending to the top ``rate`` of a group, randomised at the boundary score.

    Args:
        pmf: The group's share at each (increasing) score.
        rate: The selection rate, within [0, 1].

    Returns:
        ``τ``: the probability of lending at each score (1 above the boundary, 0 below).
    """
    above = np.concatenate([[0.0], np.cumsum(pmf[::-1])[:-1]])[::-1]  # mass strictly above each score
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(pmf > 0, (rate - above) / pmf, (rate - above > 0).astype(float))
    return np.clip(share, 0.0, 1.0)


def selection_rate(pmf: np.ndarray, policy: np.ndarray) -> float:
    """The share of a group that gets a loan under ``policy``."""
    return float(np.sum(pmf * policy))


def true_positive_rate(group: LendingGroup, policy: np.ndarray) -> float:
    """The share of the group's would-be repayers that gets a loan under ``policy``."""
    return float(np.sum(group.pmf * group.repay * policy) / np.sum(group.pmf * group.repay))


def threshold_score(score: np.ndarray, policy: np.ndarray) -> float:
    """The lowest score lent to, moved up by the share of it not lent to times the gap to the next score.

    For a threshold policy this places the randomised boundary between two grid scores; ``nan``
    when nobody is lent to.
    """
    lent = np.flatnonzero(policy > 0)
    if lent.size == 0:
        return float("nan")
    i = int(lent[0])
    gap = score[i + 1] - score[i] if i + 1 < score.size else 0.0
    return float(score[i] + (1.0 - policy[i]) * gap)


def _shares(groups: Sequence[LendingGroup]) -> np.ndarray:
    sizes = np.array([group.size for group in groups], dtype=float)
    return sizes / sizes.sum()


def _rate_for_tpr(group: LendingGroup) -> tuple[np.ndarray, np.ndarray]:
    """Breakpoints ``(rates, tprs)`` of a group's threshold policies, with each TPR once (its smallest rate).

    Raises:
        DataError: The group has no would-be repayers (every repayment probability is 0).
    """
    repayers = np.sum(group.pmf * group.repay)
    if repayers <= 0:
        raise DataError(
            f"groups.{group.name}",
            "nobody in the group would repay, so its true positive rate is undefined",
            "give the group some scores with a default rate below 100, or leave equal opportunity out",
        )
    tprs = group.tail_sum(group.repay) / repayers
    tprs, first = np.unique(np.minimum(tprs, 1.0), return_index=True)
    return group.tail_mass()[first], tprs


def max_utility(groups: Sequence[LendingGroup], utility: Utility) -> list[np.ndarray]:
    """Group-aware maximum utility: lend at every score whose loans pay off (``ρ ≥ p*``)."""
    return [(group.repay >= utility.break_even).astype(float) for group in groups]


def max_utility_blind(groups: Sequence[LendingGroup], utility: Utility) -> list[np.ndarray]:
    """One score cut-off for all groups (lend at and above it), the one of highest total utility.

    Raises:
        DataError: The groups are not on one score grid.
    """
    if any(not np.array_equal(g.score, groups[0].score) for g in groups):
        raise DataError("groups", "are not on one score grid", "give every group the same scores")
    shares = _shares(groups)
    totals = sum(w * g.tail_sum(utility.per_loan(g.repay)) for w, g in zip(shares, groups, strict=True))
    k = int(np.argmax(totals))  # lend to the top k scores of the grid
    m = groups[0].score.size
    return [(np.arange(m) >= m - k).astype(float) for _ in groups]


def demographic_parity(groups: Sequence[LendingGroup], utility: Utility) -> list[np.ndarray]:
    """The same selection rate in every group: the rate of highest total utility (searched over all breakpoints)."""
    shares = _shares(groups)
    candidates = np.unique(np.concatenate([g.tail_mass() for g in groups]))
    total = sum(
        w * np.interp(candidates, g.tail_mass(), g.tail_sum(utility.per_loan(g.repay)))
        for w, g in zip(shares, groups, strict=True)
    )
    rate = float(candidates[int(np.argmax(total))])
    return [policy_at_rate(g.pmf, rate) for g in groups]


def equal_opportunity(groups: Sequence[LendingGroup], utility: Utility) -> list[np.ndarray]:
    """The same true positive rate in every group: the rate of highest total utility (searched over all breakpoints)."""
    shares = _shares(groups)
    inverse = [_rate_for_tpr(g) for g in groups]
    candidates = np.unique(np.concatenate([tprs for _, tprs in inverse]))
    total = sum(
        w * np.interp(np.interp(candidates, tprs, rates), g.tail_mass(), g.tail_sum(utility.per_loan(g.repay)))
        for w, g, (rates, tprs) in zip(shares, groups, inverse, strict=True)
    )
    tpr = float(candidates[int(np.argmax(total))])
    return [
        policy_at_rate(g.pmf, float(np.interp(tpr, tprs, rates)))
        for g, (rates, tprs) in zip(groups, inverse, strict=True)
    ]


#: The criteria by name, in the order tables show them.
CRITERIA: dict[str, Callable[[Sequence[LendingGroup], Utility], list[np.ndarray]]] = {
    "max_utility": max_utility,
    "max_utility_blind": max_utility_blind,
    "demographic_parity": demographic_parity,
    "equal_opportunity": equal_opportunity,
}
