"""Exact cheapest recommendation when the model is additive (linear, including one-hot logistic)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from recoursesim._validate import check_float
from recoursesim.errors import ConfigError
from recoursesim.recourse.mixed import MixedRecourse, to_margin
from recoursesim.recourse.separable import solve_separable
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer

if TYPE_CHECKING:
    from recoursesim.features import FeatureSchema, MixedActionSet


#: Probabilities closer to 0 or 1 than this say too little about the margin to be checked.
_SATURATED = 1e-9


@dataclass(frozen=True)
class AdditiveForm:
    """``margin(x) = intercept + Σ_j g_j(x_j)``, read off a model by probing it.

    Attributes:
        link: ``"logistic"`` (the score is ``expit(margin)``) or ``"identity"``.
        slope: ``(d,)`` margin per code unit of each numeric/integer feature (0 elsewhere).
        tables: Per feature, the margin contribution of each code (discrete features; empty otherwise).
    """

    link: str
    slope: np.ndarray
    tables: tuple[np.ndarray, ...]


def additive_form(
    scorer: Scorer, features: np.ndarray, schema: FeatureSchema, mutable: np.ndarray, tolerance: float
) -> AdditiveForm | None:
    """Probe ``scorer`` around the first agent and return its additive form, or ``None`` if it has none.

    The form is measured by changing one mutable feature at a time at a base point (the first
    row), then checked on 64 points with several features changed at once, from rows of
    ``features``: it is accepted only if it predicts every change of margin to within
    ``tolerance`` (relative).
    """
    base = features[0]
    probes, where = [], []
    for j in np.flatnonzero(mutable):
        if schema.is_numeric[j] or schema.is_integer[j]:
            values = np.array([schema.lower[j], schema.upper[j]])
        else:
            values = np.arange(schema.n_categories[j], dtype=float)
        rows = np.repeat(base[None, :], values.size, axis=0)
        rows[:, j] = values
        probes.append(rows)
        where.append((int(j), values))
    rng = np.random.default_rng(0)
    check = features[rng.integers(0, features.shape[0], size=64)].copy()
    for j in np.flatnonzero(mutable):
        if schema.is_numeric[j]:
            check[:, j] = rng.uniform(schema.lower[j], schema.upper[j], size=64)
        elif schema.is_integer[j]:
            check[:, j] = rng.integers(int(schema.lower[j]), int(schema.upper[j]) + 1, size=64)
        else:
            check[:, j] = rng.integers(0, schema.n_categories[j], size=64)
    origin = features[rng.integers(0, features.shape[0], size=64)].copy()
    origin[:, ~mutable] = check[:, ~mutable]
    scores = np.asarray(scorer.score(np.concatenate([base[None, :], *probes, check, origin])), dtype=float)
    links = ["logistic", "identity"] if np.all((scores > 0) & (scores < 1)) else ["identity"]
    for link in links:
        margin = to_margin(scores, link)
        slope = np.zeros(features.shape[1])
        tables = [np.zeros(0)] * features.shape[1]
        at = 1
        for column, values in where:
            part = margin[at : at + values.size] - margin[0]
            at += values.size
            if schema.is_numeric[column] or schema.is_integer[column]:
                slope[column] = (part[1] - part[0]) / (values[1] - values[0])
            else:
                tables[column] = part
        form = AdditiveForm(link, slope, tuple(tables))
        predicted = form_margin(form, check, schema) - form_margin(form, origin, schema)
        observed = margin[at : at + 64] - margin[at + 64 :]
        usable = np.ones(64, dtype=bool)
        if link == "logistic":
            within = (scores[at:] > _SATURATED) & (scores[at:] < 1 - _SATURATED)
            usable = within[:64] & within[64:]
        if np.all(np.abs(predicted - observed)[usable] <= tolerance * (1 + np.abs(observed[usable]))):
            return form
    return None


def form_margin(form: AdditiveForm, features: np.ndarray, schema: FeatureSchema) -> np.ndarray:
    """``Σ_j g_j(x_j)`` (without the intercept) for each row."""
    out = features @ form.slope
    for j, table in enumerate(form.tables):
        if table.size:
            codes = np.clip(np.rint(features[:, j]), 0, table.size - 1).astype(np.int64)
            out = out + table[codes]
    return out


@register("recourse", "exact_linear", "linear_mixed")
class ExactLinearRecourse(MixedRecourse):
    """The cheapest legal point the model accepts, exactly, for additive models.

    Works for any model whose margin is a sum of one function per feature: a linear scorer, a
    logistic regression on numeric features, or a scikit-learn pipeline that one-hot (or
    ordinal) encodes categorical columns and scales numeric ones before a logistic regression.
    The form is read off the model by probing it (one feature at a time) and checked on random
    multi-feature changes; a model that fails the check is refused with a clear error (use
    ``search`` for it). The cheapest move under the cost model (range-normalised numbers,
    ordinal steps, category switches) is then found exactly by
    :func:`~recoursesim.recourse.separable.solve_separable`: a fractional knapsack on the numeric
    features for every combination of discrete options, with a mixed-integer program for the
    agents it leaves with a fractional integer feature.

    Args:
        action_set: Constraints (see :class:`~recoursesim.recourse.mixed.MixedRecourse`).
        cost_weights: Feature -> cost multiplier.
        tolerance: Relative error allowed when checking that the model is additive.
        schema: Supplied by the builder.
        action_defaults: Supplied by the builder (the data set's default action set).
        feature_names: Supplied by the model when there is no schema.
    """

    def __init__(
        self,
        action_set: Mapping[str, Any] | MixedActionSet | None = None,
        cost_weights: Mapping[str, float] | None = None,
        tolerance: float = 1e-6,
        schema: FeatureSchema | None = None,
        action_defaults: Mapping[str, Any] | None = None,
        feature_names: Sequence[str] = ("x0", "x1"),
    ) -> None:
        super().__init__(action_set, cost_weights, schema, action_defaults, feature_names)
        self.tolerance = check_float("tolerance", tolerance, minimum=0.0)

    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        form = additive_form(scorer, features, self.schema, self.mutable, self.tolerance)
        if form is None:
            raise ConfigError(
                "recourse.name",
                f"'exact_linear' needs an additive (linear or one-hot logistic) model, got {type(scorer).__name__}",
                "use recourse 'search' or 'manifold' for this model",
            )
        margin = to_margin(np.asarray(scorer.score(features), dtype=float), form.link)
        target = to_margin(threshold, form.link)
        need = target - margin + 1e-9 * (1 + np.abs(target))
        n, d = features.shape
        slope = np.broadcast_to(form.slope, (n, d))
        disc = np.flatnonzero((self.schema.is_ordinal | self.schema.is_categorical) & self.mutable)
        tables = []
        for j in disc:
            table = form.tables[j]
            current = table[np.clip(np.rint(features[:, j]), 0, table.size - 1).astype(np.int64)]
            tables.append(table[None, :] - current[:, None])
        problem, direction, cont, columns = self.separable_problem(features, need, slope, -slope, tables)
        solution = solve_separable(problem)
        moved = self.apply_solution(features, solution, problem, direction, cont, columns)
        self.cost_ = solution.cost
        return moved, solution.feasible
