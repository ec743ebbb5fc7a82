"""Delayed impact: a group's expected score change under a lending policy, and its outcome curve.

In Liu et al. (2018) a loan repaid raises the borrower's score by ``c₊`` and a default lowers it by
``|c₋|``; applicants turned down keep their score. The expected change at score ``x`` is
``Δ(x) = c₊ ρ(x) + c₋ (1 − ρ(x))``, with the expected new score kept within the scale (300–850),
and a group's mean score moves by ``Δμ = Σ_x π(x) τ(x) Δ(x)``. The outcome curve is ``Δμ`` as a
function of the selection rate ``β`` of the group's threshold policies; it is piecewise linear
between the rates of the deterministic thresholds.

Relative to the rate ``β^MU`` that maximum utility picks, a rate is a *relative improvement* when
``Δμ(β) > Δμ(β^MU)``, a *relative harm* when ``0 ≤ Δμ(β) < Δμ(β^MU)`` and an *active harm* when
``Δμ(β) < 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recoursesim._validate import check_float
from recoursesim.errors import ConfigError
from recoursesim.selection.lending import LendingGroup

#: Scores are kept within this range (the FICO scale).
SCORE_BOUNDS: tuple[float, float] = (300.0, 850.0)

#: Differences in Δμ below this are ties (the curve is a sum of a few hundred terms).
_TIE = 1e-9


@dataclass(frozen=True)
class ScoreChange:
    """How a loan's outcome moves the borrower's score (the paper's +75 and −150 by default).

    Args:
        repaid: ``c₊ > 0``, the change after a repaid loan.
        default: ``c₋ < 0``, the change after a default.
        bounds: The score range the expected new score is kept within.
    """

    repaid: float = 75.0
    default: float = -150.0
    bounds: tuple[float, float] = SCORE_BOUNDS

    def __post_init__(self) -> None:
        check_float("score_change.repaid", self.repaid, minimum=0.0, strict_minimum=True)
        value = check_float("score_change.default", self.default)
        if value >= 0:
            raise ConfigError("score_change.default", f"must lower the score (< 0), got {value:g}", "write -150")

    def expected(self, score: np.ndarray, repay: np.ndarray) -> np.ndarray:
        """``Δ(x)``: the expected change of a borrower at ``score``, with the new score kept within ``bounds``."""
        moved = score + self.repaid * repay + self.default * (1.0 - repay)
        return np.clip(moved, *self.bounds) - score


def delta_mu(group: LendingGroup, policy: np.ndarray, change: ScoreChange) -> float:
    """The group's expected mean score change under ``policy`` (the probability of a loan at each score)."""
    return float(np.sum(group.pmf * policy * change.expected(group.score, group.repay)))


@dataclass(frozen=True)
class OutcomeCurve:
    """``Δμ`` of one group against the selection rate, at the rates of its deterministic thresholds.

    Attributes:
        group: The group's name.
        rate: ``(m + 1,)`` increasing selection rates, from 0 to 1.
        delta_mu: ``(m + 1,)`` expected mean score change at each rate.
    """

    group: str
    rate: np.ndarray
    delta_mu: np.ndarray

    def at(self, rate: float) -> float:
        """``Δμ`` at any selection rate (linear between breakpoints, as randomised thresholds give)."""
        return float(np.interp(rate, self.rate, self.delta_mu))

    def harm_rate(self) -> float:
        """``β₀``: the smallest rate above ``β*`` (that of largest ``Δμ``) where ``Δμ`` falls below zero (else 1)."""
        start = int(np.argmax(self.delta_mu))
        below = np.flatnonzero(self.delta_mu[start:] < 0)
        if below.size == 0:
            return 1.0
        j = start + int(below[0])
        (r0, r1), (d0, d1) = self.rate[j - 1 : j + 1], self.delta_mu[j - 1 : j + 1]
        return float(r0 + (r1 - r0) * d0 / (d0 - d1))

    def region(self, rate: float, max_utility_rate: float) -> str:
        """Where ``rate`` falls relative to maximum utility's rate: improvement, harm or active harm."""
        value, reference = self.at(rate), self.at(max_utility_rate)
        if value < -_TIE:
            return "active harm"
        if value > reference + _TIE:
            return "relative improvement"
        if value < reference - _TIE:
            return "relative harm"
        return "as max utility"


def outcome_curve(group: LendingGroup, change: ScoreChange) -> OutcomeCurve:
    """The group's outcome curve: lend to the top scores first, ``Δμ`` at every deterministic threshold."""
    return OutcomeCurve(group.name, group.tail_mass(), group.tail_sum(change.expected(group.score, group.repay)))
