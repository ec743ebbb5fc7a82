"""Minimal-intervention recourse on a linear additive SCM (Raimondi et al., Eqs. 3–5).

For an unfavourable point the cheapest hard intervention ``do(X_J = x_J + delta)`` that lifts the
linear score to the threshold is, in this model class, a linear programme: minimise
``sum_j w_j |delta_j| / R_j`` subject to ``sum_j c_j delta_j >= gap`` where ``c_j`` is the total
effect of ``X_j`` on the score. Without bounds on descendants it is a fractional knapsack with a
closed form; with plausibility bounds on any variable it is solved exactly with HiGHS.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
from scipy.optimize import linprog

from recoursesim._validate import check_choice
from recoursesim.auditors.effort.scm import LinearAdditiveSCM
from recoursesim.errors import ConfigError, DataError

#: Logit tolerance: a point within this of the threshold counts as favourable.
BOUNDARY_TOLERANCE = 1e-9
#: Largest number of actionable variables for ``intervention="subsets"``.
MAX_SUBSET_VARIABLES = 12


@dataclass(frozen=True)
class RecourseResult:
    """Minimal recourse of a batch of points.

    Attributes:
        cost: ``(n,)`` minimal cost; 0 for favourable points, ``inf`` when no recourse exists.
        delta: ``(n, |J|)`` changes of the actionable variables (NaN rows without recourse).
        counterfactual: ``(n, d)`` the structural counterfactual ``x_scf`` (NaN rows without recourse).
        unfavourable: ``(n,)`` True where the point is below the threshold.
    """

    cost: np.ndarray
    delta: np.ndarray
    counterfactual: np.ndarray
    unfavourable: np.ndarray


class MinimalInterventionRecourse:
    """Cheapest hard intervention on actionable variables that reaches a linear model's threshold.

    Args:
        scm: The structural causal model.
        coef: Model coefficients, a mapping ``{variable: w}`` (others 0) or an array over
            ``scm.variables``.
        intercept: Model intercept ``b``.
        threshold: Decision threshold ``t`` on the margin ``w·x + b`` (0 for a logistic
            regression at probability 0.5). Favourable is ``w·x + b >= t``.
        actionable: Variables that may be intervened on (continuous or ordinal).
        ranges: ``R_j``, a mapping or an array over ``scm.variables`` (the data range).
        direction: ``{variable: "increase" | "decrease"}`` monotonicity constraints.
        lower: ``{variable: bound}`` lower feasibility/plausibility bounds (any variable).
        upper: ``{variable: bound}`` upper bounds (any variable).
        weights: ``{variable: weight}`` relative costs (default 1).
        sensitive: Variables that must never be actionable (checked).
        intervention: ``"antichain"`` requires no actionable variable to be an ancestor of
            another and fails otherwise; ``"subsets"`` enumerates every subset of actionable
            variables (cutting their incoming edges) and keeps the cheapest.
        method: ``"auto"`` (closed form unless a bound involves a non-actionable variable or the
            point already violates a bound), ``"closed_form"`` (a violated bound only caps the
            change at 0) or ``"lp"``.
    """

    def __init__(
        self,
        scm: LinearAdditiveSCM,
        coef: Mapping[str, float] | Sequence[float] | np.ndarray,
        intercept: float,
        *,
        threshold: float = 0.0,
        actionable: Sequence[str],
        ranges: Mapping[str, float] | Sequence[float] | np.ndarray,
        direction: Mapping[str, str] | None = None,
        lower: Mapping[str, float] | None = None,
        upper: Mapping[str, float] | None = None,
        weights: Mapping[str, float] | None = None,
        sensitive: Sequence[str] = (),
        intervention: Literal["antichain", "subsets"] = "antichain",
        method: Literal["auto", "closed_form", "lp"] = "auto",
    ) -> None:
        self.scm = scm
        self.coef = coef
        self.intercept = intercept
        self.threshold = threshold
        self.actionable = tuple(actionable)
        self.ranges = ranges
        self.direction = dict(direction or {})
        self.lower = dict(lower or {})
        self.upper = dict(upper or {})
        self.weights = dict(weights or {})
        self.sensitive = tuple(sensitive)
        self.intervention = intervention
        self.method = method
        self._validate()

    def _validate(self) -> None:
        names = self.scm.variables
        self.coef_ = _vector("coef", self.coef, names)
        self.intercept_ = float(self.intercept)
        self.threshold_ = float(self.threshold)
        ranges = _vector("ranges", self.ranges, names)
        if (ranges < 0).any():
            raise ConfigError("ranges", "must be non-negative", "pass max - min of each variable")
        self.actionable_index_ = self._actionable_index(ranges)
        self.ranges_ = ranges
        for name, value in self.direction.items():
            check_choice(f"direction.{name}", value, ["increase", "decrease", "both"])
        self.scm.index(self.direction)
        self._set_bounds_and_weights(len(names))
        self._check_intervention()

    def _actionable_index(self, ranges: np.ndarray) -> list[int]:
        """The indices of the actionable variables that vary (a warning names those with range 0)."""
        if not self.actionable:
            raise ConfigError("actionable", "is empty", "name at least one actionable variable")
        forbidden = sorted(set(self.actionable) & set(self.sensitive))
        if forbidden:
            raise ConfigError("actionable", f"includes the sensitive attribute {forbidden}", "make it immutable")
        idx = self.scm.index(self.actionable)
        zero = [self.actionable[k] for k, j in enumerate(idx) if ranges[j] == 0]
        if zero:
            warnings.warn(f"actionable variable(s) {zero} have range 0 and are excluded", UserWarning, stacklevel=4)
        index = [j for j in idx if ranges[j] > 0]
        if not index:
            raise DataError(
                "ranges",
                "every actionable variable has range 0 (the same value in every row)",
                "make a variable that varies in the data actionable",
            )
        return index

    def _set_bounds_and_weights(self, d: int) -> None:
        """``lower_``, ``upper_`` (infinite where not given) and ``weights_`` (1 where not given) over the variables."""
        self.lower_ = np.full(d, -np.inf)
        self.upper_ = np.full(d, np.inf)
        for bound, values in ((self.lower_, self.lower), (self.upper_, self.upper)):
            for k, v in zip(self.scm.index(values), values.values(), strict=True):
                bound[k] = float(v)
        self.weights_ = np.ones(d)
        for k, v in zip(self.scm.index(self.weights), self.weights.values(), strict=True):
            if not float(v) > 0:
                field = f"weights.{self.scm.variables[k]}"
                raise ConfigError(field, "must be positive", "use a positive relative cost")
            self.weights_[k] = float(v)

    def _check_intervention(self) -> None:
        """Check ``intervention`` and ``method`` against the actionable set and bounds; set ``needs_lp_``."""
        check_choice("intervention", self.intervention, ["antichain", "subsets"])
        check_choice("method", self.method, ["auto", "closed_form", "lp"])
        if self.intervention == "antichain" and not self.scm.is_antichain(self.actionable_index_):
            raise ConfigError(
                "actionable",
                "some actionable variable is an ancestor of another (not an antichain)",
                "choose an antichain, or use intervention='subsets' (CLI: --intervention subsets)",
            )
        if self.intervention == "subsets" and len(self.actionable_index_) > MAX_SUBSET_VARIABLES:
            raise ConfigError("actionable", "too many variables to enumerate subsets", "use an antichain")
        bounded = np.isfinite(self.lower_) | np.isfinite(self.upper_)
        outside = bounded.copy()
        outside[self.actionable_index_] = False
        self.needs_lp_ = bool(outside.any()) or (self.intervention == "subsets" and bool(bounded.any()))
        if self.method == "closed_form" and self.needs_lp_:
            raise ConfigError(
                "method", "closed_form cannot honour bounds on non-actionable variables", 'use method = "lp"'
            )

    def margin(self, features: np.ndarray) -> np.ndarray:
        """Return ``w·x + b`` for each row (rows over ``scm.variables``)."""
        return np.asarray(features, dtype=float) @ self.coef_ + self.intercept_

    def unfavourable(self, features: np.ndarray) -> np.ndarray:
        """Return True where the model's decision is unfavourable (below the threshold)."""
        return self.margin(features) < self.threshold_ - BOUNDARY_TOLERANCE

    def solve(self, features: np.ndarray) -> RecourseResult:
        """Compute the minimal recourse of every row of ``features`` (columns = ``scm.variables``)."""
        x = np.atleast_2d(np.asarray(features, dtype=float))
        if x.shape[1] != len(self.scm.variables) or not np.isfinite(x).all():
            raise DataError("features", "must be finite rows over the SCM variables", "pass scm.variables columns")
        n, k = x.shape[0], len(self.actionable_index_)
        gap = self.threshold_ - self.margin(x)
        unfav = gap > BOUNDARY_TOLERANCE
        cost = np.zeros(n)
        delta = np.zeros((n, k))
        cost[unfav] = np.inf
        subsets = (
            [tuple(range(k))]
            if self.intervention == "antichain"
            else [s for r in range(1, k + 1) for s in combinations(range(k), r)]
        )
        use_lp = self.method == "lp" or (self.method == "auto" and self.needs_lp_)
        rows = np.flatnonzero(unfav)
        counterfactual = x.copy()
        for subset in subsets:
            members = [self.actionable_index_[s] for s in subset]
            effects = self.scm.cut_effects(members)[:, members]
            if use_lp:
                c, d = self._lp(x[rows], gap[rows], members, effects)
            else:
                c, d = self._closed_form(x[rows], gap[rows], members, effects)
                if self.method == "auto":  # points already outside a bound must move back: exact LP
                    outside = ((x[rows] < self.lower_) | (x[rows] > self.upper_)).any(axis=1)
                    if outside.any():
                        c[outside], d[outside] = self._lp(x[rows[outside]], gap[rows[outside]], members, effects)
            better = c < cost[rows]
            chosen = rows[better]
            cost[chosen] = c[better]
            delta[chosen] = 0.0
            delta[np.ix_(chosen, list(subset))] = d[better]
            counterfactual[chosen] = x[chosen] + d[better] @ effects.T
        infeasible = ~np.isfinite(cost)
        delta[infeasible] = np.nan
        counterfactual[infeasible] = np.nan
        return RecourseResult(cost, delta, counterfactual, unfav)

    def _blocked(self, j: int, sign: float) -> bool:
        """Whether variable ``j``'s direction rule forbids moving it with this sign."""
        rule = self.direction.get(self.scm.variables[j], "both")
        return (rule == "increase" and sign < 0) or (rule == "decrease" and sign > 0)

    def _closed_form(
        self, x: np.ndarray, gap: np.ndarray, members: list[int], effects: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Fractional knapsack: fill the most efficient usable variables first (stable order)."""
        total = self.coef_ @ effects
        usable = np.array([t != 0 and not self._blocked(j, t) for j, t in zip(members, total, strict=True)], bool)
        idx = np.asarray(members)
        efficiency = np.where(usable, np.abs(total) * self.ranges_[idx] / self.weights_[idx], 0.0)
        order = [m for m in np.argsort(-efficiency, kind="stable") if usable[m]]
        remaining = gap.copy()
        cost = np.zeros(gap.size)
        delta = np.zeros((gap.size, len(members)))
        for m in order:
            j = members[m]
            sign = np.sign(total[m])
            capacity = self.upper_[j] - x[:, j] if sign > 0 else x[:, j] - self.lower_[j]
            step = np.minimum(np.maximum(capacity, 0.0), np.maximum(remaining, 0.0) / abs(total[m]))
            delta[:, m] = sign * step
            remaining -= abs(total[m]) * step
            cost += self.weights_[j] * step / self.ranges_[j]
        cost[remaining > BOUNDARY_TOLERANCE * np.maximum(1.0, np.abs(gap))] = np.inf
        return cost, delta

    def _lp(
        self, x: np.ndarray, gap: np.ndarray, members: list[int], effects: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Solve the exact LP per point with HiGHS (bounds on every variable, monotonicity)."""
        k = len(members)
        total = self.coef_ @ effects
        idx = np.asarray(members)
        unit = self.weights_[idx] / self.ranges_[idx]
        objective = np.concatenate([unit, unit])
        var_bounds = [(0.0, 0.0) if self._blocked(j, sign) else (0.0, None) for sign in (1, -1) for j in members]
        upper_rows = np.flatnonzero(np.isfinite(self.upper_))
        lower_rows = np.flatnonzero(np.isfinite(self.lower_))
        move = np.hstack([effects, -effects])
        a_ub = np.vstack([-np.concatenate([total, -total])[np.newaxis, :], move[upper_rows], -move[lower_rows]])
        cost = np.full(gap.size, np.inf)
        delta = np.zeros((gap.size, k))
        for i in range(gap.size):
            b_ub = np.concatenate(
                [[-gap[i]], self.upper_[upper_rows] - x[i, upper_rows], x[i, lower_rows] - self.lower_[lower_rows]]
            )
            result = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=var_bounds, method="highs")
            if result.status == 0 and result.x is not None:
                cost[i] = result.fun
                delta[i] = result.x[:k] - result.x[k:]
        return cost, delta


def _vector(name: str, value: Mapping[str, float] | Sequence[float] | np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    if isinstance(value, Mapping):
        out = np.zeros(len(names))
        for key, v in value.items():
            if key not in names:
                raise ConfigError(name, f"unknown variable {key!r}", f"use names from {list(names)}")
            out[names.index(key)] = float(v)
        return out
    out = np.asarray(value, dtype=float).ravel()
    if out.shape != (len(names),) or not np.isfinite(out).all():
        raise ConfigError(name, f"must have {len(names)} finite values (one per SCM variable)", "pass a mapping")
    return out
