"""Situation-testing distance and quantile-radius neighbourhoods (Raimondi et al., Defs. 9–11)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.spatial.distance import cdist

from recoursesim.errors import ConfigError, DataError


def feature_ranges(numeric: np.ndarray) -> np.ndarray:
    """Return ``max - min`` of each column (the normalising ranges of Def. 9)."""
    numeric = np.asarray(numeric, dtype=float)
    if numeric.size == 0:
        return np.zeros(numeric.shape[1] if numeric.ndim == 2 else 0)
    return np.nanmax(numeric, axis=0) - np.nanmin(numeric, axis=0)


def mixed_distance(
    numeric: np.ndarray,
    categorical: np.ndarray | None = None,
    ranges: np.ndarray | None = None,
    other_numeric: np.ndarray | None = None,
    other_categorical: np.ndarray | None = None,
) -> np.ndarray:
    """Pairwise distance: normalised Manhattan on numeric columns plus overlap on categorical ones.

    ``d(x, x') = sum_k |x_k - x'_k| / range_k + sum_c 1[x_c != x'_c]``; a constant numeric
    column (range 0) contributes 0.

    Args:
        numeric: ``(n, p)`` continuous or ordinal columns.
        categorical: ``(n, c)`` category codes (any comparable values) or ``None``.
        ranges: ``(p,)`` normalising ranges (default: the ranges of ``numeric``).
        other_numeric: Rows to measure against (default ``numeric``).
        other_categorical: Their categorical columns (default ``categorical``).

    Returns:
        ``(n, m)`` distances.
    """
    numeric = np.asarray(numeric, dtype=float)
    if numeric.ndim != 2:
        raise DataError("numeric", "must be a 2-D array", "pass one row per individual")
    if not np.isfinite(numeric).all():
        raise DataError("numeric", "contains NaN or infinite values", "drop or impute them first")
    ranges = feature_ranges(numeric) if ranges is None else np.asarray(ranges, dtype=float)
    scale = np.where(ranges > 0, 1.0 / np.where(ranges > 0, ranges, 1.0), 0.0)
    other = numeric if other_numeric is None else np.asarray(other_numeric, dtype=float)
    dist = cdist(numeric * scale, other * scale, metric="cityblock") if numeric.shape[1] else 0.0
    if categorical is not None and np.shape(categorical)[1]:
        codes, other_codes = _codes(
            np.asarray(categorical), None if other_categorical is None else np.asarray(other_categorical)
        )
        dist = dist + cdist(codes, other_codes, metric="hamming") * codes.shape[1]
    return np.broadcast_to(dist, (numeric.shape[0], other.shape[0])).astype(float)


def _codes(a: np.ndarray, b: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Map categorical values of both arrays to shared integer codes per column."""
    b = a if b is None else b
    out_a = np.empty(a.shape, dtype=float)
    out_b = np.empty(b.shape, dtype=float)
    for j in range(a.shape[1]):
        _, inverse = np.unique(np.concatenate([a[:, j], b[:, j]]).astype(str), return_inverse=True)
        out_a[:, j] = inverse[: a.shape[0]]
        out_b[:, j] = inverse[a.shape[0] :]
    return out_a, out_b


def neighbourhood_radii(distances: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """Return ``r[q, i]``: the q-quantile of centre i's distances to everyone else.

    Args:
        distances: ``(c, n)`` distances from ``c`` centres to all ``n`` individuals; each centre's
            own entry must be its minimum (0) and is left out.
        qs: Quantile levels in (0, 1]; numpy's default linear interpolation.

    Returns:
        ``(len(qs), c)`` radii.
    """
    levels = check_qs(qs)
    distances = np.asarray(distances, dtype=float)
    if distances.shape[1] < 2:
        raise DataError("distances", "need at least two individuals", "audit a larger data set")
    others = np.sort(distances, axis=1)[:, 1:]  # drop the centre's own zero distance
    return np.quantile(others, levels, axis=1)


def neighbourhood(distances_from_centre: np.ndarray, centre: int, q: float) -> np.ndarray:
    """Indices of the neighbourhood ``{i} ∪ {j : d_ij <= r_i}`` of one centre (ties included)."""
    row = np.asarray(distances_from_centre, dtype=float)
    others = np.delete(row, centre)
    radius = np.quantile(others, check_qs([q])[0])
    members = row <= radius
    members[centre] = True
    return np.flatnonzero(members)


def check_qs(qs: Sequence[float]) -> np.ndarray:
    """Return the quantile levels ``qs`` as an array, or raise (field ``q``) unless each lies in (0, 1]."""
    values = np.asarray(qs, dtype=float).ravel()
    if values.size == 0 or not ((values > 0) & (values <= 1)).all():
        given = ", ".join(f"{v:g}" for v in values.tolist()) or "none"
        raise ConfigError("q", f"quantile levels must lie in (0, 1], got {given}", "use e.g. 0.1 ... 1.0")
    return values
