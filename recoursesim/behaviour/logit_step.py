"""The reference code's behaviour: a logit-space score step along the recommendation line (docs/model.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from recoursesim._validate import check_float, check_interval
from recoursesim.behaviour.base import ActionContext
from recoursesim.component import Component
from recoursesim.registry import register


@register("behaviour", "logit_step", "bell2024")
@dataclass(eq=False, repr=False)
class LogitStepBehaviour(Component):
    """Step along the line to ``x'`` by a distance set by an effort draw in logit-score space.

    Exactly what Bell et al. (2024)'s reference code does. With ``c = a + b·f(x)``,
    ``r = a + b·f(x')``, ``δ ~ |N(0, σ_i)|`` and ``τ = clip(c + δ, 0, tau_max)``::

        d = (logit τ - logit c) / (logit r - logit c)
        x_new = clip(x + d · (x' - x)/‖x' - x‖, lower, upper)

    When ``x'`` lies below the agent (the reference recommendation,
    :class:`~recoursesim.recourse.OffsetTargetRecourse`), numerator and denominator change sign
    together and the agent moves *forward* by ``(logit τ - logit c)/|logit r - logit c|``; the step
    does not depend on the distance to ``x'``. Agents already at or above the threshold, agents at
    their recommendation, and agents whose ``c`` or ``r`` falls outside ``(0, 1)`` (where the logit
    is undefined) do not move.

    Args:
        score_offset: ``a`` in ``c = a + b·f(x)``.
        score_scale: ``b`` in ``c = a + b·f(x)``.
        tau_max: Upper clip of the target ``τ``.
        lower: Lower clip of the new features.
        upper: Upper clip of the new features.
    """

    score_offset: float = 0.1
    score_scale: float = 0.8
    tau_max: float = 0.999
    lower: float = -0.1
    upper: float = 1.1

    def __post_init__(self) -> None:
        self._score_offset = check_float("score_offset", self.score_offset)
        self._score_scale = check_float("score_scale", self.score_scale)
        self._tau_max = check_float("tau_max", self.tau_max, minimum=0.0, maximum=1.0)
        self._lower, self._upper = check_interval(self.lower, self.upper)

    def act(self, context: ActionContext) -> np.ndarray:
        """Return the new features after one reference step."""
        x, target = context.features, context.recommendation
        delta = np.abs(context.rng.normal(0.0, 1.0, size=x.shape[0])) * context.effort
        c = self._score_offset + self._score_scale * context.scores
        r = self._score_offset + self._score_scale * context.scorer.score(target)
        tau = np.clip(c + delta, 0.0, self._tau_max)
        direction = target - x
        length = np.sqrt((direction * direction).sum(axis=1))
        defined = (c > 0) & (c < 1) & (r > 0) & (r < 1) & (tau > 0)
        moving = defined & (length > 0) & (context.scores < context.threshold)
        with np.errstate(divide="ignore", invalid="ignore"):
            lc = logit(np.where(defined, c, 0.5))
            d = (logit(np.where(defined, tau, 0.5)) - lc) / (logit(np.where(defined, r, 0.5)) - lc)
            unit = direction / length[:, None]
        moving &= np.isfinite(d)
        step = np.where(moving[:, None], d[:, None] * unit, 0.0)
        return np.where(moving[:, None], np.clip(x + step, self._lower, self._upper), x)
