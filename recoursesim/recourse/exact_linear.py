"""Exact cheapest recommendation when the model is additive (linear, including one-hot logistic)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from recoursesim._validate import check_float
from recoursesim.errors import ConfigError
from recoursesim.features import FeatureSchema
from recoursesim.recourse.mixed import MixedRecourse, margin_of_rows, to_margin
from recoursesim.recourse.separable import solve_separable
from recoursesim.registry import register
from recoursesim.resources import available_memory, format_bytes
from recoursesim.scoring.base import AdditiveForm, Scorer, additive_form_of, margin_of, model_name

#: Probabilities closer to 0 or 1 than this say too little about the margin to be checked.
_SATURATED = 1e-9

#: Peak bytes per agent and discrete option while solving: about twelve ``(agents, options)``
#: arrays of 8 bytes (margin tables, prices, legal moves, the Pareto filter's sort) exist at once.
BYTES_PER_OPTION = 12 * 8


def additive_form(
    scorer: Scorer, features: np.ndarray, schema: FeatureSchema, mutable: np.ndarray, tolerance: float
) -> AdditiveForm | None:
    """The scorer's additive form, or ``None`` if it has none.

    In order: the form the scorer states (:func:`~recoursesim.scoring.base.additive_form_of`: the
    coefficients of a built-in linear model or a linear scorer); else the form probed on the
    scorer's exact margin (:func:`~recoursesim.scoring.base.margin_of`: a pipeline ending in a
    logistic regression, read through its decision function); else the form probed on the scores
    (a black box).
    """
    stated = additive_form_of(scorer, schema)
    if stated is not None:
        return stated
    exact = margin_of(scorer)
    if exact is not None:
        function, link = exact
        return probe_additive_form(function, [link], features, schema, mutable, tolerance, saturates=False)
    return probe_additive_form(scorer.score, None, features, schema, mutable, tolerance, saturates=True)


def probe_additive_form(
    function: Callable[[np.ndarray], np.ndarray],
    links: list[Literal["identity", "logistic"]] | None,
    features: np.ndarray,
    schema: FeatureSchema,
    mutable: np.ndarray,
    tolerance: float,
    saturates: bool,
) -> AdditiveForm | None:
    """Probe ``function`` around the first agent and return its additive form, or ``None`` if it has none.

    The form is measured by changing one mutable feature at a time at a base point (the first
    row), then checked on 64 points with several features changed at once, from rows of
    ``features``: it is accepted only if it predicts every change of margin to within
    ``tolerance`` (relative). The probed form covers the mutable features only and its intercept
    is 0: it gives changes of margin, not the margin itself.

    Args:
        function: The margin (``links`` given) or the score (``links`` ``None``: a probability is
            tried on the logistic scale, then as it is).
        links: The link from the values of ``function`` to the score.
        features: Rows to probe around.
        schema: The feature schema.
        mutable: Which features to probe.
        tolerance: Relative error allowed.
        saturates: ``function`` is a probability: values within 1e-9 of 0 or 1 are not checked.
    """
    base = features[0]
    probes, where = _one_feature_probes(base, schema, mutable)
    check, origin = _check_pairs(features, schema, mutable)
    values = np.asarray(function(np.concatenate([base[None, :], *probes, check, origin])), dtype=float)
    if links is None:
        links = ["logistic", "identity"] if np.all((values > 0) & (values < 1)) else ["identity"]
    for link in links:
        margin = to_margin(values, link) if saturates else values
        form, at = _measured_form(margin, where, schema, features.shape[1], link)
        predicted = form.contribution(check) - form.contribution(origin)
        observed = margin[at : at + 64] - margin[at + 64 :]
        usable = np.ones(64, dtype=bool)
        if saturates and link == "logistic":
            within = (values[at:] > _SATURATED) & (values[at:] < 1 - _SATURATED)
            usable = within[:64] & within[64:]
        if np.all(np.abs(predicted - observed)[usable] <= tolerance * (1 + np.abs(observed[usable]))):
            return form
    return None


def _one_feature_probes(
    base: np.ndarray, schema: FeatureSchema, mutable: np.ndarray
) -> tuple[list[np.ndarray], list[tuple[int, np.ndarray]]]:
    """Rows that change one mutable feature of ``base`` at a time (its bounds, or each category)."""
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
    return probes, where


def _check_pairs(features: np.ndarray, schema: FeatureSchema, mutable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """64 pairs of rows (seeded) that differ in several mutable features at once, immutable ones shared."""
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
    return check, origin


def _measured_form(
    margin: np.ndarray,
    where: list[tuple[int, np.ndarray]],
    schema: FeatureSchema,
    n_features: int,
    link: Literal["identity", "logistic"],
) -> tuple[AdditiveForm, int]:
    """The additive form the one-feature probes measure, and where the check rows start in ``margin``."""
    slope = np.zeros(n_features)
    tables = [np.zeros(0)] * n_features
    at = 1
    for column, levels in where:
        part = margin[at : at + levels.size] - margin[0]
        at += levels.size
        if schema.is_numeric[column] or schema.is_integer[column]:
            slope[column] = (part[1] - part[0]) / (levels[1] - levels[0])
        else:
            tables[column] = part
    return AdditiveForm(link, 0.0, slope, tuple(tables)), at


@register("recourse", "exact_linear", "linear_mixed")
@dataclass(eq=False, repr=False)
class ExactLinearRecourse(MixedRecourse):
    """The cheapest legal point the model accepts, exactly, for additive models.

    Works for any model whose margin is a sum of one function per feature: a linear scorer, a
    logistic regression on numeric features, or a scikit-learn pipeline that one-hot (or
    ordinal) encodes categorical columns and scales numeric ones before a logistic regression.
    The form is read from the model's coefficients when the model states them (the built-in
    ``logistic`` model, a linear scorer, a plain linear scikit-learn model); otherwise it is
    measured by probing the model one feature at a time, on its decision function when the model
    is a pipeline ending in a logistic regression (which, unlike a probability, does not saturate
    at 0 or 1), else on its scores, and checked on random multi-feature changes. A model that
    fails the check is refused with a one-line error (use ``search`` or ``auto`` for it).

    The cheapest move under the cost model (range-normalised numbers, ordinal steps, category
    switches) is then found by :func:`~recoursesim.recourse.separable.solve_separable`: a
    fractional knapsack on the numeric features for every combination of discrete options. It is
    exact, except that an integer feature that can move more than 128 units is moved like a
    number and rounded up (at most one unit's cost above the optimum).

    Args:
        action_set: Constraints (see :class:`~recoursesim.recourse.mixed.MixedRecourse`).
        cost_weights: Feature -> cost multiplier.
        tolerance: Relative error allowed when checking that the model is additive.
    """

    tolerance: float = 1e-6

    def __post_init__(self) -> None:
        super().__post_init__()
        self._tolerance = check_float("tolerance", self.tolerance, minimum=0.0)

    def form_of(self, scorer: Scorer, features: np.ndarray) -> AdditiveForm | None:
        """The scorer's additive form (see :func:`additive_form`), or ``None`` if it has none.

        The verdict is taken once per scorer object: the first call probes (around that call's
        agents) and later calls with the same scorer reuse it, so a fixed model cannot pass the check
        at one step and fail it at the next. A refitted model is a new scorer and is judged anew.
        """
        cached = getattr(self, "form_cache_", None)
        if cached is not None and cached[0] is scorer:
            return cached[1]
        form = additive_form(scorer, features, self.schema_, self.mutable, self._tolerance)
        self.form_cache_ = (scorer, form)
        return form

    def memory_needed(self, n_agents: int) -> int:
        """Estimated peak bytes of :meth:`solve` for ``n_agents``: every agent gets every category as an option."""
        discrete = self.mutable_columns()[1]
        return int(n_agents) * int(self.schema_.n_categories[discrete].sum()) * BYTES_PER_OPTION

    def fits_in_memory(self, n_agents: int) -> bool:
        """Whether :meth:`solve` for ``n_agents`` needs at most half the memory still available."""
        available = available_memory()
        return available is None or self.memory_needed(n_agents) <= available // 2

    def check_memory(self, n_agents: int) -> None:
        """Refuse, before allocating, a step whose options would not fit in memory.

        Raises:
            ConfigError: naming the widest discrete feature, the estimate and the generator to use instead.
        """
        if self.fits_in_memory(n_agents):
            return
        discrete = self.mutable_columns()[1]
        widest = int(discrete[np.argmax(self.schema_.n_categories[discrete])])
        name, levels = self.schema_.names[widest], int(self.schema_.n_categories[widest])
        raise ConfigError(
            "recourse.name",
            f"'exact_linear' would need about {format_bytes(self.memory_needed(n_agents))} for {n_agents} agents "
            f"({name!r} has {levels} categories, each an option for every agent), more than half the "
            f"{format_bytes(available_memory() or 0)} available",
            'use recourse = { name = "search" } (or "auto", which then searches), or merge rare categories',
        )

    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        self.check_memory(features.shape[0])
        form = self.form_of(scorer, features)
        if form is None:
            raise ConfigError(
                "recourse.name",
                f"'exact_linear' needs a model whose margin is a sum of one term per feature (linear or one-hot "
                f"logistic), and {model_name(scorer)} failed that check",
                "use recourse 'auto' or 'search' for this model",
            )
        return self.solve(features, threshold, scorer, form)

    def solve(
        self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer, form: AdditiveForm
    ) -> tuple[np.ndarray, np.ndarray]:
        """The cheapest legal move of each agent to ``threshold`` under the additive ``form``."""
        margin = margin_of_rows(scorer, features, form.link)
        target = to_margin(threshold, form.link)
        need = target - margin + 1e-9 * (1 + np.abs(target))
        n, d = features.shape
        slope = np.broadcast_to(form.slope, (n, d))
        disc = self.mutable_columns()[1]
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
