"""The phases of one market step with several lenders (docs/markets.md, "The step").

:class:`~recoursesim.engine.model.RecourseModel` runs a step of a market with several lenders through a
:class:`MarketStep` built once from the run's state (the agent table, the ledger, the behaviour,
the random streams): every waiting applicant is scored by every lender; the choice policy says
where each applies; each lender selects among its own applicants; the ledger records one row per
(agent, lender applied to); the accepted leave (an applicant accepted by several lenders takes the
first in declaration order); each lender recommends to its refused applicants who are still
waiting; each applicant acts once, on its cheapest recommendation; and each lender's trainer refits
on its own applicants' rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from recoursesim._rows import put_rows
from recoursesim.behaviour.base import ActionContext, Behaviour
from recoursesim.choice.base import ChoiceContext, application_cost_of
from recoursesim.engine.agent_table import AgentTable, Status
from recoursesim.engine.decision import Decision
from recoursesim.engine.market import Lender, cheapest, first_true, scalar_threshold
from recoursesim.errors import ConfigError, DataError
from recoursesim.ledger import Ledger
from recoursesim.recourse.base import reported_found
from recoursesim.refit_order import StepState, rows_of
from recoursesim.scoring.base import numeric_scores
from recoursesim.selection.base import Selection, SelectionContext
from recoursesim.training.base import TrainingContext


@dataclass(frozen=True)
class MarketParts:
    """The run's state a market step works on (shared with the model, never the model itself).

    Attributes:
        table: The agents' columnar state.
        ledger: The run's ledger.
        behaviour: Moves agents toward a recommendation.
        streams: The run's named random streams (``choice``, ``behaviour``, ``training``).
        selection_context: Builds a selector's context for ``(step, agent ids, features)``.
        n_groups: The number of groups.
    """

    table: AgentTable
    ledger: Ledger
    behaviour: Behaviour
    streams: dict[str, np.random.Generator]
    selection_context: Callable[[int, np.ndarray, np.ndarray], SelectionContext]
    n_groups: int


@dataclass
class _Decisions:
    """Every lender's decision on its applicants (``index[j]``: their positions among the waiting)."""

    index: list[np.ndarray]
    selections: list[Selection]
    accepted: np.ndarray  # (n, L)


