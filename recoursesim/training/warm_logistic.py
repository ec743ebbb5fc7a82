"""An L2-regularised logistic regression solved exactly by Newton's method, warm-started between refits.

The refitting trainers fit a fresh ``LogisticRegression`` every step on data that changes little
from one step to the next. scikit-learn's L-BFGS solver starts from zero every time and stops at
its tolerance (``tol=1e-4`` on the gradient), which here leaves the coefficients up to about
1e-2 away from the optimum of the objective. This module minimises the same objective,

    C · Σ_i [log(1 + exp(z_i)) − y_i z_i] + ½ ‖w‖²,   z_i = w · x_i + b   (the intercept b is not penalised),

to convergence with Newton's method from the previous step's solution (a handful of iterations,
each one ``(d + 1) × (d + 1)`` solve), with a backtracking line search so that it also converges
from a poor start. The result is the objective's unique minimiser: it equals scikit-learn's own
solution run to convergence (``tol=1e-10``) within 1e-6 in every coefficient (tested).

It is used only where it solves exactly the problem scikit-learn would: a ``LogisticRegression``
with the defaults apart from ``C`` (and ``random_state``, ``max_iter``, ``tol``, ``verbose``,
``n_jobs``, ``warm_start``, which do not change the minimiser), binary labels and no sample
weights. Anything else is fitted by scikit-learn as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

#: Parameters whose values do not change the minimiser (the solver's own stopping and logging).
_NEUTRAL = ("random_state", "max_iter", "tol", "verbose", "n_jobs", "warm_start")
_DEFAULTS = {name: value for name, value in LogisticRegression().get_params().items() if name not in ("C", *_NEUTRAL)}

#: Newton stops when no coefficient moves by more than this (relative to max(1, |coefficient|)).
STEP_TOLERANCE = 1e-12
MAX_ITERATIONS = 200
#: The largest change of any coefficient in one iteration (only ever binding far from the optimum).
MAX_STEP = 10.0


def solves_exactly(estimator: Any) -> bool:
    """Whether ``estimator`` is a plain ``LogisticRegression`` whose minimiser :func:`fit_newton` computes."""
    if type(estimator) is not LogisticRegression:
        return False
    params = estimator.get_params()
    c = params.get("C")
    if not isinstance(c, int | float) or isinstance(c, bool) or not np.isfinite(c) or c <= 0:
        return False
    return all(_same(params.get(name), value) for name, value in _DEFAULTS.items())


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b if not isinstance(b, float) else isinstance(a, float) and a == b


def fit_newton(
    features: np.ndarray, labels: np.ndarray, c: float, start: np.ndarray | None = None
) -> tuple[np.ndarray, int]:
    """Minimise the regularised logistic loss (module docstring); return ``[w..., b]`` and the iterations.

    The ``d + 1`` numbers that decide the step (its size, whether it is finite, how far it moved)
    are compared as Python floats: the same IEEE values as the numpy expressions they stand for,
    without a numpy call per comparison.

    Args:
        features: ``(n, d)`` rows.
        labels: ``(n,)`` 0/1 labels.
        c: The inverse regularisation strength ``C`` (> 0).
        start: ``(d + 1,)`` a starting point (for example the previous refit's solution); zeros if ``None``.
    """
    n, d = features.shape
    x = np.empty((n, d + 1))
    x[:, :d] = features
    x[:, d] = 1.0
    y = np.asarray(labels, dtype=float)
    penalty = np.full(d + 1, 1.0 / c)
    penalty[-1] = 0.0
    beta = np.zeros(d + 1) if start is None or start.shape != (d + 1,) else np.array(start, dtype=float)
    ridge = np.diag(penalty)

    def objective(z: np.ndarray, b: np.ndarray) -> float:
        return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(penalty * b * b))

    z = x @ beta
    value: float | None = None
    iterations = 0
    while iterations < MAX_ITERATIONS:
        iterations += 1
        p = expit(z)
        gradient = x.T @ (p - y) + penalty * beta
        hessian = (x.T * (p * (1.0 - p))) @ x + ridge
        step = _newton_step(hessian, gradient)
        # Near the optimum a full Newton step always decreases the (strictly convex) objective;
        # farther away, backtrack (Armijo) so that a poor start cannot overshoot, unless a bound
        # shows that the full step passes the test (full_step_passes).
        near = largest_relative(step.tolist(), beta.tolist()) <= 1e-6
        scale, decrease = 1.0, float(gradient @ step)
        while True:
            candidate = beta - scale * step
            z_candidate = x @ candidate
            if near or (scale == 1.0 and full_step_passes(z, z_candidate, decrease, float(step @ hessian @ step))):
                new_value = None
                break
            value = objective(z, beta) if value is None else value
            new_value = objective(z_candidate, candidate)
            if new_value <= value - 1e-4 * scale * decrease or scale < 1e-12:
                break
            scale *= 0.5
        after = candidate.tolist()
        moved = largest_relative([a - b for a, b in zip(after, beta.tolist(), strict=True)], after)
        beta, z, value = candidate, z_candidate, new_value
        if moved <= STEP_TOLERANCE and scale == 1.0:
            break
    return beta, iterations


def full_step_passes(z: np.ndarray, z_step: np.ndarray, decrease: float, curvature: float) -> bool:
    """Whether the full step from margins ``z`` to ``z_step`` passes the line search's test, by a bound.

    Write ``g(t)`` for the objective at ``β − t s`` along the step ``s``: ``g'(0) = −decrease``
    (``decrease = ∇f · s``) and ``g''(0) = curvature`` (``sᵀ H s``). The log-loss of one margin
    has a third derivative no larger in size than its second (``σ(1 − σ)(1 − 2σ)`` against
    ``σ(1 − σ)``) and the penalty has none, so ``|g'''| ≤ M g''`` where ``M`` is the largest change
    of any row's margin, ``max_i |z_step_i − z_i|``. Then ``g''(t) ≤ g''(0) e^(M t)``, and
    integrating twice, ``g(1) ≤ g(0) − decrease + curvature · (e^M − 1 − M) / M²``. For
    ``M ≤ 1.5`` the last factor is at most 0.881 (it grows with ``M``), and with
    ``curvature ≤ 1.1 · decrease`` (a Newton step has them equal) the full step lowers the
    objective by at least 3% of ``decrease``, far more than the ``10⁻⁴ · decrease`` the test asks
    for: the test would pass, and the objective need not be computed.

    Args:
        z: ``(n,)`` margins before the step.
        z_step: ``(n,)`` margins after the full step.
        decrease: ``∇f · s``.
        curvature: ``sᵀ H s``.
    """
    if not (decrease > 0.0 and curvature <= 1.1 * decrease):
        return False
    return float(np.max(np.abs(z_step - z), initial=0.0)) <= 1.5


def _newton_step(hessian: np.ndarray, gradient: np.ndarray) -> np.ndarray:
    """The Newton step ``H⁻¹ g``; steepest descent if ``H`` is singular or the step not finite; capped at MAX_STEP.

    ``H`` is singular when every row's probability is exactly 0 or 1 in floating point (a start far
    from the optimum, say an intercept of 40): the curvature along the intercept is then zero
    although its gradient is not, and a least-squares step would not move the intercept at all.
    Steepest descent, sized by the line search, does.
    """
    try:
        step = np.linalg.solve(hessian, gradient)
    except np.linalg.LinAlgError:
        step = gradient
    values = step.tolist()
    if not all(math.isfinite(v) for v in values):
        step = gradient  # a (nearly) singular Hessian far from the optimum: fall back to steepest descent
        values = step.tolist()
    largest = max(abs(v) for v in values)
    if largest > MAX_STEP:  # far from the optimum the Hessian can be nearly flat: cap the step
        step = step * (MAX_STEP / largest)
    return step


def largest_relative(changes: list[float], values: list[float]) -> float:
    """``max_j |changes_j| / max(1, |values_j|)``, NaN if any term is NaN, as numpy computes it.

    It equals ``np.max(np.abs(changes) / np.maximum(1.0, np.abs(values)))`` bit for bit: each
    term is one IEEE division either way, and numpy's maximum and max return NaN when an operand
    is NaN (a NaN value divides as NaN, as ``np.maximum`` would pass it on).
    """
    terms = [abs(a) / (1.0 if abs(b) <= 1.0 else abs(b)) for a, b in zip(changes, values, strict=True)]
    return math.nan if any(t != t for t in terms) else max(terms)


def fitted_logistic(
    params: Mapping[str, Any], features: np.ndarray, labels: np.ndarray, start: np.ndarray | None
) -> LogisticRegression:
    """A ``LogisticRegression(**params)`` fitted by :func:`fit_newton` (from ``start``), as scikit-learn would leave it.

    ``params`` are the prototype's ``get_params()`` (for which :func:`solves_exactly` holds); they
    are plain numbers, strings and ``None``, so constructing from them equals cloning the prototype.
    The returned estimator has ``classes_``, ``coef_``, ``intercept_``, ``n_features_in_`` and
    ``n_iter_`` set, so ``predict_proba``/``decision_function`` work as after ``fit``.
    """
    classes = binary_classes(labels)
    beta, iterations = fit_newton(features, (labels == classes[-1]).astype(float), float(params["C"]), start)
    estimator = LogisticRegression(**params)
    estimator.classes_ = classes
    estimator.coef_ = beta[None, :-1].copy()
    estimator.intercept_ = beta[-1:].copy()
    estimator.n_features_in_ = features.shape[1]
    estimator.n_iter_ = np.array([iterations], dtype=np.int32)
    return estimator


def binary_classes(labels: np.ndarray) -> np.ndarray:
    """``np.unique(labels)`` (sorted, of the labels' dtype), quickly when the labels are two integers.

    Integer or boolean labels that take exactly two values give ``[min, max]`` without sorting;
    anything else (one class, three, floats) is passed to ``np.unique``.
    """
    labels = np.asarray(labels)
    if labels.dtype.kind in "iub" and labels.size:
        low, high = labels.min(), labels.max()
        if low < high and bool(np.all((labels == low) | (labels == high))):
            return np.array([low, high], dtype=labels.dtype)
    return np.unique(labels)
