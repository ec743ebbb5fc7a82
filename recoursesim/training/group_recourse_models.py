"""Gupta et al. (2019)'s group-recourse-regularised linear models: the SVM and the logistic variant.

Both fit with the published outer iteration: the predicted negatives of each group are
re-estimated from the previous iterate, and the penalty (see
:mod:`recoursesim.training.group_recourse_solvers`) is switched on after a warm-up
(docs/mitigations.md, "The iterative scheme").
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from recoursesim._validate import check_choice, check_float, check_int
from recoursesim.errors import DataError
from recoursesim.training.group_recourse_solvers import (
    recourse_difference,
    recourse_weights,
    solve_dual,
    solve_logistic,
    solve_smoothed,
)


class PenaltyOffWarning(RuntimeWarning):
    """A group had no predicted negatives, so the recourse penalty was off for an iteration."""


def _group_sign(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values = np.unique(groups)
    if values.size == 1:  # one group: nothing to compare, the penalty's weights are all zero
        return np.zeros(groups.shape[0]), values
    if values.size != 2:
        raise DataError(
            "groups", f"group recourse regularisation needs exactly 2 groups, got {values.size}", "pass a binary group"
        )
    return np.where(groups == values[0], 1.0, -1.0), values


class _IterativeGroupRecourse(ClassifierMixin, BaseEstimator):
    """The outer iteration shared by the SVM and logistic variants (docs/mitigations.md, "The iterative scheme")."""

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # the recourse penalty is defined for a binary decision
        return tags

    def fit(self, X: np.ndarray, y: np.ndarray, groups: np.ndarray | None = None) -> _IterativeGroupRecourse:
        """Fit with the iterative scheme; labels and groups may be any two values each.

        Args:
            X: ``(n, d)`` features.
            y: Binary labels (the larger value is the positive class).
            groups: Group of each row (exactly two distinct values). ``None`` puts every row in
                one group: there is then no difference between groups to penalise, and the fit
                is the unpenalised model (``recourse_difference_`` is 0).

        Returns:
            ``self``, with ``coef_`` (``(1, d)``), ``intercept_`` (``(1,)``), ``classes_``,
            ``n_iter_``, ``history_`` (one dict per iteration: ``lam, coef, intercept, rd, accuracy``)
            and ``n_penalty_off_`` (iterations whose penalty was switched off because a group
            had no predicted negatives; each also raises a :class:`PenaltyOffWarning`).
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False)
        if not np.all(np.isfinite(X)):
            raise DataError("X", "contains NaN or infinite values", "drop or impute those rows of X first")
        groups = np.zeros(y.shape[0]) if groups is None else np.asarray(groups)
        if groups.shape[0] != y.shape[0]:
            raise DataError("groups", "must have one entry per row of X", "pass one label and one group per row of X")
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size > 2:
            raise DataError(
                "y", f"has {self.classes_.size} classes. Only binary classification is supported.", "use two labels"
            )
        if self.classes_.size != 2:
            raise DataError("y", "has 1 class, needs two", "fit on data with both labels")
        signed_y = np.where(y == self.classes_[1], 1.0, -1.0)
        sign, self.groups_ = _group_sign(groups)
        single = self.groups_.size == 1
        Z, mean, scale = self._standardise(X)
        theta = self._solve(Z, signed_y, np.zeros(Z.shape[0]), 0.0, None)
        previous = self._decisions(Z, theta)
        self.history_: list[dict[str, Any]] = []
        self.n_penalty_off_ = 0
        for iteration in range(1, self.max_iter + 1):
            lam = 0.0 if iteration <= self.warmup or single else self.lam
            s, both = self._negatives_weights(Z, theta, sign)
            if lam > 0 and not both:
                warnings.warn(
                    "a group has no predicted negatives: the recourse penalty is off for this iteration",
                    PenaltyOffWarning,
                    stacklevel=2,
                )
                lam = 0.0
                self.n_penalty_off_ += 1
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
        self.recourse_difference_ = 0.0 if single else recourse_difference(coef, intercept, X, sign)
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
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

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
        return solve_logistic(Z, y, s, lam, self.alpha, start, scale_free=self.scale_free)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities ``[1 − σ(f), σ(f)]``."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])