class MarketStep:
    """Runs the market phases of one step for several lenders (see the module docstring).

    Args:
        lenders: The lenders, in declaration order.
        choice: The applicants' choice policy.
        parts: The run's state the step works on.
    """

    def __init__(self, lenders: tuple[Lender, ...], choice: object, parts: MarketParts) -> None:
        self.lenders = lenders
        self.choice = choice
        self.parts = parts
        #: Per agent id and lender, the cost of the lender's latest recommendation (NaN: none).
        self.last_cost = np.full((0, len(lenders)), np.nan)

    def scores(self, features: np.ndarray) -> np.ndarray:
        """``(n, L)`` every lender's scores (a model lenders share is evaluated once)."""
        columns: dict[int, np.ndarray] = {}
        n = features.shape[0]
        for lender in self.lenders:
            if id(lender.scorer) not in columns:
                try:
                    columns[id(lender.scorer)] = numeric_scores(lender.scorer.score(features), n)
                except DataError as error:  # name the lender whose model scored badly
                    raise DataError(f"lenders.{lender.name}.scorer", error.problem, error.fix) from None
        return np.column_stack([columns[id(lender.scorer)] for lender in self.lenders]).reshape(n, len(self.lenders))

    def run(self, state: StepState, scores: np.ndarray) -> np.ndarray:
        """Run the step's market phases on ``state`` (all waiting agents); return the ids that left.

        Sets ``state.selected`` (accepted by some lender) and ``state.threshold`` (lender 0's own
        threshold for every agent, NaN for agents that did not apply to it).
        """
        applied = self.choose(state, scores)
        decisions = self.decide(state, scores, applied)
        taken = first_true(decisions.accepted)
        state.selected = taken >= 0
        state.threshold = self._lender_threshold(decisions, 0, state.rows.size)
        cost = float(application_cost_of(self.choice))
        self.record(state, scores, decisions, cost * applied.sum(axis=1))
        winners = state.rows[state.selected]
        self.parts.table.status[winners] = Status.SELECTED
        self.parts.table.exit_step[winners] = state.step
        recommendations = [self.recommend(state, scores, decisions, j) for j in range(len(self.lenders))]
        chosen, spent = self.act(state, scores, decisions, recommendations)
        self.record_actions(state, decisions, recommendations, chosen, spent, cost)
        for j in range(len(self.lenders)):
            self.retrain(state, scores, decisions, recommendations, j)
        return winners

    # ------------------------------------------------------------------ phases

    def choose(self, state: StepState, scores: np.ndarray) -> np.ndarray:
        """The ``(n, L)`` applied mask from the choice policy (checked: every applicant applies somewhere)."""
        table, n_lenders = self.parts.table, len(self.lenders)
        if self.last_cost.shape[0] < table.n:
            grown = np.full((table.n, n_lenders), np.nan)
            grown[: self.last_cost.shape[0]] = self.last_cost
            self.last_cost = grown
        context = ChoiceContext(
            step=state.step,
            lender_names=tuple(lender.name for lender in self.lenders),
            agent_id=state.rows,
            scores=scores,
            last_threshold=np.array([scalar_threshold(lender.threshold) for lender in self.lenders]),
            last_cost=self.last_cost[state.rows],
            capacity=table.effort[state.rows],
            rng=self.parts.streams["choice"],
            decide=lambda applied: self.decide(state, scores, applied).accepted,
        )
        applied = np.asarray(self.choice.choose(context))  # type: ignore[attr-defined]
        if applied.shape != scores.shape or applied.dtype != bool:
            raise ConfigError(
                "market.choice",
                f"choose() returned {applied.dtype} of shape {applied.shape} for {scores.shape[0]} applicants and "
                f"{n_lenders} lenders",
                "return an (applicants, lenders) boolean array",
            )
        if scores.shape[0] and not applied.any(axis=1).all():
            raise ConfigError(
                "market.choice", "choose() left an applicant applying nowhere", "apply every applicant to a lender"
            )
        return applied

    def decide(self, state: StepState, scores: np.ndarray, applied: np.ndarray) -> _Decisions:
        """Each lender's selector on its applicants (``applied[:, j]``)."""
        accepted = np.zeros(applied.shape, dtype=bool)
        index, selections = [], []
        for j, lender in enumerate(self.lenders):
            mine = np.flatnonzero(applied[:, j])
            context = self.parts.selection_context(state.step, state.rows[mine], state.features[mine])
            selection = Selection.checked(lender.selector.select(scores[mine, j], context), mine.size)
            accepted[mine, j] = np.asarray(selection.selected)
            index.append(mine)
            selections.append(selection)
        return _Decisions(index, selections, accepted)

    def record(self, state: StepState, scores: np.ndarray, decisions: _Decisions, applying: np.ndarray) -> None:
        """Record one ledger row per (agent, lender applied to), lender by lender; note each lender's decision."""
        group = self.parts.table.group
        for j, lender in enumerate(self.lenders):
            mine, selection = decisions.index[j], decisions.selections[j]
            lender.threshold = selection.threshold
            lender.decisions.append(
                Decision.of(
                    state.step, lender.scorer, selection.threshold, group[state.rows[mine]], self.parts.n_groups
                )
            )
        rows = np.concatenate(decisions.index)
        self.parts.ledger.record(
            state.step,
            state.rows[rows],
            state.features[rows],
            np.concatenate([scores[mine, j] for j, mine in enumerate(decisions.index)]),
            np.concatenate(
                [
                    np.broadcast_to(np.asarray(s.threshold, float), mine.shape)
                    for s, mine in zip(decisions.selections, decisions.index, strict=True)
                ]
            ),
            np.concatenate([np.asarray(s.selected, bool) for s in decisions.selections]),
            lender=np.concatenate([np.full(mine.size, j, dtype=np.int8) for j, mine in enumerate(decisions.index)]),
        )
        paid = applying > 0
        if paid.any():
            self.parts.table.effort_spent[state.rows[paid]] += applying[paid]

    def recommend(
        self, state: StepState, scores: np.ndarray, decisions: _Decisions, j: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Lender ``j``'s recommendations to its refused applicants who are still waiting.

        Returns:
            ``(positions among the waiting, recommendations, their costs, found_ or None)``.
        """
        lender = self.lenders[j]
        mine = decisions.index[j]
        still = ~state.selected[mine]
        who = mine[still]
        threshold = rows_of(decisions.selections[j].threshold, still)
        features = state.features[who]
        recommendation = np.asarray(lender.recourse.recommend(features, scores[who, j], threshold, lender.scorer))
        found = found_of(lender.recourse, who.size, f"lenders[{j}].recourse")
        cost = np.asarray(lender.recourse.cost(recommendation - features), dtype=float) if who.size else np.zeros(0)
        self.last_cost[state.rows[mine], j] = np.nan
        self.last_cost[state.rows[who], j] = cost
        return who, recommendation, cost, found

    def act(
        self,
        state: StepState,
        scores: np.ndarray,
        decisions: _Decisions,
        recommendations: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]],
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each waiting applicant acts once, on its cheapest recommendation.

        Returns:
            Per waiting agent, the lender whose recommendation it acted on (-1: none) and the
            effort it spent acting.
        """
        n, n_lenders = state.rows.size, len(self.lenders)
        costs = np.full((n, n_lenders), np.nan)
        for j, (who, _, cost, _) in enumerate(recommendations):
            costs[who, j] = np.where(np.isnan(cost), np.inf, cost)  # a recommendation without a cost still counts
        chosen = cheapest(np.where(np.isinf(costs), np.finfo(float).max, costs))
        spent_by = np.zeros(n)
        table = self.parts.table
        for j, (who, recommendation, _, _) in enumerate(recommendations):
            lender = self.lenders[j]
            mine = chosen[who] == j
            if not mine.any():
                continue
            acting = who[mine]
            ids = state.rows[acting]
            before = state.features[acting]
            threshold = rows_of(decisions.selections[j].threshold, ~state.selected[decisions.index[j]])
            new_features = self.parts.behaviour.act(
                ActionContext(
                    features=before,
                    recommendation=recommendation[mine],
                    effort=table.effort[ids],
                    scores=scores[acting, j],
                    threshold=rows_of(threshold, mine),
                    scorer=lender.scorer,
                    cost=lender.recourse.cost,
                    rng=self.parts.streams["behaviour"],
                    step=state.step,
                )
            )
            spent = np.asarray(lender.recourse.cost(new_features - before), dtype=float)
            table.features[ids] = new_features
            table.effort_spent[ids] += spent
            spent_by[acting] = spent
        return chosen, spent_by

    def record_actions(
        self,
        state: StepState,
        decisions: _Decisions,
        recommendations: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]],
        chosen: np.ndarray,
        spent: np.ndarray,
        cost: float,
    ) -> None:
        """Write the recommendations, the effort spent (applying and acting) and who acted on what."""
        waiting, acted, effort, found = [], [], [], []
        for j, mine in enumerate(decisions.index):
            still = ~state.selected[mine]
            on_this = still & (chosen[mine] == j)
            waiting.append(still)
            acted.append(on_this)
            effort.append(np.where(on_this, spent[mine], 0.0) + cost)
            found.append(recommendations[j][3])
        self.parts.ledger.record_actions(
            np.concatenate(waiting),
            np.concatenate([r[1].reshape(-1, state.features.shape[1]) for r in recommendations]),
            np.concatenate(effort),
            None if any(f is None for f in found) else np.concatenate(found),  # type: ignore[arg-type]
            acted=np.concatenate(acted),
            every_row=True,
        )

    def retrain(
        self,
        state: StepState,
        scores: np.ndarray,
        decisions: _Decisions,
        recommendations: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]],
        j: int,
    ) -> None:
        """Lender ``j``'s trainer refits on its own applicants' rows (no trainer or no applicant: its model stays)."""
        lender = self.lenders[j]
        mine, selection = decisions.index[j], decisions.selections[j]
        if lender.trainer is None or mine.size == 0:
            return
        features = state.features[mine]
        full = np.full(features.shape, np.nan)
        put_rows(full, ~state.selected[mine], recommendations[j][1])
        lender.scorer = lender.trainer.update(
            TrainingContext(
                step=state.step,
                features=features,
                group=self.parts.table.group[state.rows[mine]],
                scores=scores[mine, j],
                selected=np.asarray(selection.selected),
                threshold=selection.threshold,
                recommendation=full,
                scorer=lender.scorer,
                rng=self.parts.streams["training"],
            )
        )

    def _lender_threshold(self, decisions: _Decisions, j: int, n: int) -> np.ndarray:
        """Lender ``j``'s threshold for each of the ``n`` waiting agents (NaN where it was not applied to)."""
        threshold = np.full(n, np.nan)
        mine = decisions.index[j]
        threshold[mine] = np.broadcast_to(np.asarray(decisions.selections[j].threshold, float), mine.shape)
        return threshold


def found_of(recourse: object, n: int, field: str) -> np.ndarray | None:
    """A generator's ``found_`` after a ``recommend`` of ``n`` rows (``None`` if it reports none), checked."""
    found = reported_found(recourse)
    if found is None:
        return None
    if np.shape(found) != (n,):
        raise ConfigError(
            field,
            f"found_ has shape {np.shape(found)} for {n} recommendations",
            "set found_ to a boolean array with one entry per row passed to recommend()",
        )
    return np.asarray(found, dtype=bool).copy()
