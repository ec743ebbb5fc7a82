"""Binary and one-hot feature flipping for plausible counterfactuals (Pinto et al., Eqs. 3–4).

Every binary feature and every one-hot block is a *unit* holding an integer code: 0/1 for a
binary feature, the index of the active column for a block. Units are flipped level by level:

* level 0 (optional): the sample's value is nearly impossible in the target group;
* level 1: the value's probability differs between source and target group by at least ``tau``;
* level l >= 2: flipping an anchor unit of the previous level changes, inside the target group,
  the probability of the unit's value by at least ``tau``.

A flipped unit takes the target group's most probable other value (for a binary feature, the
other value). Each unit flips at most once; the result is one counterfactual per sample.
"""

from __future__ import annotations

import numpy as np

#: Tolerance for the ``d >= tau`` test, so that exact ties on paper flip in floating point.
TIE_TOLERANCE = 1e-12


def category_probabilities(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Return ``P(unit = c)`` for ``c = 0 .. n_categories-1`` in one cell of reference rows."""
    if codes.size == 0:
        return np.full(n_categories, np.nan)
    return np.bincount(codes, minlength=n_categories)[:n_categories] / codes.size


def conditional_table(anchor: np.ndarray, unit: np.ndarray, n_anchor: int, n_unit: int) -> np.ndarray:
    """Return ``T[a, c] = P(unit = c | anchor = a)``; rows with an empty condition are NaN."""
    joint = np.zeros((n_anchor, n_unit))
    np.add.at(joint, (anchor, unit), 1.0)
    totals = joint.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, joint / np.where(totals > 0, totals, 1.0), np.nan)


def flip_units(
    sample_codes: np.ndarray,
    source_codes: np.ndarray,
    target_codes: np.ndarray,
    n_categories: list[int],
    *,
    tau: float = 0.5,
    max_depth: int = 1,
    impossible_thr: float | None = None,
    allowed: np.ndarray | None = None,
) -> np.ndarray:
    """Apply the binary flipping rules to samples of one (source group, target group, label) cell.

    Args:
        sample_codes: ``(n, u)`` unit codes of the samples (source group A, label y).
        source_codes: ``(m_A, u)`` unit codes of the reference rows of group A with label y.
        target_codes: ``(m_B, u)`` unit codes of the reference rows of group B with label y.
        n_categories: Number of categories of each unit (2 for a binary feature).
        tau: Flip threshold on the probability difference (flip when ``d >= tau``).
        max_depth: Highest level applied; 0 applies only the impossibility rule.
        impossible_thr: Flip a value whose target-group probability is below this, or ``None``.
        allowed: ``(u,)`` booleans, the units allowed to change (default all).

    Returns:
        ``(n, u)`` the counterfactual unit codes.
    """
    n, n_units = sample_codes.shape
    allowed = np.ones(n_units, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    p_source = [category_probabilities(source_codes[:, u], n_categories[u]) for u in range(n_units)]
    p_target = [category_probabilities(target_codes[:, u], n_categories[u]) for u in range(n_units)]
    replacement = [_replacement_codes(p_target[u]) for u in range(n_units)]
    new = sample_codes.copy()
    flipped = np.zeros((n, n_units), dtype=bool)

    def flip(u: int | np.integer, rows: np.ndarray) -> None:
        new[rows, u] = replacement[u][sample_codes[rows, u]]
        flipped[rows, u] = True

    if impossible_thr is not None:
        for u in np.flatnonzero(allowed):
            p_value = p_target[u][sample_codes[:, u]]
            flip(u, np.flatnonzero(p_value < impossible_thr))
    frontier = np.zeros((n, n_units), dtype=bool)
    if max_depth >= 1:
        for u in np.flatnonzero(allowed):
            values = sample_codes[:, u]
            gap = np.abs(p_source[u][values] - p_target[u][values])
            rows = np.flatnonzero((gap >= tau - TIE_TOLERANCE) & ~flipped[:, u])
            flip(u, rows)
            frontier[rows, u] = True
    for _level in range(2, max_depth + 1):
        if not frontier.any():
            break
        fired = _fired_by(frontier, flipped, allowed, sample_codes, new, target_codes, n_categories, tau)
        for u in np.flatnonzero(fired.any(axis=0)):
            flip(u, np.flatnonzero(fired[:, u]))
        frontier = fired
    return new


def _fired_by(
    frontier: np.ndarray,
    flipped: np.ndarray,
    allowed: np.ndarray,
    sample_codes: np.ndarray,
    new: np.ndarray,
    target_codes: np.ndarray,
    n_categories: list[int],
    tau: float,
) -> np.ndarray:
    """The next level's flips, as ``(n, u)`` booleans.

    Unit ``u`` of a row fires when the flip of a unit ``a`` at the last level moved
    ``P(u = value | a)`` in the target group by at least ``tau``.
    """
    fired = np.zeros_like(frontier)
    for a in np.flatnonzero(frontier.any(axis=0)):
        for u in np.flatnonzero(allowed & (np.arange(len(allowed)) != a)):
            rows = np.flatnonzero(frontier[:, a] & ~flipped[:, u])
            if rows.size == 0:
                continue
            table = conditional_table(target_codes[:, a], target_codes[:, u], n_categories[a], n_categories[u])
            values = sample_codes[rows, u]
            gap = np.abs(table[new[rows, a], values] - table[sample_codes[rows, a], values])
            fired[rows[gap >= tau - TIE_TOLERANCE], u] = True  # NaN (empty condition) never fires
    return fired


def _replacement_codes(p_target: np.ndarray) -> np.ndarray:
    """For each current code, the target group's most probable *other* code (ties: lowest code)."""
    scores = np.where(np.isnan(p_target), -1.0, p_target)
    return np.argmax(np.where(np.eye(p_target.size, dtype=bool), -np.inf, scores), axis=1).astype(np.int64)
