"""Exact minimum-cost moves onto a half-space ``w · x' >= m`` inside per-agent boxes.

Both solvers are vectorised over agents and exact (no iteration to a tolerance):

* :func:`project_l2` minimises ``Σ_j c_j (x'_j - x_j)²``. By the KKT conditions the solution is
  ``x'(λ) = clip(x + λ w / c, lo, hi)`` for the smallest ``λ >= 0`` with ``w · x'(λ) >= m``;
  ``w · x'(λ)`` is piecewise linear and non-decreasing in ``λ``, so ``λ`` is found exactly
  between two sorted breakpoints.
* :func:`project_l1` minimises ``Σ_j c_j |x'_j - x_j|``, a fractional knapsack: features are
  moved in order of score gained per unit cost (``|w_j| / c_j``) until the target is met.
"""

from __future__ import annotations

import numpy as np


def project_l2(
    x: np.ndarray, lo: np.ndarray, hi: np.ndarray, w: np.ndarray, c: np.ndarray, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted-L2 projection of each row of ``x`` onto ``{x': w·x' >= target, lo <= x' <= hi}``.

    The sums over features are taken one feature at a time (:func:`feature_sum`), so every value
    is bit-identical to summing an ``(..., d)`` array along its last axis with numpy, without the
    cost of many short reductions.

    Args:
        x: ``(n, d)`` current points.
        lo: ``(n, d)`` lower bounds.
        hi: ``(n, d)`` upper bounds.
        w: ``(d,)`` hyperplane normal, or ``(n, d)``: one per row.
        c: ``(d,)`` positive cost weights.
        target: ``(n,)`` required value of ``w · x'``.

    Returns:
        ``(x', feasible)``: the projections, and whether each reached the target (an infeasible
        row gets the highest-``w·x'`` point of its box along the KKT path).
    """
    n, d = x.shape
    x0 = np.clip(x, lo, hi)
    product = x0 * w  # (n, d) whether w is one normal or one per row
    need = target - feature_sum([product[:, j] for j in range(d)])
    s = w / c
    slope = w * s
    with np.errstate(divide="ignore", invalid="ignore"):
        t_lo = (lo - x) / s
        t_hi = (hi - x) / s
    rising = s > 0
    still = s == 0
    start = np.where(still, 0.0, np.maximum(np.where(rising, t_lo, t_hi), 0.0))
    end = np.where(still, 0.0, np.maximum(np.where(rising, t_hi, t_lo), 0.0))
    # The breakpoints of the piecewise-linear w·x'(λ), sorted per row, then one row per breakpoint.
    breaks = np.zeros((n, 2 * d + 1))
    breaks[:, 1 : d + 1], breaks[:, d + 1 :] = start, end
    breaks = np.sort(breaks, axis=1).T.copy()
    finite = np.isfinite(breaks)
    safe = np.where(finite, breaks, 0.0)
    start_t, end_t, slope_t = start.T.copy(), end.T.copy(), slope.T.copy()
    gained = feature_sum([(np.clip(safe, start_t[j], end_t[j]) - start_t[j]) * slope_t[j] for j in range(d)])
    gained = np.where(finite, gained, np.inf)
    last = np.maximum(np.count_nonzero(gained < need, axis=0) - 1, 0)
    rows = np.arange(n)
    at = safe[last, rows]
    seg_slope = feature_sum([((start_t[j] <= at) & (end_t[j] > at)) * slope_t[j] for j in range(d)])
    feasible = (need <= 0) | (seg_slope > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = at + (need - gained[last, rows]) / seg_slope
    lam = np.where(need <= 0, 0.0, lam)
    stuck = np.flatnonzero((need > 0) & ~feasible)
    if stuck.size:  # the highest finite breakpoint: the end of the KKT path inside the box
        lam[stuck] = np.where(finite[:, stuck], breaks[:, stuck], -np.inf).T.max(axis=1)
    moved = np.clip(x + lam[:, None] * s, lo, hi)
    return moved, feasible


#: numpy adds up to this many values along a short last axis one after another (more, pairwise).
SEQUENTIAL_SUM = 7


def feature_sum(terms: list[np.ndarray]) -> np.ndarray:
    """``np.stack(terms, axis=-1).sum(axis=-1)``, bit for bit, without the short reductions.

    numpy sums a contiguous last axis of up to :data:`SEQUENTIAL_SUM` values in order, one
    addition after another from ``+0.0`` (so a sum of negative zeros is ``+0.0``); for that many
    terms the sum is therefore the same arrays added elementwise in that order. For more terms it
    is numpy's own sum (which groups them pairwise).

    Args:
        terms: One array per feature, all of one shape (at least one).
    """
    if len(terms) > SEQUENTIAL_SUM:
        return np.stack(terms, axis=-1).sum(axis=-1)
    total = 0.0 + terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def project_l1(
    x: np.ndarray, lo: np.ndarray, hi: np.ndarray, w: np.ndarray, c: np.ndarray, target: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted-L1 minimum-cost move of each row of ``x`` to ``w·x' >= target`` inside its box.

    Takes the same arguments as :func:`project_l2`.

    Returns:
        ``(x', feasible)`` as in :func:`project_l2`.
    """
    x0 = np.clip(x, lo, hi)
    need = target - x0 @ w
    order = np.argsort(-np.abs(w) / c, kind="stable")
    room = np.where(w > 0, hi - x0, np.where(w < 0, x0 - lo, 0.0))[:, order]
    weight = np.abs(w)[order]
    with np.errstate(invalid="ignore"):
        gain = np.where(weight > 0, weight * room, 0.0)
    before = np.zeros_like(gain)
    before[:, 1:] = np.cumsum(gain, axis=1)[:, :-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        amount = np.where(weight > 0, (need[:, None] - before) / weight, 0.0)
    amount = np.clip(np.nan_to_num(amount, nan=0.0, posinf=np.inf), 0.0, room)
    moved = x0.copy()
    sign = np.sign(w)[order]
    moved[:, order] += sign * amount
    feasible = gain.sum(axis=1) >= need
    return moved, feasible
