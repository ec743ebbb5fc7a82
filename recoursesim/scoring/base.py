"""What a scorer is: a function from features to scores, higher is better."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from scipy.special import expit, logit


@dataclass(frozen=True)
class LinearForm:
    """A score that is a monotone link of an affine function: ``score = link(X @ coef + intercept)``.

    Recourse generators use it to turn a score threshold into a hyperplane.

    Attributes:
        coef: ``(d,)`` coefficients.
        intercept: The constant term.
        link: ``"identity"`` or ``"logistic"`` (a probability).
    """

    coef: np.ndarray
    intercept: float
    link: Literal["identity", "logistic"] = "identity"

    def margin(self, features: np.ndarray) -> np.ndarray:
        """Return ``X @ coef + intercept`` (the score before the link)."""
        return features @ self.coef + self.intercept

    def to_margin(self, score: np.ndarray | float) -> np.ndarray | float:
        """Map a score (or threshold) to the margin scale."""
        if self.link == "identity":
            return score
        return logit(np.clip(score, 1e-12, 1 - 1e-12))

    def to_score(self, margin: np.ndarray | float) -> np.ndarray | float:
        """Map a margin to the score scale."""
        return margin if self.link == "identity" else expit(margin)


@runtime_checkable
class Scorer(Protocol):
    """Scores agents; selection ranks by the score."""

    def score(self, features: np.ndarray) -> np.ndarray:
        """Return one float score per row of ``features``."""
        ...


def linear_form_of(scorer: Scorer) -> LinearForm | None:
    """Return the scorer's :class:`LinearForm`, or ``None`` if it has none."""
    method = getattr(scorer, "linear_form", None)
    return method() if callable(method) else None
