"""The Kaplan–Meier estimate of a survival curve from durations with right-censoring."""

from __future__ import annotations

import numpy as np
import pandas as pd


def kaplan_meier(durations: np.ndarray, expired: np.ndarray) -> pd.DataFrame:
    """Kaplan–Meier estimate of ``S(h) = P(duration > h)`` at every whole step ``h = 0 … max``.

    Durations are whole steps. At each ``h >= 1`` the ``n_h`` items still followed (duration
    ``>= h``) are at risk and ``d_h`` of them expire at ``h``; ``S(h) = Π_{j <= h} (1 - d_j / n_j)``
    and ``S(0) = 1`` (every recommendation is counted from the step it was issued). An item
    censored at ``h`` (followed for ``h`` steps without expiring) is at risk up to and including
    ``h``. Greenwood's formula gives the standard error. This is the textbook estimator, written
    out here because it is a few lines of numpy while the survival libraries that provide it pull
    in several heavy dependencies (docs/durability.md).

    Args:
        durations: Whole steps until expiry or censoring (``>= 0``).
        expired: Whether each item expired (``False``: censored).

    Returns:
        One row per ``h``: ``time``, ``at_risk``, ``expired``, ``censored``, ``survival``,
        ``std_error`` (NaN once nobody is at risk).
    """
    durations = np.asarray(durations, dtype=np.int64)
    expired = np.asarray(expired, dtype=bool)
    if durations.shape != expired.shape or durations.ndim != 1:
        raise ValueError("durations and expired must be 1-D arrays of the same length")
    if durations.size and durations.min() < 0:
        raise ValueError("durations must be >= 0")
    top = int(durations.max()) if durations.size else 0
    time = np.arange(top + 1)
    events = np.bincount(durations[expired], minlength=top + 1)[: top + 1]
    censored = np.bincount(durations[~expired], minlength=top + 1)[: top + 1]
    leaving = events + censored
    at_risk = durations.size - np.concatenate([[0], np.cumsum(leaving)[:-1]])
    events = np.where(time == 0, 0, events)  # an expiry at 0 steps cannot happen; counted from issue
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(at_risk > 0, 1.0 - events / at_risk, 1.0)
        survival = np.cumprod(factor)
        terms = np.where((at_risk > events) & (at_risk > 0), events / (at_risk * (at_risk - events)), 0.0)
        std_error = survival * np.sqrt(np.cumsum(terms))
    std_error = np.where(at_risk > 0, std_error, np.nan)
    return pd.DataFrame(
        {
            "time": time.astype(np.int32),
            "at_risk": at_risk.astype(np.int64),
            "expired": events.astype(np.int64),
            "censored": censored.astype(np.int64),
            "survival": survival,
            "std_error": std_error,
        }
    )
