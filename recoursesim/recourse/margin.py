"""Recommend past the cut-off by a margin learned from the run's own history, for a stated validity at a horizon."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

import numpy as np
from scipy.special import expit

from recoursesim._validate import check_float, check_int
from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.recourse.base import reported_found
from recoursesim.recourse.horizon import HorizonRecourse, margin_scale
from recoursesim.recourse.mixed import margin_of_rows, to_margin
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer


@dataclass(frozen=True)
class _Seen:
    """One step as the generator saw it: the model, its link, the mean cut-off (margin scale), sample points."""

    scorer: Scorer
    link: str
    cutoff: float
    points: np.ndarray


def conformal_rank(n: int, level: float) -> int:
    """The 0-based rank of the order statistic that covers a new draw with probability ``level``.

    For ``n`` exchangeable values the ``ceil((n + 1) * level)``-th smallest is at least a new
    draw with probability at least ``level`` (the split-conformal quantile); when that rank
    exceeds ``n`` the largest value is the best the history offers. Unlike an interpolated
    quantile, it never falls between two observed values, where a drift that takes few distinct
    values (a cut-off that rises in steps) would be covered less often than aimed.
    """
    rank = int(np.ceil((n + 1) * level - 1e-12))
    return min(max(rank, 1), n) - 1


@register("recourse", "margin", "horizon_margin")
@dataclass(eq=False, repr=False, kw_only=True)
class MarginRecourse(HorizonRecourse):
    """The base generator's recommendation, aimed ``margin_`` above the cut-off so it still holds ``horizon`` steps on.

    The margin is learned from the run so far. At every step the generator keeps the model in
    force, the mean cut-off and up to ``sample`` of the points it recommended. For each earlier
    step ``u`` and each later step ``v`` it has seen (the current one included), a point ``r``
    recommended at ``u`` would need ``deficit = (c_v - c_u) + (m_u(r) - m_v(r))`` more margin to
    be accepted at ``v``: the rise of the cut-off plus what the model change took from the point
    (``m`` is the model's margin: the score itself for a ranker, the log-odds for a probability).
    Deficits over ``horizon`` steps are used when the run is that long, else shorter ones
    scaled up in proportion (a steady drift); the margin is their ``validity`` quantile taken as
    an order statistic (:func:`conformal_rank`; at least 0). With no history yet (the first step) the margin is 0.

    A call with the same agents as the call before (a trainer refitting before the agents act
    asks twice in a step) is the same step: the later model replaces the earlier one.

    ``base`` (the generator to strengthen) is the field every horizon-aware generator inherits
    (:class:`~recoursesim.recourse.horizon.HorizonRecourse`).

    Args:
        validity: The share of recommendations meant to be still valid ``horizon`` steps later.
        horizon: The horizon ``h`` in steps.
        window: Use only the latest ``window`` steps of history (``None``: all of it).
        sample: Points kept per step to measure the model's change on.
    """

    validity: float = 0.9
    horizon: int = 3
    window: int | None = None
    sample: int = 200

    def __post_init__(self) -> None:
        """Check the parameters (the base generator's first) and start with no history."""
        super().__post_init__()
        self._validity = check_float("validity", self.validity, minimum=0.0, maximum=1.0)
        check_int("horizon", self.horizon, minimum=1)
        if self.window is not None:
            check_int("window", self.window, minimum=1)
        check_int("sample", self.sample, minimum=1)
        self._forget()

    def bind(self, context: RunContext) -> Self:
        """Build the base generator on the run's features and start the run with no history."""
        self._forget()
        return super().bind(context)

    def _forget(self) -> None:
        self.history_: list[_Seen] = []
        self.margin_ = 0.0
        self._last_features: np.ndarray | None = None

    def prepare(self, features: np.ndarray, scores: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> None:
        """Record this step and learn the margin from the history."""
        link = margin_scale(scorer, scores, threshold)
        finite = threshold[np.isfinite(threshold)]
        cutoff = float(np.mean(to_margin(finite, link))) if finite.size else float("nan")
        below = np.flatnonzero(scores < threshold)[: self.sample]
        points = features[:0]
        if below.size:
            points = np.asarray(
                self.base_.recommend(features[below], scores[below], threshold[below], scorer), dtype=float
            )
        seen = _Seen(scorer, link, cutoff, points)
        if self._last_features is not None and np.array_equal(self._last_features, features) and self.history_:
            self.history_[-1] = seen  # the same step, asked again after a refit
        else:
            self.history_.append(seen)
        self._last_features = features.copy()
        if self.window is not None:
            del self.history_[: -self.window - 1]
        self.margin_ = self._learn()

    def _learn(self) -> float:
        """The ``validity`` quantile of the deficits seen over ``horizon`` steps (or scaled shorter ones)."""
        history = self.history_
        now = len(history) - 1
        if now < 1:
            return 0.0
        lag = min(self.horizon, now)
        deficits = []
        for u in range(now - lag + 1):
            early, late = history[u], history[u + lag]
            if early.points.shape[0] == 0 or not (np.isfinite(early.cutoff) and np.isfinite(late.cutoff)):
                continue
            lost = margin_of_rows(early.scorer, early.points, early.link) - margin_of_rows(
                late.scorer, early.points, late.link
            )
            deficits.append((late.cutoff - early.cutoff) + lost)
        if not deficits:
            return 0.0
        values = np.sort(np.concatenate(deficits) * (self.horizon / lag))
        return max(0.0, float(values[conformal_rank(values.size, self._validity)]))

    def strengthen(
        self, features: np.ndarray, scores: np.ndarray, threshold: np.ndarray, scorer: Scorer
    ) -> tuple[np.ndarray, np.ndarray]:
        """The base's recommendation for the cut-off raised by :attr:`margin_` on the margin scale."""
        if self.margin_ <= 0:
            return features.copy(), np.zeros(features.shape[0], dtype=bool)
        link = margin_scale(scorer, scores, threshold)
        raised = to_margin(threshold, link) + self.margin_
        target = expit(raised) if link == "logistic" else raised
        if np.any(~np.isfinite(target)):
            raise ConfigError("recourse.margin", "the raised cut-off is not finite", "lower validity or horizon")
        moved = np.asarray(self.base_.recommend(features, scores, target, scorer), dtype=float)
        ok = np.asarray(scorer.score(moved), dtype=float) >= target - 1e-9 * (1 + np.abs(target))
        found = reported_found(self.base_)
        if found is not None:
            ok &= np.asarray(found, dtype=bool)
        return moved, ok
