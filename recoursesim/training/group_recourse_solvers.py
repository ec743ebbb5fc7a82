"""Solvers for Gupta et al. (2019)'s group recourse penalty: the SVM's dual and smoothed primal, the logistic fit.

Recourse of a predicted-negative point is its distance to the boundary ``d(x) = |w·x + b| / ‖w‖``;
group recourse ``r(G)`` is its mean over the group's predicted negatives, and the recourse
difference is ``RD = |r(G⁺) − r(G⁻)|``. The published method adds ``λ · |Σ_i s_i (w·x_i + b)|`` to
a linear SVM, with ``s_i = g_i / |N_{g_i}|`` on the predicted negatives ``N`` (``g = ±1``) and 0
elsewhere, so that ``Σ s_i f(x_i) = −(r(G⁺) − r(G⁻))·‖w‖`` (docs/mitigations.md, "Equalizing
recourse across groups"). Every solver warns (:class:`~sklearn.exceptions.ConvergenceWarning`)
when scipy reports that it stopped without converging.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import LinearConstraint, OptimizeResult, minimize
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning


def recourse_weights(margins: np.ndarray, sign: np.ndarray) -> tuple[np.ndarray, bool]:
    """Return ``s`` (``g_i / |N_{g_i}|`` on predicted negatives, else 0) and whether both groups have negatives.

    Args:
        margins: ``w·x + b`` per point (``f = 0`` counts as positive).
        sign: ``+1`` / ``-1`` group code per point.
    """
    negative = margins < 0
    s = np.zeros(margins.shape[0])
    both = True
    for g in (1.0, -1.0):
        members = negative & (sign == g)
        count = int(members.sum())
        if count == 0:
            both = False
        else:
            s[members] = g / count
    return s, both


def recourse_difference(coef: np.ndarray, intercept: float, X: np.ndarray, sign: np.ndarray) -> float:
    """Geometric recourse difference ``|r(G⁺) − r(G⁻)|`` (NaN when a group has no predicted negatives)."""
    norm = float(np.linalg.norm(coef))
    margins = X @ coef + intercept
    values = []
    for g in (1.0, -1.0):
        members = (margins < 0) & (sign == g)
        if not members.any() or norm == 0:
            return float("nan")
        values.append(float(np.mean(-margins[members]) / norm))
    return abs(values[0] - values[1])


def primal_objective(
    Z: np.ndarray, y: np.ndarray, s: np.ndarray, lam: float, upsilon: float, theta: np.ndarray
) -> float:
    """``½‖w‖² + (Υ/n) Σ max(0, 1 − y f) + λ |Σ s f|`` at ``theta = (w, b)``."""
    f = Z @ theta[:-1] + theta[-1]
    n = Z.shape[0]
    return float(0.5 * theta[:-1] @ theta[:-1] + upsilon / n * np.maximum(0.0, 1.0 - y * f).sum() + lam * abs(s @ f))


def solve_dual(Z: np.ndarray, y: np.ndarray, s: np.ndarray, lam: float, upsilon: float) -> np.ndarray:
    """Exact solution via the dual QP (SLSQP), then the best ``b`` by the breakpoint rule.

    Dual: ``max Σμ − ½‖Σ μ_i y_i x_i + ν m‖²`` s.t. ``0 ≤ μ ≤ Υ/n``, ``−λ ≤ ν ≤ λ``,
    ``Σ μ_i y_i + ν S = 0``, with ``m = Σ s_i x_i`` and ``S = Σ s_i``; ``w = Σ μ_i y_i x_i + ν m``.
    """
    n = Z.shape[0]
    A = (y[:, None] * Z).T
    m = Z.T @ s
    S = float(s.sum())
    cap = upsilon / n

    def objective(v: np.ndarray) -> tuple[float, np.ndarray]:
        w = A @ v[:n] + v[n] * m
        value = 0.5 * w @ w - v[:n].sum()
        grad = np.concatenate([A.T @ w - 1.0, [m @ w]])
        return float(value), grad

    bounds = [(0.0, cap)] * n + [(-lam, lam)]
    result = minimize(
        objective,
        np.zeros(n + 1),
        jac=True,
        bounds=bounds,
        constraints=[LinearConstraint(np.concatenate([y, [S]])[None, :], 0.0, 0.0)],  # Σ μ_i y_i + ν S = 0
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 2000},
    )
    v = solution(result, "the group recourse SVM's dual (SLSQP)")
    w = A @ v[:n] + v[n] * m
    return np.concatenate([w, [best_intercept(Z, y, s, lam, upsilon, w)]])


def best_intercept(Z: np.ndarray, y: np.ndarray, s: np.ndarray, lam: float, upsilon: float, w: np.ndarray) -> float:
    """``b`` minimising the primal for fixed ``w``, at the best breakpoint (ties: the middle of the tied set)."""
    margins = Z @ w
    breakpoints = list(y - margins)
    S = float(s.sum())
    if S != 0:
        breakpoints.append(-float(s @ margins) / S)
    candidates = np.unique(np.asarray(breakpoints))
    values = np.array([primal_objective(Z, y, s, lam, upsilon, np.concatenate([w, [b]])) for b in candidates])
    tied = candidates[values <= values.min() + 1e-12 * max(1.0, abs(values.min()))]
    middle = 0.5 * (tied.min() + tied.max())
    return float(tied[np.argmin(np.abs(tied - middle))])


def solve_smoothed(
    Z: np.ndarray,
    y: np.ndarray,
    s: np.ndarray,
    lam: float,
    upsilon: float,
    start: np.ndarray | None,
    delta: float = 1e-4,
    eps: float = 1e-8,
) -> np.ndarray:
    """Minimise the smoothed primal over ``(w, b)`` with L-BFGS-B (Huber hinge, smooth absolute value)."""
    n, d = Z.shape
    c = upsilon / n

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        f = Z @ w + b
        z = 1.0 - y * f
        quad = (z > 0) & (z <= delta)
        lin = z > delta
        hinge = np.where(lin, z - delta / 2, np.where(quad, z * z / (2 * delta), 0.0))
        dhinge = np.where(lin, 1.0, np.where(quad, z / delta, 0.0))
        a = s @ f
        root = np.sqrt(a * a + eps * eps)
        value = 0.5 * w @ w + c * hinge.sum() + lam * root
        dz = -c * dhinge * y + lam * (a / root) * s
        grad = np.concatenate([w + Z.T @ dz, [dz.sum()]])
        return float(value), grad

    theta0 = np.zeros(d + 1) if start is None else start
    result = minimize(
        objective, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-11}
    )
    return solution(result, "the group recourse SVM's smoothed primal (L-BFGS-B)")


def solve_logistic(
    Z: np.ndarray,
    y: np.ndarray,
    s: np.ndarray,
    lam: float,
    alpha: float,
    start: np.ndarray | None,
    *,
    scale_free: bool = False,
    eps: float = 1e-8,
) -> np.ndarray:
    """Minimise ``mean log-loss + (α/2)‖w‖² + λ·sqrt((Σ s f)² + ε²)`` over ``(w, b)`` with L-BFGS-B.

    With ``scale_free`` the penalty's argument is ``Σ s f / ‖w‖``. ``y`` is ``±1``.
    """
    n, d = Z.shape
    labels = (y > 0).astype(float)

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        f = Z @ w + b
        p = expit(f)
        loss = np.mean(np.logaddexp(0.0, f) - labels * f)
        df = (p - labels) / n
        value = loss + 0.5 * alpha * w @ w
        grad_w = Z.T @ df + alpha * w
        grad_b = df.sum()
        if lam > 0:
            a = s @ f
            norm = max(float(np.linalg.norm(w)), 1e-12) if scale_free else 1.0  # 1: the plain penalty, exactly
            u = a / norm
            root = np.sqrt(u * u + eps * eps)
            value += lam * root
            du = lam * u / root
            grad_w = grad_w + du * (Z.T @ s / norm - (a * w / norm**3 if scale_free else 0.0))
            grad_b += du * s.sum() / norm
        return float(value), np.concatenate([grad_w, [grad_b]])

    theta0 = np.zeros(d + 1) if start is None else start
    result = minimize(objective, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 5000, "gtol": 1e-10})
    return solution(result, "the penalised logistic fit (L-BFGS-B)")


def solution(result: OptimizeResult, what: str) -> np.ndarray:
    """``result.x``, with a :class:`~sklearn.exceptions.ConvergenceWarning` if the solver failed.

    A stop because the line search could make no more progress (SLSQP's "positive directional
    derivative", L-BFGS-B's "ABNORMAL" line-search termination) is not a failure here: with the
    tight tolerances these solvers are given it means the objective cannot be improved at
    floating-point precision. An iteration limit, or a non-finite solution, is.
    """
    x = np.asarray(result.x, dtype=float)
    message = str(result.message)
    precision_limited = "positive directional derivative" in message.lower() or "abnormal" in message.lower()
    if not np.all(np.isfinite(x)) or not (result.success or precision_limited):
        warnings.warn(
            f"{what} stopped without converging ({message}); the fitted model may be inexact",
            ConvergenceWarning,
            stacklevel=3,
        )
    return x
