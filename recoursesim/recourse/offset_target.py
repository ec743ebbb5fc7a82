"""The reference code's ranker recommendation (docs/model.md, "Recommendations"): a target below the agent."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recoursesim._validate import check_float, check_int, check_interval
from recoursesim.component import Component
from recoursesim.recourse.base import require_linear_form
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer


@register("recourse", "offset_target", "bell2024_ranker")
@dataclass(eq=False, repr=False)
class OffsetTargetRecourse(Component):
    """Point on the score-gradient line whose score is ``threshold - offset``, pinned to a box.

    This is what Bell et al. (2024)'s reference code recommends in its ranker experiments. The
    direction is ``u = w/‖w‖`` and the target score is ``s_t - offset`` (``offset = 0.5``), so the
    point lies *below* the agent: ``x' = x + (s_t - offset - f(x)) · w/‖w‖²``. When ``x'`` leaves
    the box ``[lower, upper]`` in some coordinate, that coordinate is pinned to the violated bound
    and the remaining score gap is spread over the free coordinates along their part of ``w``;
    this is repeated at most ``max_passes`` times, after which the point is clipped to the box.
    Paired with :class:`~recoursesim.behaviour.LogitStepBehaviour`, whose sign cancellation turns
    the backward point into forward movement, it reproduces the paper's Table 1. For a clean
    recommendation use :class:`~recoursesim.recourse.LinearRecourse`.

    Args:
        offset: How far below the threshold the target score lies.
        lower: Lower bound of every feature.
        upper: Upper bound of every feature.
        max_passes: How many times out-of-box coordinates are pinned and the rest re-solved.
    """

    offset: float = 0.5
    lower: float = -0.1
    upper: float = 1.1
    max_passes: int = 2

    def __post_init__(self) -> None:
        self._offset = check_float("offset", self.offset)
        self._lower, self._upper = check_interval(self.lower, self.upper)
        check_int("max_passes", self.max_passes, minimum=1)

    def recommend(
        self, features: np.ndarray, scores: np.ndarray, threshold: float | np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        """Return the pinned point at score ``threshold - offset`` for each agent below the threshold."""
        form = require_linear_form(scorer, "recourse 'offset_target'")
        recommendation = features.copy()
        below = scores < threshold
        if not below.any():
            return recommendation
        x = features[below]
        # The target is on the margin scale: for a ranker that is the score itself; for a logistic
        # model the reference code subtracts the probability threshold from the log-odds (class docstring).
        target = np.broadcast_to(np.asarray(threshold, dtype=float) - self._offset, scores.shape)[below]
        w = form.coef
        point = x.copy()
        free = np.ones_like(x, dtype=bool)
        for _ in range(self.max_passes):
            w_free = free * w
            norm2 = (w_free * w_free).sum(axis=1)
            gap = target - (point @ w + form.intercept)
            with np.errstate(divide="ignore", invalid="ignore"):
                step = np.where(norm2 > 0, gap / norm2, 0.0)
            point = point + step[:, None] * w_free
            low, high = point < self._lower, point > self._upper
            out = low | high
            if not out.any():
                break
            point = np.where(low, self._lower, np.where(high, self._upper, point))
            free &= ~out
        recommendation[below] = np.clip(point, self._lower, self._upper)
        return recommendation

    def cost(self, moves: np.ndarray) -> np.ndarray:
        """Euclidean length of each move."""
        return np.sqrt((moves * moves).sum(axis=1))
