"""What every mixed-type recourse generator shares: the action set, the cost model, the "found" report.

Agents' features are in the code space of a :class:`~recoursesim.features.FeatureSchema`
(numeric and integer values, ordinal ranks, categorical codes). A generator built on
:class:`MixedRecourse` implements ``_search(features, threshold, scorer)`` for the agents below
the threshold; this base class

- builds the :class:`~recoursesim.features.MixedActionSet` and the
  :class:`~recoursesim.features.CostModel` from scenario tables,
- checks every recommendation with the model and the action set, and
- reports per agent whether a valid recommendation was found (``found_``): an agent for whom
  none was found is told to stay where it is, and ``found_`` is ``False`` for it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from recoursesim._validate import check_table
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.features.actions import MixedActionSet, merge_action_specs
from recoursesim.features.capabilities import OffersTrainingData
from recoursesim.features.cost import CostModel
from recoursesim.recourse.probe_cache import score_distinct
from recoursesim.recourse.separable import SeparableProblem, SeparableSolution, pareto_options
from recoursesim.scoring.base import Scorer, clipped_logit, margin_of


@dataclass(eq=False, repr=False)
class MixedRecourse(Component, ABC):
    """Base class of the recourse generators for mixed-type features (see the module docstring).

    Args:
        action_set: Table of constraints: ``immutable``, ``increase_only``, ``decrease_only``,
            ``lower``, ``upper``, ``allowed_categories`` (see :class:`~recoursesim.features.MixedActionSet`),
            or a ready :class:`~recoursesim.features.MixedActionSet`.
        cost_weights: Feature -> cost multiplier (see :class:`~recoursesim.features.CostModel`).

    :meth:`bind` reads the run's feature schema (default: every feature numeric on ``[0, 1]``)
    and its data set's default action set: a given ``action_set`` table is merged with the
    defaults (:func:`~recoursesim.features.actions.merge_action_specs`), so features immutable by
    default stay immutable; a ready :class:`~recoursesim.features.MixedActionSet` is used as it is.
    It sets ``schema_``, ``actions_``, ``costs_`` and ``population_`` (the run's population, whose
    training rows the generators that learn from observed rows default to).
    """

    action_set: Mapping[str, Any] | MixedActionSet | None = None
    cost_weights: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        if self.action_set is not None and not isinstance(self.action_set, MixedActionSet):
            check_table("action_set", self.action_set)
        if self.cost_weights is not None and not isinstance(self.cost_weights, Mapping):
            raise ConfigError(
                "cost_weights", "must be a table of feature = weight", "write cost_weights = { age = 2.0 }"
            )
        self.found_ = np.zeros(0, dtype=bool)

    def bind(self, context: RunContext) -> Self:
        """Build the action set and the cost model on the run's features (see the class docstring)."""
        self.schema_ = context.feature_schema
        if isinstance(self.action_set, MixedActionSet):
            self.actions_ = self.action_set
        else:
            try:
                spec = merge_action_specs(context.action_defaults, self.action_set)
                self.actions_ = MixedActionSet.from_spec(self.schema_, spec)
            except ConfigError as error:
                raise error.under("action_set") from None
        try:
            self.costs_ = CostModel(self.schema_, self.cost_weights)
        except ConfigError as error:  # the cost model names its argument "weights"
            field = error.field.removeprefix("weights").lstrip(".")
            raise ConfigError(f"cost_weights.{field}" if field else "cost_weights", error.problem, error.fix) from None
        self.found_ = np.zeros(0, dtype=bool)
        self.population_ = context.population
        return self

    # ------------------------------------------------------------------ the protocol

    def cost(self, moves: np.ndarray) -> np.ndarray:
        """The cost model's price of each row of ``moves`` (``x' - x`` in code space)."""
        return self.costs_.cost(moves)

    def recommend(
        self, features: np.ndarray, scores: np.ndarray, threshold: float | np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        """Return a legal, accepted point per agent below ``threshold``; set ``found_``.

        Agents at or above the threshold keep their features (``found_`` True). An agent for
        whom no legal point with score ``>= threshold`` was found keeps its features and gets
        ``found_`` False.
        """
        features = np.asarray(features, dtype=float)
        n = features.shape[0]
        limit = np.broadcast_to(np.asarray(threshold, dtype=float), (n,))
        recommendation = features.copy()
        found = np.asarray(scores, dtype=float) >= limit
        rows = np.flatnonzero(~found)
        if rows.size:
            moved, ok = self._search(features[rows], limit[rows], scorer)
            moved = np.where(ok[:, None], moved, features[rows])
            accepted = score_distinct(scorer, moved) >= limit[rows]
            ok &= accepted & self.actions_.is_valid(features[rows], moved)
            recommendation[rows] = np.where(ok[:, None], moved, features[rows])
            found[rows] = ok
        self.found_ = found
        return recommendation

    @abstractmethod
    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        """Return candidate points and whether each was found, for agents below ``threshold``."""

    # ------------------------------------------------------------------ shared pieces

    @property
    def mutable(self) -> np.ndarray:
        """Features an agent may change at all (not immutable, with more than one value)."""
        schema = self.schema_
        fixed = self.actions_.immutable | (self.actions_.lower >= self.actions_.upper)
        for j in np.flatnonzero(schema.is_categorical):
            fixed[j] |= not self.actions_.allowed[j].any()
        return ~fixed

    def mutable_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """``(continuous, discrete)``: the :attr:`mutable` numeric/integer and ordinal/categorical columns."""
        schema, mutable = self.schema_, self.mutable
        continuous = np.flatnonzero((schema.is_numeric | schema.is_integer) & mutable)
        discrete = np.flatnonzero((schema.is_ordinal | schema.is_categorical) & mutable)
        return continuous, discrete

    def legal_codes(self, features: np.ndarray, j: int, box: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """``(n, m_j)``: which codes of discrete feature ``j`` each agent may move to (not staying).

        ``box``: the action set's ``box(features)``, when the caller has it already.
        """
        m = int(self.schema_.n_categories[j])
        codes = np.arange(m, dtype=float)
        lo, hi = self.actions_.box(features) if box is None else box
        inside = (codes[None, :] >= lo[:, j, None] - 1e-9) & (codes[None, :] <= hi[:, j, None] + 1e-9)
        allowed = self.actions_.allowed[j][None, :m] if self.actions_.allowed[j].size == m else np.ones((1, m), bool)
        return inside & allowed & (codes[None, :] != features[:, j, None])

    def continuous_room(
        self, features: np.ndarray, box: tuple[np.ndarray, np.ndarray] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(up, down)``: how far each numeric/integer feature may rise and fall (whole units for integers).

        ``box``: the action set's ``box(features)``, when the caller has it already.
        """
        lo, hi = self.actions_.box(features) if box is None else box
        up = np.maximum(hi - features, 0.0)
        down = np.maximum(features - lo, 0.0)
        whole = self.schema_.is_integer
        up[:, whole] = np.floor(up[:, whole] + 1e-9)
        down[:, whole] = np.floor(down[:, whole] + 1e-9)
        return up, down

    def separable_problem(
        self, features: np.ndarray, need: np.ndarray, up_gain: np.ndarray, down_gain: np.ndarray, tables: list
    ) -> tuple[SeparableProblem, np.ndarray, np.ndarray, list[int]]:
        """Turn margin gains into a :class:`SeparableProblem`.

        Args:
            features: ``(n, d)`` current codes.
            need: ``(n,)`` margin to gain.
            up_gain: ``(n, d)`` margin per unit rise of each numeric/integer feature.
            down_gain: ``(n, d)`` margin per unit fall.
            tables: Per discrete feature (schema order), ``(n, m_j)`` margin change of moving to each code.

        Returns:
            The problem, the direction (+1/-1) of each continuous feature, their columns and the
            discrete columns.
        """
        schema = self.schema_
        cont, discrete = self.mutable_columns()
        disc = [int(j) for j in discrete]
        box = self.actions_.box(features)
        up, down = self.continuous_room(features, box)
        rise = up_gain[:, cont] >= down_gain[:, cont]
        slope = np.where(rise, up_gain[:, cont], down_gain[:, cont])
        room = np.where(rise, up[:, cont], down[:, cont])
        unit = np.broadcast_to(self.costs_.unit_cost[cont], slope.shape)
        useful = (slope > 0) & (unit > 0)
        options = []
        for table, j in zip(tables, disc, strict=True):
            codes = np.broadcast_to(np.arange(table.shape[1], dtype=float), table.shape)
            step = np.abs(codes - features[:, j, None])
            price = self.costs_.unit_cost[j] * (step if schema.is_ordinal[j] else (step > 0))
            options.append(pareto_options(codes, table, price, self.legal_codes(features, j, box)))
        problem = SeparableProblem(
            need=need,
            slope=np.where(useful, slope, 0.0),
            unit=np.where(useful, unit, 1.0),
            room=np.where(useful, room, 0.0),
            integral=schema.is_integer[cont],
            discrete=options,
        )
        return problem, np.where(rise, 1.0, -1.0), cont, disc

    @staticmethod
    def apply_solution(
        features: np.ndarray,
        solution: SeparableSolution,
        problem: SeparableProblem,
        direction: np.ndarray,
        cont: np.ndarray,
        disc: list[int],
    ) -> np.ndarray:
        """The points a :class:`SeparableSolution` moves ``features`` to."""
        out = features.copy()
        out[:, cont] += direction * solution.amount
        rows = np.arange(features.shape[0])
        for k, (options, j) in enumerate(zip(problem.discrete, disc, strict=True)):
            pick = solution.choice[:, k]
            chosen = pick >= 0
            if chosen.any():
                out[rows[chosen], j] = options.value[rows[chosen], pick[chosen]]
        return out


def link_of(scores: np.ndarray, threshold: np.ndarray) -> str:
    """``"logistic"`` when scores and cut-offs are probabilities strictly inside (0, 1), else ``"identity"``."""
    values = np.concatenate([np.ravel(scores), np.ravel(threshold)])
    return "logistic" if np.all((values > 0) & (values < 1)) else "identity"


def to_margin(scores: np.ndarray, link: str) -> np.ndarray:
    """Scores on an additive scale: the log-odds of a probability (``"logistic"``) or as they are."""
    scores = np.asarray(scores, dtype=float)
    return np.asarray(clipped_logit(scores)) if link == "logistic" else scores


def margin_of_rows(scorer: Scorer, features: np.ndarray, link: str) -> np.ndarray:
    """Each row's margin: exact when the scorer offers it (:func:`~recoursesim.scoring.base.margin_of`).

    Otherwise the scores on the additive scale ``link`` (:func:`to_margin`), which saturate where
    a probability rounds to 0 or 1.
    """
    exact = margin_of(scorer)
    if exact is not None:
        return np.asarray(exact[0](features), dtype=float)
    return to_margin(np.asarray(scorer.score(features), dtype=float), link)


#: Reference rows for the conformance checks' two-feature world (a grid on the unit square), for the
#: generators that learn from observed rows.
CHECK_REFERENCE: list[list[float]] = [[a / 10, b / 10] for a in range(11) for b in range(11)]


def observed_rows(reference: Any, population: Any, generator: str, purpose: str) -> Any:
    """Observed profiles a generator learns from: ``reference``, else the population's training rows.

    Args:
        reference: Rows passed by the user (``None``: take them from ``population``).
        population: The run's population; used when it has ``training_data()``.
        generator: Generator name for the error message.
        purpose: What the rows are for, for the error message.

    Raises:
        ConfigError: Neither source gives rows.
    """
    rows = reference
    if rows is None and population is not None and isinstance(population, OffersTrainingData):
        rows = population.training_data()[0]
    if rows is None:
        raise ConfigError(
            "recourse.reference",
            f"the {generator} generator needs observed rows to {purpose}",
            "use a dataset population, or pass reference= (an (m, d) array of observed profiles)",
        )
    return rows
