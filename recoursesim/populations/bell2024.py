"""The population generator of Bell et al. (2024)'s reference code (docs/model.md, "Populations")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Self

import numpy as np

from recoursesim._validate import check_choice, check_float, check_int, check_vector
from recoursesim.component import Component
from recoursesim.errors import ConfigError
from recoursesim.populations.base import Cohort, FoldedNormal
from recoursesim.registry import register

#: Table 1's effort conditions → (advantaged, disadvantaged) folded-normal means.
EFFORT_CONDITIONS: dict[str, tuple[float, float]] = {
    "equal": (0.0, 0.0),  # e_a = e_d
    "adv_more": (1.0, 0.0),  # e_a > e_d
    "dis_more": (0.0, 1.0),  # e_a < e_d
}


@register("population", "bell2024")
@dataclass(eq=False, repr=False)
class Bell2024Population(Component):
    """Two equal groups with bimodal, min-max-scaled features, as the paper's reference code draws them.

    For a cohort of ``n`` agents, each group gets ``n/2`` agents, of whom
    ``int(high_fraction * n)`` are high performers with ``x0 ~ N(high_mean, sd²)``; the others have
    ``x0 ~ N(low_mean, sd²)`` (advantaged) or ``N(low_mean - q·sd, sd²)`` (disadvantaged).
    ``x1 ~ N(0, sd²)`` for everybody (pure noise). Features are min-max scaled with a scaler fitted
    once per run on a separate ``scaler_sample``-agent draw of the same generator; values are not
    clipped. Each agent's effort capacity is ``adaptation · |N(e_g, 1)| / effort_divisor``.

    Args:
        q: Qualification gap, in units of ``sd``, of the disadvantaged low performers.
        effort: A Table-1 condition (``equal``, ``adv_more``, ``dis_more``) or two means
            ``[e_advantaged, e_disadvantaged]``.
        high_fraction: High performers per group as a fraction of the cohort (``k / 2N``).
        high_mean: Mean of the high performers' ``x0``.
        low_mean: Mean of the advantaged low performers' ``x0``.
        sd: Standard deviation of every feature draw.
        adaptation: The reference code's global adaptation ``A``.
        effort_divisor: The reference code's divisor of the effort draw (20).
        scaler_sample: Size of the sample the min-max scaler is fitted on.
    """

    feature_names: ClassVar[tuple[str, ...]] = ("x0", "x1")
    group_names: ClassVar[tuple[str, ...]] = ("advantaged", "disadvantaged")

    q: float = 0.0
    effort: str | Sequence[float] = "equal"
    high_fraction: float = 0.05
    high_mean: float = 1.5
    low_mean: float = 0.0
    sd: float = 0.2
    adaptation: float = 0.5
    effort_divisor: float = 20.0
    scaler_sample: int = 10_000

    def __post_init__(self) -> None:
        self._q = check_float("q", self.q)
        self._high_fraction = check_float("high_fraction", self.high_fraction, minimum=0.0, maximum=0.5)
        self._high_mean = check_float("high_mean", self.high_mean)
        self._low_mean = check_float("low_mean", self.low_mean)
        self._sd = check_float("sd", self.sd, minimum=0.0)
        self._adaptation = check_float("adaptation", self.adaptation, minimum=0.0)
        self._effort_divisor = check_float("effort_divisor", self.effort_divisor, minimum=0.0, strict_minimum=True)
        check_int("scaler_sample", self.scaler_sample, minimum=2)
        if isinstance(self.effort, str):
            means = EFFORT_CONDITIONS[check_choice("effort", self.effort, list(EFFORT_CONDITIONS))]
        else:
            means = tuple(check_vector("effort", self.effort, length=2))
        scale = self._adaptation / self._effort_divisor
        self._effort = tuple(FoldedNormal(mean=float(m), sd=1.0, scale=scale) for m in means)

    def fit(self, rng: np.random.Generator) -> Self:
        """Fit the min-max scaler on a fresh ``scaler_sample``-agent draw; return ``self``."""
        raw, _ = self._raw_features(self.scaler_sample, rng)
        self.min_ = raw.min(axis=0)
        span = raw.max(axis=0) - self.min_
        if np.any(span <= 0):
            raise ConfigError("population.sd", "gives features with no spread", "use sd > 0")
        self.scale_ = span
        return self

    def sample(self, n: int, rng: np.random.Generator) -> Cohort:
        """Draw ``n`` agents: the advantaged half first, then the disadvantaged half."""
        if not hasattr(self, "min_"):
            raise RuntimeError("Bell2024Population.sample called before fit")
        raw, group = self._raw_features(n, rng)
        features = (raw - self.min_) / self.scale_
        effort = np.concatenate(
            [dist.sample(int(np.sum(group == code)), rng) for code, dist in enumerate(self._effort)]
        )
        return Cohort(features, group, effort)

    def _raw_features(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        half = n // 2
        sizes = (n - half, half) if n % 2 else (half, half)
        n_high = int(self._high_fraction * n)
        low_means = (self._low_mean, self._low_mean - self._q * self._sd)
        blocks, groups = [], []
        for code, (size, low_mean) in enumerate(zip(sizes, low_means, strict=True)):
            high = min(n_high, size)
            x0 = np.concatenate(
                [rng.normal(self._high_mean, self._sd, size=high), rng.normal(low_mean, self._sd, size=size - high)]
            )
            x1 = rng.normal(0.0, self._sd, size=size)
            blocks.append(np.column_stack([x0, x1]))
            groups.append(np.full(size, code, dtype=np.int16))
        return np.concatenate(blocks), np.concatenate(groups)
