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
    n = x.shape[0]
    x0 = np.clip(x, lo, hi)
    w = np.broadcast_to(w, x.shape)
    need = target - (x0 * w).sum(axis=1)
    s = w / c
    slope = w * s
    with np.errstate(divide="ignore", invalid="ignore"):
        t_lo = (lo - x) / s
        t_hi = (hi - x) / s
    rising = s > 0
    start = np.where(rising, t_lo, t_hi)
    end = np.where(rising, t_hi, t_lo)
    still = s == 0
    start = np.where(still, 0.0, np.maximum(start, 0.0))
    end = np.where(still, 0.0, np.maximum(end, 0.0))
    breaks = np.sort(np.concatenate([np.zeros((n, 1)), start, end], axis=1), axis=1)
    finite = np.isfinite(breaks)
    safe = np.where(finite, breaks, 0.0)
    clipped = np.clip(safe[:, :, None], start[:, None, :], end[:, None, :])
    gained = ((clipped - start[:, None, :]) * slope[:, None, :]).sum(axis=2)
    gained = np.where(finite, gained, np.inf)
    below = gained < need[:, None]
    last = np.maximum(below.sum(axis=1) - 1, 0)
    rows = np.arange(n)
    at = safe[rows, last]
    active = (start <= at[:, None]) & (end > at[:, None])
    seg_slope = (active * slope).sum(axis=1)
    feasible = (need <= 0) | (seg_slope > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = at + (need - gained[rows, last]) / seg_slope
    top = np.where(finite, breaks, -np.inf).max(axis=1)
    lam = np.where(need <= 0, 0.0, np.where(feasible, lam, top))
    moved = np.clip(x + lam[:, None] * s, lo, hi)
    return moved, feasible


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
