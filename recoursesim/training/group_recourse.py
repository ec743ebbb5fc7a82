"""Equalizing recourse across groups (Gupta et al. 2019): linear models with a group recourse penalty.

Recourse of a predicted-negative point is its distance to the boundary ``d(x) = |w·x + b| / ‖w‖``;
group recourse ``r(G)`` is its mean over the group's predicted negatives, and the recourse
difference is ``RD = |r(G⁺) − r(G⁻)|``. The published method adds ``λ · |Σ_i s_i (w·x_i + b)|`` to
a linear SVM, with ``s_i = g_i / |N_{g_i}|`` on the predicted negatives ``N`` (``g = ±1``) and 0
elsewhere, so that ``Σ s_i f(x_i) = −(r(G⁺) − r(G⁻))·‖w‖``; the negative sets are re-estimated
from the previous iterate's predictions (docs/mitigations.md, "Equalizing recourse across groups").
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.optimize import LinearConstraint, minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from recoursesim._validate import check_choice, check_float, check_int
from recoursesim.errors import DataError
from recoursesim.registry import register
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.training.refit import RefitTrainer, fit_single_threaded


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


def _group_sign(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values = np.unique(groups)
    if values.size != 2:
        raise DataError(
            "groups", f"group recourse regularisation needs exactly 2 groups, got {values.size}", "pass a binary group"
        )
    return np.where(groups == values[0], 1.0, -1.0), values


class _IterativeGroupRecourse(BaseEstimator, ClassifierMixin):
    """The outer iteration shared by the SVM and logistic variants (docs/mitigations.md, "The iterative scheme")."""

    def fit(self, X: np.ndarray, y: np.ndarray, groups: np.ndarray) -> _IterativeGroupRecourse:
        """Fit with the iterative scheme; labels and groups may be any two values each.

        Args:
            X: ``(n, d)`` features.
            y: Binary labels (the larger value is the positive class).
            groups: Group of each row (exactly two distinct values).

        Returns:
            ``self``, with ``coef_`` (``(1, d)``), ``intercept_`` (``(1,)``), ``classes_``,
            ``n_iter_`` and ``history_`` (one dict per iteration: ``lam, coef, intercept, rd, accuracy``).
        """
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        groups = np.asarray(groups)
        if X.ndim != 2 or X.shape[0] != y.shape[0] or groups.shape[0] != y.shape[0]:
            raise DataError("X", "X, y and groups must have the same number of rows", "align the inputs")
        if not np.all(np.isfinite(X)):
            raise DataError("X", "contains NaN or infinite values", "clean the features")
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise DataError("y", f"needs two classes, got {self.classes_.size}", "fit on data with both labels")
        signed_y = np.where(y == self.classes_[1], 1.0, -1.0)
        sign, self.groups_ = _group_sign(groups)
        self._check_params()
        Z, mean, scale = self._standardise(X)
        theta = self._solve(Z, signed_y, np.zeros(Z.shape[0]), 0.0, None)
        previous = self._decisions(Z, theta)
        self.history_: list[dict[str, Any]] = []
        for iteration in range(1, self.max_iter + 1):
            lam = 0.0 if iteration <= self.warmup else self.lam
            s, both = self._negatives_weights(Z, theta, sign)
            if lam > 0 and not both:
                warnings.warn(
                    "a group has no predicted negatives: the recourse penalty is off for this iteration",
                    RuntimeWarning,
                    stacklevel=2,
                )
                lam = 0.0
            theta = self._solve(Z, signed_y, s, lam, theta)
            current = self._decisions(Z, theta)
            coef, intercept = self._unstandardise(theta, mean, scale)
            self.history_.append(
                {
                    "iteration": iteration,
                    "lam": lam,
                    "coef": coef.copy(),
                    "intercept": intercept,
                    "rd": recourse_difference(coef, intercept, X, sign),
                    "accuracy": float(np.mean(np.where(current, 1.0, -1.0) == signed_y)),
                }
            )
            if iteration >= self.min_iter and np.array_equal(current, previous):
                break
            previous = current
        self.n_iter_ = len(self.history_)
        coef, intercept = self._unstandardise(theta, mean, scale)
        self.coef_ = coef[None, :]
        self.intercept_ = np.array([intercept])
        self.recourse_difference_ = recourse_difference(coef, intercept, X, sign)
        return self

    def _standardise(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.standardize:
            return X, np.zeros(X.shape[1]), np.ones(X.shape[1])
        mean = X.mean(axis=0)
        scale = X.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        return (X - mean) / scale, mean, scale

    @staticmethod
    def _unstandardise(theta: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, float]:
        w = theta[:-1] / scale
        return w, float(theta[-1] - w @ mean)

    def _negatives_weights(self, Z: np.ndarray, theta: np.ndarray, sign: np.ndarray) -> tuple[np.ndarray, bool]:
        return recourse_weights(Z @ theta[:-1] + theta[-1], sign)

    def _decisions(self, Z: np.ndarray, theta: np.ndarray) -> np.ndarray:
        return (Z @ theta[:-1] + theta[-1]) >= 0

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Signed margin ``w·x + b`` (positive class when ``>= 0``)."""
        check_is_fitted(self)
        return np.asarray(X, dtype=float) @ self.coef_[0] + self.intercept_[0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted labels."""
        return np.where(self.decision_function(X) >= 0, self.classes_[1], self.classes_[0])


class GroupRecourseSVM(_IterativeGroupRecourse):
    """Linear SVM with Gupta et al.'s group recourse regularisation.

    Minimises ``½‖w‖² + (Υ/n) Σ ξ_i + λ |Σ_i s_i (w·x_i + b)|`` subject to the soft-margin
    constraints, re-estimating ``s`` from the previous iterate (``max_iter`` 10, ``min_iter`` 5,
    the first ``warmup`` iterations with ``λ = 0``). ``solver="dual"`` solves the exact dual QP
    with SLSQP and takes ``b`` at the best breakpoint of the (convex, piecewise-linear) primal in
    ``b``; ``solver="smoothed"`` minimises a smoothed primal (Huber hinge with ``δ = 1e-4``,
    ``sqrt(a² + ε²)`` for the absolute value) with L-BFGS-B, warm-started, for simulation sizes;
    ``"auto"`` uses the dual up to ``dual_max_n`` rows.

    Args:
        lam: Penalty weight ``λ`` (0 gives a plain linear SVM).
        upsilon: ``Υ``; each sample's slack costs ``Υ/n``.
        solver: ``"auto"``, ``"dual"`` or ``"smoothed"``.
        max_iter: Maximum outer iterations.
        min_iter: Minimum outer iterations before stopping on unchanged predictions.
        warmup: Initial iterations run with ``λ = 0``.
        standardize: Fit on standardised features (the authors' setting; the penalty is not
            scale-free); ``coef_`` and ``intercept_`` are always in the original units.
        dual_max_n: Largest ``n`` the ``"auto"`` solver hands to the dual.
    """

    def __init__(
        self,
        lam: float = 1.0,
        upsilon: float = 10.0,
        solver: str = "auto",
        max_iter: int = 10,
        min_iter: int = 5,
        warmup: int = 2,
        standardize: bool = False,
        dual_max_n: int = 500,
    ) -> None:
        self.lam = lam
        self.upsilon = upsilon
        self.solver = solver
        self.max_iter = max_iter
        self.min_iter = min_iter
        self.warmup = warmup
        self.standardize = standardize
        self.dual_max_n = dual_max_n

    def _check_params(self) -> None:
        check_float("lam", self.lam, minimum=0.0)
        check_float("upsilon", self.upsilon, minimum=0.0, strict_minimum=True)
        check_choice("solver", self.solver, ["auto", "dual", "smoothed"])
        check_int("max_iter", self.max_iter, minimum=1)
        check_int("min_iter", self.min_iter, minimum=1)
        check_int("warmup", self.warmup, minimum=0)

    def _solve(self, Z: np.ndarray, y: np.ndarray, s: np.ndarray, lam: float, start: np.ndarray | None) -> np.ndarray:
        solver = self.solver
        if solver == "auto":
            solver = "dual" if Z.shape[0] <= self.dual_max_n else "smoothed"
        if solver == "dual":
            return solve_dual(Z, y, s, lam, self.upsilon)
        return solve_smoothed(Z, y, s, lam, self.upsilon, start)


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
    v = np.asarray(result.x)
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
    return result.x


class GroupRecourseLogisticRegression(_IterativeGroupRecourse):
    """Logistic regression with a group recourse penalty (docs/mitigations.md, "The logistic variant").

    Minimises ``mean log-loss + (α/2)‖w‖² + λ·sqrt((Σ_i s_i (w·x_i + b))² + ε²)`` with L-BFGS,
    ``s`` taken from the previous iterate's decisions, in the same outer iteration as
    :class:`GroupRecourseSVM`. A decision is negative when the predicted probability is below
    ``threshold``, or — with ``n_positive`` set, as in a top-k simulation — when the point is not
    among the ``n_positive`` highest scores. With ``scale_free`` the penalty's argument is divided
    by ``‖w‖`` (the geometric recourse difference; non-convex, started from the plain fit).

    Args:
        lam: Penalty weight ``λ``.
        alpha: L2 penalty on ``w``.
        threshold: Probability cut-off for negative decisions.
        n_positive: If set, the top ``n_positive`` scores are the positive decisions.
        scale_free: Divide the penalty's argument by ``‖w‖``.
        max_iter: Maximum outer iterations.
        min_iter: Minimum outer iterations.
        warmup: Initial iterations with ``λ = 0``.
        standardize: Fit on standardised features; coefficients are reported in original units.
    """

    probability_link_ = "logistic"

    def __init__(
        self,
        lam: float = 1.0,
        alpha: float = 1e-3,
        threshold: float = 0.5,
        n_positive: int | None = None,
        scale_free: bool = False,
        max_iter: int = 10,
        min_iter: int = 5,
        warmup: int = 2,
        standardize: bool = False,
    ) -> None:
        self.lam = lam
        self.alpha = alpha
        self.threshold = threshold
        self.n_positive = n_positive
        self.scale_free = scale_free
        self.max_iter = max_iter
        self.min_iter = min_iter
        self.warmup = warmup
        self.standardize = standardize

    def _check_params(self) -> None:
        check_float("lam", self.lam, minimum=0.0)
        check_float("alpha", self.alpha, minimum=0.0)
        check_float("threshold", self.threshold, minimum=0.0, maximum=1.0)
        if self.n_positive is not None:
            check_int("n_positive", self.n_positive, minimum=0)
        check_int("max_iter", self.max_iter, minimum=1)
        check_int("min_iter", self.min_iter, minimum=1)
        check_int("warmup", self.warmup, minimum=0)

    def _decisions(self, Z: np.ndarray, theta: np.ndarray) -> np.ndarray:
        margin = Z @ theta[:-1] + theta[-1]
        if self.n_positive is None:
            return expit(margin) >= self.threshold
        positive = np.zeros(margin.shape[0], dtype=bool)
        if self.n_positive > 0:
            positive[np.argsort(-margin, kind="stable")[: self.n_positive]] = True
        return positive

    def _negatives_weights(self, Z: np.ndarray, theta: np.ndarray, sign: np.ndarray) -> tuple[np.ndarray, bool]:
        decisions = self._decisions(Z, theta)
        return recourse_weights(np.where(decisions, 1.0, -1.0), sign)

    def _solve(self, Z: np.ndarray, y: np.ndarray, s: np.ndarray, lam: float, start: np.ndarray | None) -> np.ndarray:
        n, d = Z.shape
        labels = (y > 0).astype(float)
        eps = 1e-8

        def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
            w, b = theta[:-1], theta[-1]
            f = Z @ w + b
            p = expit(f)
            loss = np.mean(np.logaddexp(0.0, f) - labels * f)
            df = (p - labels) / n
            value = loss + 0.5 * self.alpha * w @ w
            grad_w = Z.T @ df + self.alpha * w
            grad_b = df.sum()
            if lam > 0:
                a = s @ f
                if self.scale_free:
                    norm = max(float(np.linalg.norm(w)), 1e-12)
                    u = a / norm
                    root = np.sqrt(u * u + eps * eps)
                    value += lam * root
                    du = lam * u / root
                    grad_w = grad_w + du * (Z.T @ s / norm - a * w / norm**3)
                    grad_b += du * s.sum() / norm
                else:
                    root = np.sqrt(a * a + eps * eps)
                    value += lam * root
                    grad_w = grad_w + lam * a / root * (Z.T @ s)
                    grad_b += lam * a / root * s.sum()
            return float(value), np.concatenate([grad_w, [grad_b]])

        theta0 = np.zeros(d + 1) if start is None else start
        result = minimize(objective, theta0, jac=True, method="L-BFGS-B", options={"maxiter": 5000, "gtol": 1e-10})
        return result.x

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities ``[1 − σ(f), σ(f)]``."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])


@register("trainer", "gupta", "group_recourse")
class GroupRecourseTrainer(RefitTrainer):
    """Refit a group-recourse-regularised model (Gupta et al. 2019) on each step's population and outcomes.

    Like :class:`~recoursesim.training.RefitTrainer`, but the model is
    :class:`GroupRecourseLogisticRegression` (``model="logistic"``, scored by probability; its
    negatives are the agents outside this step's top-k) or :class:`GroupRecourseSVM`
    (``model="svm"``, scored by the signed margin). Groups come from the simulation and must be
    two. This is Gupta et al.'s method as published, not the reversed-score classifier of the
    dynamics paper's code (docs/mitigations.md). ``history_`` records each refit's recourse
    difference and outer iterations.

    Args:
        model: ``"logistic"`` or ``"svm"``.
        lam: Penalty weight ``λ``.
        upsilon: SVM slack weight ``Υ``.
        alpha: Logistic L2 weight.
        standardize: Fit on standardised features (the authors' setting).
        initial_threshold: Label threshold for the first fit on the initial population.
        retrain_every: Refit every this many steps.
        order: ``"spec"``, ``"reference"`` or ``"refit_before_acting"`` (see
            :class:`~recoursesim.training.RefitTrainer`).
    """

    def __init__(
        self,
        model: str = "logistic",
        lam: float = 1.0,
        upsilon: float = 10.0,
        alpha: float = 1e-3,
        standardize: bool = True,
        initial_threshold: float | None = None,
        retrain_every: int = 1,
        order: str = "spec",
    ) -> None:
        self.model = check_choice("model", model, ["logistic", "svm"])
        self.lam = check_float("lam", lam, minimum=0.0)
        self.upsilon = check_float("upsilon", upsilon, minimum=0.0, strict_minimum=True)
        self.alpha = check_float("alpha", alpha, minimum=0.0)
        self.standardize = bool(standardize)
        super().__init__(
            "logistic_regression",
            None,
            initial_threshold,
            retrain_every,
            "proba" if model == "logistic" else "decision",
            order,
        )

    def _fit(
        self, features: np.ndarray, labels: np.ndarray, groups: np.ndarray, rng: np.random.Generator
    ) -> ClassifierScorer:
        if self.model == "svm":
            estimator = GroupRecourseSVM(lam=self.lam, upsilon=self.upsilon, standardize=self.standardize)
        else:
            estimator = GroupRecourseLogisticRegression(
                lam=self.lam, alpha=self.alpha, n_positive=int(labels.sum()), standardize=self.standardize
            )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            fit_single_threaded(estimator, features, labels, groups)
        if caught and self.history_:
            self.history_[-1]["penalty_off"] = True
        if self.history_:
            self.history_[-1].update(
                {"recourse_difference": estimator.recourse_difference_, "n_iter": estimator.n_iter_}
            )
        return ClassifierScorer(estimator, output=self.output)
