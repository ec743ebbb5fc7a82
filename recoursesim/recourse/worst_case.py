"""The cheapest recommendation valid for every model near the current one (in the spirit of ROAR)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

import numpy as np
from sklearn.base import clone

from recoursesim._validate import check_choice, check_float, check_int, check_list
from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.recourse.horizon import HorizonRecourse
from recoursesim.recourse.linear import LinearRecourse
from recoursesim.recourse.mixed import observed_rows
from recoursesim.recourse.projection import project_l2
from recoursesim.registry import register
from recoursesim.scoring.base import LinearForm, Scorer, StatesOutput, WrapsEstimator, linear_form_of
from recoursesim.threads import fit_single_threaded

#: The dual of each weight-ball norm: the worst case over ``‖Δw‖ <= r`` takes ``r ‖x‖_dual`` off the margin.
_DUAL = {"l2": 2, "linf": 1}


def worst_case_margin(form: LinearForm, features: np.ndarray, radius: float, norm: str = "l2") -> np.ndarray:
    """``min over ‖w' - w‖ <= radius`` of ``w'·x + b``, which is ``w·x + b - radius ‖x‖_*`` (``*`` the dual norm).

    For the L2 ball the minimiser is ``w' = w - radius x / ‖x‖`` (Cauchy–Schwarz), so the worst
    case takes ``radius ‖x‖₂`` off the margin; for the L∞ ball (a box around every weight, as in
    ROAR) it is ``w' = w - radius sign(x)`` and takes ``radius ‖x‖₁`` off.
    """
    norm_of = np.linalg.norm(np.asarray(features, dtype=float), ord=_DUAL[norm], axis=1)
    return form.margin(features) - radius * norm_of


@register("recourse", "worst_case", "roar")
@dataclass(eq=False, repr=False, kw_only=True)
class WorstCaseRecourse(HorizonRecourse):
    """The cheapest legal move that every model in a set around the current one accepts.

    **Linear and logistic models** (a scorer with a linear form, with the ``linear`` base): the
    set is every weight vector within ``radius`` of the current one (``norm`` ``"l2"``: a ball;
    ``"linf"``: a box, as in ROAR), the intercept fixed. The worst case of a point is then
    :func:`worst_case_margin` in closed form, and the cheapest point whose worst case reaches the
    cut-off solves ``min c(x' - x)`` subject to ``w·x' - radius ‖x'‖_* >= s`` inside the action
    set: a convex problem. Its optimum is a fixed point of "project onto the hyperplane of the
    worst-case weights at the solution" (the KKT conditions of the two problems coincide), which
    is iterated to convergence (``max_iter``, ``tol``) with the base's exact weighted-L2
    projection. It is exact up to ``tol``.

    **Any other model**: the set is the current model plus ``n_models`` refits of the same
    estimator on bootstrap resamples of observed rows (``reference``, default the population's
    training rows) labelled by the current model's decisions at the median cut-off; the
    worst-case score of a point is the lowest of their scores, and the base generator (``auto``:
    ``search`` for such a model) looks for the cheapest point whose worst-case score reaches the
    cut-off. Refits are made once per model (again after every refit of a trainer). A resample in
    which a class has fewer than two rows is skipped (no classifier, nor the validation split of an
    early-stopping one, can be fitted on it), so where the current model accepts almost none of the
    reference rows the set can hold fewer refits, or only the current model.

    ``base`` (the generator to strengthen) is the field every horizon-aware generator inherits
    (:class:`~recoursesim.recourse.horizon.HorizonRecourse`).

    Args:
        radius: How far the weights may move (the ball's radius; 0 gives the base's recommendation).
        norm: ``"l2"`` or ``"linf"``: the norm of the weight ball.
        n_models: Bootstrap refits (models without a linear form).
        reference: ``(m, d)`` observed rows in code space for the refits (default: the population's).
        seed: Seed of the bootstrap resamples.
        max_iter: Fixed-point iterations (linear models).
        tol: Largest change of a coordinate at convergence (linear models).
    """

    radius: float = 0.1
    norm: str = "l2"
    n_models: int = 8
    reference: Sequence[Sequence[float]] | None = None
    seed: int = 0
    max_iter: int = 200
    tol: float = 1e-10

    def __post_init__(self) -> None:
        """Check the parameters (the base generator's first) and build the base asked about the model set."""
        super().__post_init__()
        self._radius = check_float("radius", self.radius, minimum=0.0)
        check_choice("norm", self.norm, list(_DUAL))
        check_int("n_models", self.n_models, minimum=1)
        if self.reference is not None:
            check_list("reference", self.reference)
        check_int("seed", self.seed, minimum=0)
        check_int("max_iter", self.max_iter, minimum=1)
        self._tol = check_float("tol", self.tol, minimum=0.0)
        self._model: Scorer | None = None
        self._ensemble: _WorstOf | None = None

    def bind(self, context: RunContext) -> Self:
        """Build the base generator twice: ``base_`` and ``against_set_``; the population gives default rows."""
        super().bind(context)
        self._model, self._ensemble = None, None  # a model set refitted on another run's rows is not this run's
        #: The base generator asked about the model set (``base_`` is asked about the current model
        #: for the fallback): each keeps the probes of its own model across steps.
        self.against_set_ = self.build_base()
        self.population_ = context.population
        return self

    def strengthen(
        self, features: np.ndarray, scores: np.ndarray, threshold: np.ndarray, scorer: Scorer
    ) -> tuple[np.ndarray, np.ndarray]:
        """The cheapest point whose worst case over the model set reaches ``threshold``."""
        if self._radius == 0:
            return features.copy(), np.zeros(features.shape[0], dtype=bool)
        form = linear_form_of(scorer)
        if form is not None and isinstance(self.base_, LinearRecourse) and self.base_.norm == "l2":
            return self.solve_linear(features, threshold, form)
        worst = self._worst_of(scorer, threshold)
        worst_scores = worst.score(features)
        moved = np.asarray(self.against_set_.recommend(features, worst_scores, threshold, worst), dtype=float)
        ok = worst.score(moved) >= threshold
        return moved, ok

    def solve_linear(
        self, features: np.ndarray, threshold: np.ndarray, form: LinearForm
    ) -> tuple[np.ndarray, np.ndarray]:
        """The exact cheapest point (weighted L2, within the base's box) whose worst-case margin reaches the cut-off.

        The fixed point (:meth:`_fixed_point`) settles for almost every row; a row it does not
        settle within ``max_iter`` (a radius large against the weights) is solved on its own with
        SciPy's SLSQP, starting where the iteration stopped.
        """
        base = self.base_
        assert isinstance(base, LinearRecourse)
        target = np.asarray(form.to_margin(threshold), dtype=float) - form.intercept
        lo, hi = base.actions_.box(features)
        point, settled = self._fixed_point(features, lo, hi, form, target)
        for row in np.flatnonzero(~settled):
            point[row] = self._solve_row(features[row], lo[row], hi[row], form, target[row], point[row])
        slack = 1e-9 * (1 + np.abs(target))
        ok = worst_case_margin(form, point, self._radius, self.norm) - form.intercept >= target - slack
        return point, ok

    def _fixed_point(
        self, features: np.ndarray, lo: np.ndarray, hi: np.ndarray, form: LinearForm, target: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Iterate "project onto the worst-case hyperplane at the point"; return the point and which rows settled.

        A row whose change grew since the last iteration oscillates about the fixed point: from then
        on it moves only part of the way to its projection (half as far each time, down to an
        eighth), which damps the oscillation without slowing the rows that converge directly.
        """
        assert isinstance(self.base_, LinearRecourse)
        coef = np.asarray(form.coef, dtype=float)[None, :]
        point = features.copy()
        n = features.shape[0]
        step, last, settled = np.ones(n), np.full(n, np.inf), np.zeros(n, dtype=bool)
        for _ in range(self.max_iter):
            weights = coef - self._radius * _dual_direction(point, self.norm)
            moved, _ = project_l2(features, lo, hi, weights, self.base_.weights_, target)
            change = np.max(np.abs(moved - point), axis=1) if moved.size else np.zeros(n)
            settled = change <= self._tol
            step = np.where(change > last, np.maximum(step / 2, 0.125), step)
            last = change
            point = np.where(settled[:, None], moved, point + step[:, None] * (moved - point))
            if settled.all():
                break
        return point, settled

    def _solve_row(
        self, x: np.ndarray, lo: np.ndarray, hi: np.ndarray, form: LinearForm, target: float, start: np.ndarray
    ) -> np.ndarray:
        """One row's convex problem solved with SLSQP (weighted squared distance, worst-case margin, box).

        SLSQP may stop a hair short of the constraint; the worst-case margin ``w·x − r‖x‖_*`` is
        positively homogeneous, so scaling the point by ``target / margin`` then meets it exactly.
        """
        from scipy.optimize import Bounds, NonlinearConstraint, minimize

        assert isinstance(self.base_, LinearRecourse)
        cost = self.base_.weights_

        def objective(z: np.ndarray) -> tuple[float, np.ndarray]:
            return float(cost @ (z - x) ** 2), 2 * cost * (z - x)

        def worst_margin(z: np.ndarray) -> np.ndarray:
            return worst_case_margin(form, z[None, :], self._radius, self.norm) - form.intercept

        result = minimize(
            objective,
            np.clip(start, lo, hi),
            jac=True,
            bounds=Bounds(lo, hi),
            constraints=[NonlinearConstraint(worst_margin, target, np.inf)],
            method="SLSQP",
            options={"maxiter": 500, "ftol": 1e-15},
        )
        point = np.asarray(result.x, dtype=float)
        reached = float(worst_margin(point)[0])
        if reached < target and reached * target > 0:  # SLSQP stops up to ~1e-8 short of the constraint:
            point = np.clip(point * (target / reached), lo, hi)  # the margin is positively homogeneous
        return point

    def _worst_of(self, scorer: Scorer, threshold: np.ndarray) -> _WorstOf:
        """The current model with its bootstrap refits (made once per model), or its closed-form worst case."""
        if scorer is self._model and self._ensemble is not None:
            return self._ensemble
        form = linear_form_of(scorer)
        if form is not None:
            ensemble = _WorstOf([scorer], form, self._radius, self.norm)
        else:
            ensemble = _WorstOf([scorer, *self._refits(scorer, threshold)], None, 0.0, self.norm)
        self._model, self._ensemble = scorer, ensemble
        return ensemble

    def _refits(self, scorer: Scorer, threshold: np.ndarray) -> list[Scorer]:
        estimator = scorer.estimator if isinstance(scorer, WrapsEstimator) else None
        if estimator is None:
            raise ConfigError(
                "recourse.name",
                f"'worst_case' refits the model on bootstrap samples and {type(scorer).__name__} has no estimator",
                "use a scikit-learn model (scorer 'model') or a linear scorer",
            )
        from recoursesim.scoring.classifier import ClassifierScorer

        output = scorer.output_ if isinstance(scorer, StatesOutput) else "auto"

        rows = np.asarray(observed_rows(self.reference, self.population_, "worst_case", "refit the model on"), float)
        labels = np.asarray(scorer.score(rows), dtype=float) >= float(np.median(threshold))
        rng = np.random.default_rng(self.seed)
        models: list[Scorer] = []
        for _ in range(self.n_models):
            pick = rng.integers(0, rows.shape[0], size=rows.shape[0])
            counts = np.bincount(labels[pick].astype(np.int64), minlength=2)
            if counts.min() < 2:  # one class, or one member of a class: no classifier (nor its stratified split) fits
                continue
            fitted = fit_single_threaded(clone(estimator), rows[pick], labels[pick].astype(int))
            models.append(ClassifierScorer(fitted, output=output))
        return models


def _dual_direction(points: np.ndarray, norm: str) -> np.ndarray:
    """The unit direction in which the worst-case weights move away from each point (``x/‖x‖₂`` or ``sign(x)``)."""
    if norm == "linf":
        return np.sign(points)
    length = np.linalg.norm(points, axis=1, keepdims=True)
    return np.divide(points, length, out=np.zeros_like(points), where=length > 0)


class _WorstOf:
    """A scorer giving the lowest score of several models, or the closed-form worst case of a linear one."""

    def __init__(self, models: list[Scorer], form: LinearForm | None, radius: float, norm: str) -> None:
        self.models, self.form, self.radius, self.norm = models, form, radius, norm

    def score(self, features: np.ndarray) -> np.ndarray:
        features = np.asarray(features, dtype=float)
        if self.form is not None:
            margin = worst_case_margin(self.form, features, self.radius, self.norm)
            return np.asarray(self.form.to_score(margin), dtype=float)
        return np.min([np.asarray(m.score(features), dtype=float) for m in self.models], axis=0)
