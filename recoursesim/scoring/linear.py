"""A fixed linear ranker: ``f(x) = w · x + b``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recoursesim._validate import check_float, check_vector
from recoursesim.component import Component
from recoursesim.errors import ConfigError
from recoursesim.registry import register
from recoursesim.scoring.base import LinearForm, Scorer


@register("scorer", "linear")
class LinearScorer(Component, Scorer):
    """Fixed linear ranker ``f(x) = weights · x + intercept``, blind to the group.

    Args:
        weights: One coefficient per feature (the paper uses ``[0.5, 0.5]``).
        intercept: Constant term.
    """

    def __init__(self, weights: Sequence[float], intercept: float = 0.0) -> None:
        self.weights = weights
        self.intercept = intercept
        self.coef_ = check_vector("weights", weights)
        if self.coef_.size == 0 or not np.any(self.coef_):
            raise ConfigError("weights", "must have at least one non-zero weight", "give every feature a weight")
        self.intercept_ = check_float("intercept", intercept)

    def score(self, features: np.ndarray) -> np.ndarray:
        """Return ``features @ weights + intercept``."""
        return features @ self.coef_ + self.intercept_

    def linear_form(self) -> LinearForm:
        """Return the ranker as a :class:`LinearForm` with the identity link."""
        return LinearForm(self.coef_, self.intercept_, "identity")

    @property
    def n_features_in_(self) -> int:
        """Number of features the ranker expects."""
        return int(self.coef_.size)
