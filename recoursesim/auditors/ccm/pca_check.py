"""Optional PCA validation of counterfactuals (Pinto et al., §2.1; details are our choices, docs/ccm.md)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from sklearn.decomposition import PCA
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler


def subspace_valid(cell_scores: np.ndarray, cf_scores: np.ndarray, k_sigma: float = 1.5) -> np.ndarray:
    """Check counterfactuals against a target cell in every subspace of ``n - 1`` components.

    For each combination ``S`` of ``n - 1`` of the ``n`` principal components, the cell's centroid
    ``c_S`` and RMS radius ``sigma_S = sqrt(mean ||z_i - c_S||^2)`` are computed; a counterfactual
    is invalid if ``||z_cf - c_S|| > k_sigma * sigma_S`` in any subspace. With one component the
    single component is used.

    Args:
        cell_scores: ``(m, n)`` PCA scores of the target (group, label) cell of the reference set.
        cf_scores: ``(k, n)`` PCA scores of the counterfactuals.
        k_sigma: Radius multiplier.

    Returns:
        ``(k,)`` booleans, True where the counterfactual is valid.
    """
    cell_scores = np.atleast_2d(np.asarray(cell_scores, dtype=float))
    cf_scores = np.atleast_2d(np.asarray(cf_scores, dtype=float))
    n = cell_scores.shape[1]
    subsets = [tuple(range(n))] if n == 1 else list(combinations(range(n), n - 1))
    valid = np.ones(cf_scores.shape[0], dtype=bool)
    for subset in subsets:
        cols = list(subset)
        centre = cell_scores[:, cols].mean(axis=0)
        sigma = np.sqrt(np.mean(np.sum((cell_scores[:, cols] - centre) ** 2, axis=1)))
        distance = np.linalg.norm(cf_scores[:, cols] - centre, axis=1)
        valid &= distance <= k_sigma * sigma + 1e-12
    return valid


def fit_projection(reference: np.ndarray, n_components: int) -> Pipeline:
    """Fit the standardise-then-PCA projection on the reference set.

    Args:
        reference: ``(m, d)`` numeric features of the reference (training) set.
        n_components: Requested components; capped at ``min(d, m)``.

    Returns:
        A fitted scikit-learn pipeline whose ``transform`` gives PCA scores.
    """
    n = max(1, min(n_components, reference.shape[1], reference.shape[0]))
    return make_pipeline(StandardScaler(), PCA(n_components=n, svd_solver="full")).fit(reference)
