"""Maximum mean discrepancy (MMD) between two samples, with a vectorised permutation test.

The kernel is the Gaussian (RBF) kernel ``k(x, y) = exp(-||x - y||² / (2 h²))``. The bandwidth
``h`` is a positive number, or ``"median"``: the median Euclidean distance between distinct points
of the pooled sample (the *median heuristic*). The statistic is the unbiased estimate

``MMD² = mean_{i≠j} k(x_i, x_j) + mean_{i≠j} k(y_i, y_j) - 2 mean_{i,j} k(x_i, y_j)``

(it can be slightly negative when the samples come from one distribution). The p-value is the
share of label permutations of the pooled sample whose statistic is at least the observed one,
counting the observed labelling as one of them: ``(1 + #{MMD²_perm >= MMD²}) / (1 + permutations)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist, pdist, squareform

from recoursesim._validate import check_float, check_int
from recoursesim.errors import ConfigError, DataError
from recoursesim.threads import single_threaded


@dataclass(frozen=True)
class MMDResult:
    """One two-sample MMD test.

    Attributes:
        mmd2: The unbiased squared MMD.
        p_value: Permutation p-value (NaN when no permutations were run).
        bandwidth: The kernel bandwidth used.
    """

    mmd2: float
    p_value: float
    bandwidth: float


def check_bandwidth(value: object, field: str = "bandwidth") -> float | str:
    """Return a valid bandwidth setting: ``"median"`` or a number > 0, else raise :class:`ConfigError`."""
    if isinstance(value, str):
        if value != "median":
            raise ConfigError(field, f"unknown bandwidth rule {value!r}", 'use "median" or a number > 0')
        return value
    return check_float(field, value, minimum=0.0, strict_minimum=True)


def median_bandwidth(pooled: np.ndarray) -> float:
    """The median heuristic: median distance between distinct points (1.0 if all points coincide)."""
    distances = pdist(pooled)
    distances = distances[distances > 0]
    return float(np.median(distances)) if distances.size else 1.0


def gaussian_kernel(x: np.ndarray, y: np.ndarray, bandwidth: float) -> np.ndarray:
    """Return the ``(len(x), len(y))`` Gaussian kernel matrix."""
    return np.exp(-cdist(x, y, "sqeuclidean") / (2.0 * bandwidth * bandwidth))


def pooled_kernel(pooled: np.ndarray, bandwidth: float) -> np.ndarray:
    """The Gaussian kernel matrix of ``pooled`` with itself, equal to ``gaussian_kernel(pooled, pooled, bandwidth)``.

    The matrix is symmetric with ones on the diagonal, so only the distinct pairs are computed and
    exponentiated (half the work); each pair's value is the same number ``gaussian_kernel`` gives.
    """
    kernel = squareform(np.exp(-pdist(pooled, "sqeuclidean") / (2.0 * bandwidth * bandwidth)))
    np.fill_diagonal(kernel, 1.0)
    return kernel


def mmd2_unbiased(x: np.ndarray, y: np.ndarray, bandwidth: float) -> float:
    """The unbiased squared MMD of samples ``x`` ``(n, d)`` and ``y`` ``(m, d)`` (n, m >= 2)."""
    x, y = _as_samples(x, y)
    n, m = x.shape[0], y.shape[0]
    kxx, kyy, kxy = gaussian_kernel(x, x, bandwidth), gaussian_kernel(y, y, bandwidth), gaussian_kernel(x, y, bandwidth)
    within_x = (kxx.sum() - np.trace(kxx)) / (n * (n - 1))
    within_y = (kyy.sum() - np.trace(kyy)) / (m * (m - 1))
    return float(within_x + within_y - 2.0 * kxy.mean())


def mmd_test(
    x: np.ndarray,
    y: np.ndarray,
    *,
    bandwidth: float | str = "median",
    permutations: int = 200,
    rng: np.random.Generator | None = None,
) -> MMDResult:
    """Two-sample MMD test with a permutation p-value, all permutations in one matrix product.

    The pooled kernel matrix ``K`` is computed once. For a labelling ``u`` (1 for the first
    sample) the within-first-sample sum is ``uᵀKu``; the other two block sums follow from the row
    sums of ``K`` and its total, so each permutation costs one row of ``U @ K``.

    Args:
        x: ``(n, d)`` first sample (n >= 2).
        y: ``(m, d)`` second sample (m >= 2).
        bandwidth: ``"median"`` (median heuristic on the pooled sample) or a number > 0.
        permutations: Number of random relabellings (0: no p-value).
        rng: Source of the permutations (required if ``permutations > 0``).

    Returns:
        The statistic, p-value and bandwidth.
    """
    x, y = _as_samples(x, y)
    setting = check_bandwidth(bandwidth)
    permutations = check_int("permutations", permutations, minimum=0)
    with single_threaded():  # small matrices: threads only add contention
        pooled = np.concatenate([x, y])
        h = median_bandwidth(pooled) if setting == "median" else float(setting)
        kernel = pooled_kernel(pooled, h)
        n, m = x.shape[0], y.shape[0]
        labels = np.zeros((1 + permutations, n + m))
        labels[0, :n] = 1.0
        if permutations:
            if rng is None:
                raise ValueError("mmd_test needs an rng for the permutations")
            order = rng.permuted(np.tile(np.arange(n + m), (permutations, 1)), axis=1)[:, :n]
            np.put_along_axis(labels[1:], order, 1.0, axis=1)
        observed = float(_mmd2_from_labels(kernel, labels[:1], n, m)[0])
        p_value = np.nan
        if permutations:
            # single precision halves the cost; the observed labelling is ranked in the same precision
            stats = _mmd2_from_labels(kernel.astype(np.float32), labels.astype(np.float32), n, m)
            p_value = float((1 + np.sum(stats[1:] >= stats[0] - 1e-6 * abs(stats[0]))) / (1 + permutations))
        return MMDResult(observed, p_value, h)


def _mmd2_from_labels(kernel: np.ndarray, labels: np.ndarray, n: int, m: int) -> np.ndarray:
    """Unbiased MMD² for each row of ``labels`` (1 marks the first sample) on one kernel matrix."""
    diagonal = np.diag(kernel)
    row_sums = kernel.sum(axis=1)
    total = row_sums.sum()
    sum_xx = np.einsum("pi,pi->p", labels @ kernel, labels, dtype=np.float64)
    sum_xy = labels @ row_sums - sum_xx
    sum_yy = total - sum_xx - 2.0 * sum_xy
    diag_x = labels @ diagonal
    diag_y = diagonal.sum() - diag_x
    return (sum_xx - diag_x) / (n * (n - 1)) + (sum_yy - diag_y) / (m * (m - 1)) - 2.0 * sum_xy / (n * m)


def _as_samples(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    x = x[:, None] if x.ndim == 1 else x
    y = y[:, None] if y.ndim == 1 else y
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1]:
        raise DataError("samples", f"have shapes {x.shape} and {y.shape}", "give two (n, d) arrays with equal d")
    if x.shape[0] < 2 or y.shape[0] < 2:
        raise DataError("samples", "need at least two points each", "observe populations of two or more agents")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise DataError("samples", "contain NaN or infinite values", "give finite features")
    return x, y
