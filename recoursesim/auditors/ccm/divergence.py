"""Score-based counterfactual metrics: RMSCD, KL and Jensen–Shannon divergence (Pinto et al., §2.4)."""

from __future__ import annotations

import numpy as np
from scipy.stats import entropy

from recoursesim.errors import ConfigError, DataError


def _pair(s: object, s_cf: object) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(s, dtype=float).ravel()
    b = np.asarray(s_cf, dtype=float).ravel()
    if a.shape != b.shape:
        raise DataError("s_cf", "must align with s", "pass one counterfactual score per sample")
    if a.size == 0:
        raise DataError("s", "is empty", "pass at least one score")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise DataError("s", "scores must be finite", "drop or impute NaN scores")
    return a, b


def rmscd(s: object, s_cf: object) -> float:
    """Root mean squared counterfactual difference of scores: ``sqrt(mean((s_cf - s)^2))``."""
    a, b = _pair(s, s_cf)
    return float(np.sqrt(np.mean((b - a) ** 2)))


def score_histograms(s: object, s_cf: object, bins: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Return the normalised histograms of original and counterfactual scores.

    Scores in [0, 1] use ``bins`` equal-width bins on [0, 1]; otherwise both are min–max scaled
    over their union first.
    """
    a, b = _pair(s, s_cf)
    if int(bins) < 1:
        raise ConfigError("bins", f"must be >= 1, got {bins}", "use e.g. 10")
    low, high = min(a.min(), b.min()), max(a.max(), b.max())
    if low < 0 or high > 1:
        span = high - low if high > low else 1.0
        a, b = (a - low) / span, (b - low) / span
    p = np.histogram(a, bins=int(bins), range=(0.0, 1.0))[0] / a.size
    q = np.histogram(b, bins=int(bins), range=(0.0, 1.0))[0] / b.size
    return p, q


def _smooth(p: np.ndarray, eps: float) -> np.ndarray:
    return p if eps == 0 else (p + eps) / np.sum(p + eps)


def klcd(s: object, s_cf: object, bins: int = 10, eps: float = 0.0, base: float | None = None) -> float:
    """Kullback–Leibler counterfactual divergence ``D_KL(P || Q)`` of binned scores.

    Args:
        s: Original scores.
        s_cf: Counterfactual scores.
        bins: Number of equal-width bins.
        eps: Additive smoothing of both histograms (0: none, and a bin with ``P > 0 = Q`` gives inf).
        base: Logarithm base (natural log by default; 2 gives bits).

    Returns:
        The divergence, possibly ``inf``.
    """
    if eps < 0:
        raise ConfigError("eps", f"must be >= 0, got {eps}", "use 0 or a small positive value")
    p, q = score_histograms(s, s_cf, bins)
    return float(entropy(_smooth(p, eps), _smooth(q, eps), base=base))


def jscd(s: object, s_cf: object, bins: int = 10, base: float | None = None) -> float:
    """Jensen–Shannon counterfactual divergence of binned scores (the divergence, not its root).

    Args:
        s: Original scores.
        s_cf: Counterfactual scores.
        bins: Number of equal-width bins.
        base: Logarithm base (natural log by default, so the value is at most ln 2).

    Returns:
        The divergence.
    """
    p, q = score_histograms(s, s_cf, bins)
    m = 0.5 * (p + q)
    return float(0.5 * entropy(p, m, base=base) + 0.5 * entropy(q, m, base=base))
