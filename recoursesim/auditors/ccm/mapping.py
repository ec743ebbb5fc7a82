"""Distribution mapping of continuous and ordinal features between groups (CDF quantile mapping)."""

from __future__ import annotations

import numpy as np


def empirical_cdf(reference: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the support and the empirical CDF of ``reference``.

    Args:
        reference: Observed values of one feature in one (group, label) cell.

    Returns:
        ``(xs, cdf)``: the distinct values in ascending order and ``#{v <= x} / n`` at each.
    """
    values = np.asarray(reference, dtype=float)
    values = values[~np.isnan(values)]
    xs, counts = np.unique(values, return_counts=True)
    return xs, np.cumsum(counts) / values.size


def cdf_at(values: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Evaluate the source cell's empirical CDF at ``values`` (Pinto et al., Eq. 1).

    Between support points the CDF is interpolated linearly; below the support it is clamped to
    ``P(x_(1))`` and above to 1.

    Args:
        values: Points at which to evaluate.
        source: Reference values of the source cell.

    Returns:
        The CDF value of each point.
    """
    xs, cdf = empirical_cdf(source)
    return np.interp(np.asarray(values, dtype=float), xs, cdf)


def quantile_map(values: np.ndarray, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Map continuous values from the source distribution to the target one (Eqs. 1–2).

    ``v' = F_B^{-1}(F_A(v))`` with linear interpolation of both empirical CDFs and clamping
    outside the supports.

    Args:
        values: Values of the samples being counterfactualised (group A).
        source: Reference values of the source cell (group A, same label).
        target: Reference values of the target cell (group B, same label).

    Returns:
        The mapped values (unchanged if either cell has no observed value).
    """
    values = np.asarray(values, dtype=float)
    if not _has_values(source) or not _has_values(target):
        return values.copy()
    xs_b, cdf_b = empirical_cdf(target)
    return np.interp(cdf_at(values, source), cdf_b, xs_b)


def ordinal_map(values: np.ndarray, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Map ordinal values to the target support value whose CDF is nearest (nearest-CDF reading).

    Our reading of the paper (docs/ccm.md): ``p = F_A(v)`` as for continuous features, then the target
    support value minimising ``|F_B(x) - p|``; ties go to the smaller value. (The alternative
    reading, interpolate then round, is not implemented.)

    Args:
        values: Integer-coded ordinal values of the samples (group A).
        source: Reference values of the source cell.
        target: Reference values of the target cell.

    Returns:
        The mapped values, each a support value of the target cell.
    """
    values = np.asarray(values, dtype=float)
    if not _has_values(source) or not _has_values(target):
        return values.copy()
    xs_b, cdf_b = empirical_cdf(target)
    p = cdf_at(values, source)
    # Round so that ties equal on paper (|.2 - .5| vs |.8 - .5|) stay ties in floating point.
    gaps = np.round(np.abs(cdf_b[np.newaxis, :] - p[:, np.newaxis]), 12)
    nearest = np.argmin(gaps, axis=1)
    return xs_b[nearest]


def _has_values(reference: np.ndarray) -> bool:
    return bool(np.isfinite(np.asarray(reference, dtype=float)).any())
