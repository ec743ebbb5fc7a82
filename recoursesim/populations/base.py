"""What a population generator is: groups, features and effort capacities of new agents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np

from recoursesim._validate import check_entrants, check_float
from recoursesim.errors import ConfigError, DataError


@dataclass(frozen=True)
class Cohort:
    """A batch of new agents, one row each.

    Attributes:
        features: ``(n, d)`` float array of qualifications.
        group: ``(n,)`` integer group codes (indices into the generator's ``group_names``).
        effort: ``(n,)`` non-negative effort capacity of each agent (the behaviour decides its units).
    """

    features: np.ndarray
    group: np.ndarray
    effort: np.ndarray

    def __len__(self) -> int:
        return int(self.group.shape[0])

    def check_features(self, feature_names: Sequence[str]) -> None:
        """Refuse features that are not an ``(n, d)`` array of finite numbers, one column per name."""
        features = np.asarray(self.features, dtype=float)
        if features.ndim != 2 or features.shape[1] != len(feature_names):
            d = len(feature_names)
            raise DataError(
                "population",
                f"produced features of shape {features.shape}, not (n, {d})",
                f"make the population's sample(n, rng) return an (n, {d}) array, one column per feature",
            )
        if not np.all(np.isfinite(features)):
            bad = feature_names[int(np.flatnonzero(~np.isfinite(features).all(axis=0))[0])]
            raise DataError(
                f"population.{bad}",
                "a generated feature is NaN or infinite",
                "give the population finite means, sds and scales (and no inf or nan in its data)",
            )


@runtime_checkable
class PopulationGenerator(Protocol):
    """Draws agents. ``fit`` once per run (it may learn a scaler), then ``sample`` any number of times."""

    feature_names: tuple[str, ...]
    group_names: tuple[str, ...]

    def fit(self, rng: np.random.Generator) -> Self:
        """Prepare for sampling (for example fit a feature scaler); return ``self``."""
        ...

    def sample(self, n: int, rng: np.random.Generator) -> Cohort:
        """Draw ``n`` new agents."""
        ...


def allocate(n: int, shares: np.ndarray) -> np.ndarray:
    """Split ``n`` agents across groups by largest-remainder rounding of ``n * shares``.

    Ties in the remainders go to the earlier group, so the split is deterministic.

    Args:
        n: Number of agents.
        shares: Non-negative shares summing to 1.

    Returns:
        Integer counts per group summing to ``n``.
    """
    exact = n * np.asarray(shares, dtype=float)
    counts = np.floor(exact + 1e-9).astype(np.int64)
    short = n - int(counts.sum())
    if short > 0:
        order = np.lexsort((np.arange(exact.size), -(exact - counts)))
        counts[order[:short]] += 1
    return counts


@dataclass(frozen=True)
class FoldedNormal:
    """Folded normal ``scale * |N(mean, sd)|``: the paper's per-group effort distribution.

    Args:
        mean: Mean of the normal before folding.
        sd: Standard deviation of the normal before folding.
        scale: Multiplier applied after folding (converts to the behaviour's effort units).
    """

    mean: float = 0.0
    sd: float = 1.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        check_float("mean", self.mean)
        check_float("sd", self.sd, minimum=0.0)
        check_float("scale", self.scale, minimum=0.0)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``n`` values."""
        return self.scale * np.abs(rng.normal(self.mean, self.sd, size=n))

    @classmethod
    def from_spec(cls, field: str, spec: object) -> FoldedNormal:
        """Build from a scenario table ``{mean, sd, scale}``; errors name ``field``."""
        if not isinstance(spec, Mapping) or set(spec) - {"mean", "sd", "scale"}:
            raise ConfigError(
                field, "must be a table with mean, sd, scale", "write { mean = 0.0, sd = 1.0, scale = 0.1 }"
            )
        try:
            return cls(**spec)
        except ConfigError as error:
            raise error.under(field) from None

    def expected(self) -> float:
        """Return the mean of the folded distribution (closed form)."""
        from scipy.stats import foldnorm

        if self.sd == 0:
            return self.scale * abs(self.mean)
        return float(self.scale * foldnorm.mean(abs(self.mean) / self.sd, scale=self.sd))


def entrants_schedule(entrants: Any, n_steps: int, name: str = "entrants") -> np.ndarray:
    """Entrants per step ``0 … T-1`` (see :func:`check_entrants`) as an array of ``T`` counts."""
    checked = check_entrants(entrants, n_steps, name)
    if isinstance(checked, tuple):
        return np.asarray(checked, dtype=np.int64)
    return np.full(n_steps, checked, dtype=np.int64)
