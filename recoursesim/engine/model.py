"""RecourseModel: the recourse-over-time loop as a Mesa model with columnar state."""

from __future__ import annotations

from collections.abc import Sequence

import mesa
import numpy as np
import pandas as pd

from recoursesim._rows import put_rows
from recoursesim._validate import check_int
from recoursesim.behaviour.base import ActionContext, Behaviour
from recoursesim.component import RunContext
from recoursesim.engine.agent_table import AgentTable, Status
from recoursesim.engine.agents import RecourseAgent
from recoursesim.engine.decision import Decision
from recoursesim.engine.market import DEFAULT_LENDER, Lender, Market, TrainingShare, check_lenders, training_shares
from recoursesim.engine.market_step import MarketParts, MarketStep, found_of
from recoursesim.errors import ConfigError
from recoursesim.features.capabilities import OffersTrainingData, repayment_of, schema_of
from recoursesim.ledger import Ledger
from recoursesim.lifecycle import bind
from recoursesim.observers import Observer, PopulationSnapshot, observation_rows
from recoursesim.populations.base import Cohort, PopulationGenerator, entrants_schedule
from recoursesim.recourse.base import RecourseGenerator
from recoursesim.refit_order import RefitOrder, StepState, refit_order_of, rows_of
from recoursesim.rng import run_streams
from recoursesim.scoring.base import Scorer, numeric_scores
from recoursesim.selection.base import Selection, SelectionContext, Selector
from recoursesim.selection.loan_outcome import LoanContext, Outcome
from recoursesim.training.base import Trainer, TrainingContext


class _OfLender0[V]:
    """A model attribute that is lender 0's attribute of the same name (read and set)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, model: RecourseModel, owner: type | None = None) -> V:
        value: V = getattr(model.lenders[0], self.name)
        return value

    def __set__(self, model: RecourseModel, value: V) -> None:
        setattr(model.lenders[0], self.name, value)


class RecourseModel(mesa.Model):
    """Agents compete for ``k`` positive outcomes per step and act on recourse recommendations.

    Each call of :meth:`step` runs one step ``t`` of the loop (docs/model.md, "The loop"), one
    named phase each:

    1. *score* every waiting agent with the scorer;
    2. *select*: the selector returns the winners and the threshold ``s_t``;
    3. *record* every scored agent in the :class:`~recoursesim.ledger.Ledger`;
    4. *leave*: the selected agents leave for good (with an ``outcome`` component, *borrow*
       instead: their loan is resolved, their features move, and they stay to apply again);
    5. *recommend*: every remaining agent gets a recommendation ``x'``;
    6. *act*: every remaining agent moves toward it (the effort spent is recorded);
    7. *retrain*: the trainer, if any, refits the decision model on this step's data;
    8. *patience*: agents out of patience leave;
    9. *observe*: observers, if any, audit the agents still waiting;
    10. *admit*: the step's entrants join (first scored at ``t + 1``).

    Phases 5–7 run in the order the trainer's ``order`` names (see
    :mod:`recoursesim.refit_order`): by default as listed; the other orders refit first. The
    order is chosen once, when the model is built.

    State is columnar (:class:`~recoursesim.engine.agent_table.AgentTable`), and the step is one
    vectorised pass. :class:`~recoursesim.engine.agents.RecourseAgent` views are created the first time
    :attr:`agents` is read and kept in sync from then on, so runs that never look at individual
    agents pay nothing for them.

    The model keeps no clock of its own: :attr:`t` is read from Mesa's clock
    (:attr:`mesa.Model.time`), which every :meth:`step` call advances by one.

    When the model is built it binds every lender's scorer, selector, recourse generator and trainer,
    the behaviour, the outcome, the market's choice and the observers to the run, once
    (``part.bind(context)`` with the population's :class:`~recoursesim.component.RunContext`; a part
    a scenario's builder bound to ``context`` is not bound again): that is where a component learns the
    population's feature schema and default action set, so one built by hand
    (``SearchRecourse()``) behaves exactly like the same component built from a scenario.

    Args:
        population: Draws the initial agents and the entrants.
        scorer: The decision model.
        selector: Picks the winners of each step.
        recourse: Recommends ``x'`` and prices moves.
        behaviour: Moves agents toward their recommendations.
        n_initial: Size of the initial population.
        entrants: Agents joining after each step: one number, or a list of ``n_steps`` numbers
            (entry ``t`` joins after step ``t``).
        n_steps: ``T``; the model runs steps ``0 … T`` (``T + 1`` states).
        trainer: Refits the decision model each step (``None``: the model stays fixed).
        observers: Auditors run every ``observer.every`` steps.
        patience: Agents leave without success after this many negative outcomes (``None``:
            they never give up, as in the paper).
        record_recommendations: Keep the recommendations in the ledger.
        outcome: Resolves each positive outcome as a loan (``None``, the default: the selected
            agents leave for good). With one, the selected agents are borrowers: each loan is
            repaid or not (drawn from the run's ``outcome`` stream), their features move by the
            outcome, :attr:`loans` records it, and they stay in the market and are scored again
            at the next step; only the agents not selected get recommendations and act.
        market: A declared market (:class:`~recoursesim.engine.market.Market`): its lenders replace
            ``scorer``, ``selector``, ``recourse`` and ``trainer`` (pass lender 0's there), and each
            step runs the market phases (docs/markets.md). ``None``: the one-lender model.
        seed: The run seed (or a ``SeedSequence`` from a sweep); a run is a pure function of it.
        context: The context a scenario's builder bound the parts to
            (:meth:`~recoursesim.scenario.Scenario.model_arguments` gives it): the parts it bound are
            not bound again. ``None`` (or another population's): the population's context.

    The decision makers are :attr:`lenders`, a tuple of :class:`~recoursesim.engine.market.Lender`
    values; ``scorer``, ``selector``, ``recourse``, ``trainer``, ``threshold``, ``decisions``,
    ``initial_scorer`` and ``refit_order`` name lender 0's.
    """

    def __init__(
        self,
        population: PopulationGenerator,
        scorer: Scorer,
        selector: Selector,
        recourse: RecourseGenerator,
        behaviour: Behaviour,
        *,
        n_initial: int,
        entrants: int | Sequence[int],
        n_steps: int,
        trainer: Trainer | None = None,
        observers: Sequence[Observer] = (),
        patience: int | None = None,
        record_recommendations: bool = True,
        outcome: Outcome | None = None,
        market: Market | None = None,
        seed: int | np.random.SeedSequence = 0,
        context: RunContext | None = None,
    ) -> None:
        streams = run_streams(seed)
        super().__init__(rng=streams["mesa"])
        self.seed = seed
        self.population = population
        self.market = market
        if market is None:
            given: tuple[Lender, ...] = (Lender(DEFAULT_LENDER, scorer, selector, recourse, trainer),)
        else:  # fresh lenders: their models and decisions are this run's
            check_lenders(market.lenders, outcome=outcome is not None, observers=bool(observers))
            given = tuple(
                Lender(one.name, one.scorer, one.selector, one.recourse, one.trainer) for one in market.lenders
            )
        if context is None or context.population is not population:
            context = RunContext.of(population)
        #: What the run tells its components (:meth:`~recoursesim.component.Component.bind`).
        self.context = context
        for i, lender in enumerate(given):
            where = "" if market is None else f"lenders[{i}]."
            lender.scorer = bind("scorer", lender.scorer, context, f"{where}scorer")
            lender.selector = bind("selector", lender.selector, context, f"{where}selection")
            lender.recourse = bind("recourse", lender.recourse, context, f"{where}recourse")
            if lender.trainer is not None:
                lender.trainer = bind("trainer", lender.trainer, context, f"{where}training")
            lender.refit_order = refit_order_of(lender.trainer)
        #: The decision makers, in declaration order (one for a scenario without ``[market]``).
        self.lenders: tuple[Lender, ...] = tuple(given)
        self.behaviour = behaviour = bind("behaviour", behaviour, context, "behaviour")
        self.outcome = None if outcome is None else bind("outcome", outcome, context, "outcome")
        self._loans: list[pd.DataFrame] = []
        self.observers = tuple(
            bind("observer", observer, context, f"observers[{i}]") for i, observer in enumerate(observers)
        )
        # A scenario's values were checked when it was read (naming its fields); these are the arguments'.
        self.n_initial = check_int("n_initial", n_initial, minimum=1)
        self.n_steps = check_int("n_steps", n_steps, minimum=0)
        self.entrants = entrants_schedule(entrants, self.n_steps, "entrants")
        self.patience = None if patience is None else check_int("patience", patience, minimum=1)
        self._streams = streams
        self.feature_names = tuple(population.feature_names)
        self.group_names = tuple(population.group_names)
        nul = next((name for name in self.group_names if "\x00" in str(name)), None)
        if nul is not None:  # a NUL ends a string in C code: the files written would garble the name
            raise ConfigError("population", f"the group name {nul!r} holds a NUL byte", "remove it from the name")
        self.table = AgentTable(len(self.feature_names), capacity=self.n_initial + int(self.entrants.sum()))
        #: The population's feature schema (mixed-type populations), else ``None``.
        self.schema = schema_of(population)
        self.ledger_store = Ledger(
            self.feature_names, self.group_names, record_recommendations, self.schema,
            lender_names=None if market is None else self.lender_names,
        )  # fmt: skip
        self._observations: list[pd.DataFrame] = []
        self._views: dict[int, RecourseAgent] | None = None
        self._unscored: tuple[int, dict[int, float]] | None = None  # (t, id -> score) of not-yet-scored agents
        population.fit(streams["population"])
        self._prepare_scorers(streams["training"])
        cohort = population.sample(self.n_initial, streams["population"])
        self._active = self._admit(cohort, entry_step=0)
        self._active_threshold: float | np.ndarray = float("nan")
        for i, lender in enumerate(self.lenders):
            if i > 0 and self.culture == "monoculture":  # lender 0's started model is every lender's
                lender.scorer = self.lenders[0].scorer
            elif lender.trainer is not None:
                lender.scorer = lender.trainer.start(
                    self.table.features[self._active],
                    self.table.group[self._active],
                    lender.scorer,
                    streams["training"],
                )
            lender.initial_scorer = lender.scorer
        self._market_step: MarketStep | None = None
        if len(self.lenders) > 1:
            assert market is not None
            parts = MarketParts(
                self.table, self.ledger_store, behaviour, streams, self._selection_context, len(self.group_names)
            )
            self._market_step = MarketStep(self.lenders, bind("choice", market.choice, context), parts)
        context.bound_parts.clear()  # what the builder bound but did not hand to this model is not kept

    def _prepare_scorers(self, rng: np.random.Generator) -> None:
        """Fit the lenders' models that are fitted on the population's training rows when the run starts.

        In a polyculture of several lenders each such lender fits on its own disjoint share of the
        training rows (:func:`~recoursesim.engine.market.training_shares`, drawn from ``rng`` once); in a
        monoculture only lender 0's model is fitted (the other lenders take it once it has started).
        """
        lenders = self.lenders[:1] if self.culture == "monoculture" else self.lenders
        fitted = [lender.scorer.fits_on_population for lender in lenders]
        shares = None
        if len(lenders) > 1 and any(fitted) and isinstance(self.population, OffersTrainingData):
            shares = training_shares(len(self.population.training_data()[1]), len(lenders), rng)
        for j, lender in enumerate(lenders):
            if fitted[j]:  # a model fitted on the population's training rows when the run starts
                population = self.population if shares is None else TrainingShare(self.population, shares[j])
                lender.scorer = lender.scorer.prepare(population, rng)

    # ------------------------------------------------------------------ lenders

    @property
    def lender_names(self) -> tuple[str, ...]:
        """The lenders' names, in declaration order (``("default",)`` without a declared market)."""
        return tuple(lender.name for lender in self.lenders)

    @property
    def culture(self) -> str:
        """``"polyculture"`` or ``"monoculture"`` (one lender: ``"polyculture"``)."""
        return "polyculture" if self.market is None else self.market.culture

    #: Lender 0's decision model in force.
    scorer = _OfLender0[Scorer]()
    #: Lender 0's selector.
    selector = _OfLender0[Selector]()
    #: Lender 0's recourse generator.
    recourse = _OfLender0[RecourseGenerator]()
    #: Lender 0's trainer (``None``: its model stays fixed; its refit order is chosen when the model is built).
    trainer = _OfLender0[Trainer | None]()
    #: Lender 0's refit order.
    refit_order = _OfLender0[RefitOrder]()
    #: Lender 0's latest threshold ``s_t``.
    threshold = _OfLender0[float | np.ndarray]()
    #: Per step, lender 0's decision in force: the model that scored and selected and its cut-off.
    decisions = _OfLender0[list[Decision]]()

    @property
    def initial_scorer(self) -> Scorer:
        """Lender 0's model at the start of the run (after fitting)."""
        scorer = self.lenders[0].initial_scorer
        assert scorer is not None
        return scorer

    # ------------------------------------------------------------------ the loop

    @property
    def t(self) -> int:
        """The next step to run, ``0 … T + 1``: the number of steps run so far, read from Mesa's clock.

        Mesa's ``step()`` advances :attr:`mesa.Model.time` by one and then runs this model's step
        body (Mesa 3's ``Model.steps`` counts the same; Mesa 4 keeps only ``time``), so between
        steps ``t`` is ``time``. A ``step()`` refused after the last step still advances Mesa's
        clock; ``t`` stays at ``T + 1``.
        """
        return min(int(self.time), self.n_steps + 1)

    def step(self) -> None:
        """Run one step ``t`` of the loop (see the class docstring); Mesa's clock advances ``t``.

        Raises:
            RuntimeError: The run has ended (step ``T`` has run).
        """
        t = int(self.time) - 1  # Mesa advanced its clock to the end of this step before calling us
        if t > self.n_steps:
            raise RuntimeError(f"the run has ended after step T={self.n_steps}; build a new model to run again")
        state, scores = self._score(t)
        if self._market_step is None:
            self._select(state)
            self._record(state)
            winners = self._leave(state)
            self.refit_order(self, state)  # recommend, act and retrain, in the trainer's order
        else:  # several lenders: choose, select, record, leave, recommend, act once, retrain each
            winners = self._market_step.run(state, scores)
        gave_up = self._lose_patience(state)
        if self.outcome is not None:  # borrowers apply again at the next step
            self._reapply(state, winners)
            winners = winners[:0]
        self._observe(t)
        self._admit_entrants(t, np.concatenate([winners, gave_up]))
        self.running = t + 1 <= self.n_steps

    def run(self, until: int | None = None) -> RecourseModel:
        """Run steps up to and including step ``until`` (default ``T``, the end); return ``self``."""
        last = self.n_steps if until is None else min(int(until), self.n_steps)
        while self.t <= last:
            self.step()
        return self

    # ------------------------------------------------------------------ phases

    def _score(self, t: int) -> tuple[StepState, np.ndarray]:
        """Score every waiting agent at step ``t`` (by every lender); its first score (lender 0's) is its initial score.

        Returns:
            The step's state (lender 0's scores) and the ``(n, L)`` scores of every lender.
        """
        rows = self._active
        features = self.table.features[rows]
        if self._market_step is None:
            every = numeric_scores(self.scorer.score(features), rows.size)[:, None]
        else:
            every = self._market_step.scores(features)
        scores = every[:, 0]
        self.table.score[rows] = scores
        fresh = self.table.entry_step[rows] == t
        self.table.initial_score[rows[fresh]] = scores[fresh]
        return StepState(t, rows, features, scores), every

    def _select(self, state: StepState) -> None:
        """Pick the winners and the threshold ``s_t``."""
        selection = Selection.checked(
            self.selector.select(state.scores, self._selection_context(state.step, state.rows, state.features)),
            state.rows.size,
        )
        state.selected = np.asarray(selection.selected)
        state.threshold = selection.threshold
        self.threshold = selection.threshold
        self.decisions.append(
            Decision.of(
                state.step, self.scorer, selection.threshold, self.table.group[state.rows], len(self.group_names)
            )
        )

    def _record(self, state: StepState) -> None:
        """Write every scored agent to the ledger (before anyone acts)."""
        self.ledger_store.record(state.step, state.rows, state.features, state.scores, state.threshold, state.selected)

    def _leave(self, state: StepState) -> np.ndarray:
        """The selected agents leave for good (or, with an outcome component, borrow); return their ids."""
        winners = state.rows[state.selected]
        if self.outcome is not None:
            self._borrow(state, winners)
            return winners
        self.table.status[winners] = Status.SELECTED
        self.table.exit_step[winners] = state.step
        return winners

    def _borrow(self, state: StepState, winners: np.ndarray) -> None:
        """Resolve the winners' loans: move their features and record each loan in :attr:`loans`."""
        assert self.outcome is not None
        features = state.features[state.selected]
        group = self.table.group[winners]
        repay = repayment_of(self.population, features, group)
        if repay is None:
            raise ConfigError(
                "outcome",
                "the population gives no repayment probabilities",
                'use a population that gives them (name = "fico"), or remove [outcome]',
            )
        result = self.outcome.resolve(
            LoanContext(state.step, features, self.feature_names, repay, self._streams["outcome"])
        )
        self.table.features[winners] = result.features
        self._loans.append(
            pd.DataFrame(
                {
                    "step": np.full(winners.size, state.step, dtype=np.int64),
                    "agent_id": winners.astype(np.int64),
                    "group": pd.Categorical.from_codes(group, categories=list(self.group_names)),
                    "repay_probability": repay,
                    "repaid": np.asarray(result.repaid, dtype=bool),
                    "utility": np.asarray(result.utility, dtype=float),
                    **{f"{name}_before": features[:, j] for j, name in enumerate(self.feature_names)},
                    **{f"{name}_after": result.features[:, j] for j, name in enumerate(self.feature_names)},
                }
            )
        )

    def _reapply(self, state: StepState, borrowers: np.ndarray) -> None:
        """Borrowers rejoin the waiting agents (in id order), to be scored again at the next step."""
        threshold = state.threshold
        active = np.concatenate([self._active, borrowers])
        order = np.argsort(active, kind="stable")
        self._active = active[order]
        if not np.isscalar(self._active_threshold):
            theirs = np.asarray(threshold, dtype=float)[state.selected]
            self._active_threshold = np.concatenate([np.asarray(self._active_threshold), theirs])[order]

    def recommend(
        self, state: StepState, scorer: Scorer, scores: np.ndarray, threshold: float | np.ndarray
    ) -> np.ndarray:
        """Recommendations for the waiting agents under ``scorer`` at ``threshold`` (one per scored agent)."""
        waiting = state.waiting
        return np.asarray(
            self.recourse.recommend(state.features[waiting], scores[waiting], rows_of(threshold, waiting), scorer)
        )

    def act(
        self,
        state: StepState,
        recommendation: np.ndarray,
        scorer: Scorer,
        scores: np.ndarray,
        threshold: float | np.ndarray,
    ) -> None:
        """Move the waiting agents toward ``recommendation``; record it and the effort spent."""
        waiting = state.waiting
        stay = state.rows[waiting]
        before = state.features[waiting]
        new_features = self.behaviour.act(
            ActionContext(
                features=before,
                recommendation=recommendation,
                effort=self.table.effort[stay],
                scores=scores[waiting],
                threshold=rows_of(threshold, waiting),
                scorer=scorer,
                cost=self.recourse.cost,
                rng=self._streams["behaviour"],
                step=state.step,
            )
        )
        spent = self.recourse.cost(new_features - before)
        found = found_of(self.recourse, stay.size, "recourse")  # generators that report it: a valid one was found
        self.ledger_store.record_actions(waiting, recommendation, spent, found)
        self.table.features[stay] = new_features
        self.table.effort_spent[stay] += spent

    def retrain(self, state: StepState, recommendation: np.ndarray) -> None:
        """Replace the decision model by the trainer's refit on this step's data (no trainer: keep it)."""
        if self.trainer is None:
            return
        full = np.full(state.features.shape, np.nan)
        put_rows(full, state.waiting, recommendation)
        self.scorer = self.trainer.update(
            TrainingContext(
                step=state.step,
                features=state.features,
                group=self.table.group[state.rows],
                scores=state.scores,
                selected=state.selected,
                threshold=state.threshold,
                recommendation=full,
                scorer=self.scorer,
                rng=self._streams["training"],
            )
        )

    def reselect_threshold(self, state: StepState, scores: np.ndarray) -> float | np.ndarray:
        """The selector's threshold for ``scores`` of this step's agents (outcomes are not changed)."""
        context = self._selection_context(state.step, state.rows, state.features)
        return Selection.checked(self.selector.select(scores, context), scores.size).threshold

    def restate_threshold(self, state: StepState, threshold: float | np.ndarray) -> None:
        """Make ``threshold`` this step's threshold: in ``state``, the ledger and :attr:`threshold`."""
        state.threshold = threshold
        self.threshold = threshold
        self.ledger_store.restate_threshold(threshold)

    def _lose_patience(self, state: StepState) -> np.ndarray:
        """Waiting agents out of patience leave; the rest wait on. Return the ids that gave up."""
        stay = state.rows[state.waiting]
        threshold = state.threshold_of_waiting()
        gave_up = stay[:0]
        if self.patience is not None:
            tired = (state.step - self.table.entry_step[stay] + 1) >= self.patience
            gave_up = stay[tired]
            self.table.status[gave_up] = Status.GAVE_UP
            self.table.exit_step[gave_up] = state.step
            stay, threshold = stay[~tired], rows_of(threshold, ~tired)
        self._active, self._active_threshold = stay, threshold
        return gave_up

    def _observe(self, t: int) -> None:
        """Run the observers due this step on the waiting agents."""
        for observer in self.observers:
            if t % observer.every == 0:
                try:
                    result = observer.observe(self._snapshot(t))
                except ConfigError as error:
                    raise error.under(f"observers[{self.observers.index(observer)}]") from None
                self._observations.append(observation_rows(observer.name, t, result))

    def _admit_entrants(self, t: int, gone: np.ndarray) -> None:
        """Drop the views of agents that left; the step's entrants join (first scored at ``t + 1``)."""
        if self._views is not None:
            for agent_id in gone:
                self._views.pop(int(agent_id)).remove()
        if t < self.n_steps and self.entrants[t] > 0:
            cohort = self.population.sample(int(self.entrants[t]), self._streams["entrants"])
            entrants = self._admit(cohort, entry_step=t + 1)
            self._active = np.concatenate([self._active, entrants])
            if not np.isscalar(self._active_threshold):
                unscored = np.full(entrants.size, np.nan)
                self._active_threshold = np.concatenate([self._active_threshold, unscored])

    # ------------------------------------------------------------------ state

    def _admit(self, cohort: Cohort, entry_step: int) -> np.ndarray:
        cohort.check_features(self.feature_names)
        ids = self.table.append(cohort, entry_step)
        if self._views is not None:
            for agent_id in ids:
                self._views[int(agent_id)] = RecourseAgent(self, int(agent_id))
        return ids

    def _selection_context(self, t: int, rows: np.ndarray, features: np.ndarray) -> SelectionContext:
        table = self.table
        return SelectionContext(
            step=t,
            agent_id=rows,
            entry_step=table.entry_step[rows],
            group=table.group[rows],
            n_groups=len(self.group_names),
            features=features,
            initial_score=table.initial_score[rows],
            effort_spent=table.effort_spent[rows],
            repay=repayment_of(self.population, features, table.group[rows]),
        )

    @property
    def agents(self) -> mesa.agent.AgentSet:
        """The waiting agents as Mesa agents (views created on first access, then kept in sync)."""
        if self._views is None:
            self._views = {int(agent_id): RecourseAgent(self, int(agent_id)) for agent_id in self._active}
        return super().agents

    def unscored_score(self, agent_id: int) -> float:
        """The current decision model's score of a waiting agent not scored yet (an entrant of the latest step).

        All such agents are scored in one call, once per step, and only when asked for.
        """
        if self._unscored is None or self._unscored[0] != self.t:
            rows = self._active[np.isnan(self.table.score[self._active])]
            scores = np.asarray(self.scorer.score(self.table.features[rows]), dtype=float) if rows.size else rows
            self._unscored = (self.t, dict(zip(rows.tolist(), scores.tolist(), strict=True)))
        return self._unscored[1].get(int(agent_id), float("nan"))

    @property
    def waiting_ids(self) -> np.ndarray:
        """Ids of the agents currently waiting (a copy)."""
        return self._active.copy()

    def snapshot(self) -> PopulationSnapshot:
        """Return the waiting agents with the current decision model and their thresholds, for auditors."""
        return self._snapshot(self.t)

    def _snapshot(self, step: int) -> PopulationSnapshot:
        """The waiting agents at ``step`` (an observer's snapshot is of the step being run)."""
        ids = self._active
        threshold = self._active_threshold
        return PopulationSnapshot(
            step=step,
            agent_id=ids.copy(),
            features=self.table.features[ids].copy(),
            group=self.table.group[ids].copy(),
            feature_names=self.feature_names,
            group_names=self.group_names,
            scorer=self.scorer,
            threshold=threshold if np.isscalar(threshold) else np.array(threshold, dtype=float),
            rng=self._streams["observers"],
            ledger=self.ledger_store,
            group_of=self.table.group.copy(),
            initial_scorer=self.initial_scorer,
            schema=self.schema,
        )

    # ------------------------------------------------------------------ results

    @property
    def ledger(self) -> pd.DataFrame:
        """The ledger as a DataFrame: one row per (agent, step); see :class:`~recoursesim.ledger.Ledger`."""
        return self.ledger_store.to_frame(self.table.group, self.table.entry_step)

    @property
    def observations(self) -> pd.DataFrame:
        """Observer outputs: one row per (step, observer, group, metric)."""
        if not self._observations:
            return pd.DataFrame(columns=["step", "observer", "group", "metric", "value"])
        return pd.concat(self._observations, ignore_index=True)

    @property
    def loans(self) -> pd.DataFrame:
        """One row per loan (with an outcome component; empty otherwise).

        Columns: step, agent, group, repayment probability, whether it was repaid, the lender's
        utility, and each feature before and after (``score_before``, ``score_after``).
        """
        if not self._loans:
            return pd.DataFrame(columns=["step", "agent_id", "group", "repay_probability", "repaid", "utility"])
        return pd.concat(self._loans, ignore_index=True)

    def agent_frame(self) -> pd.DataFrame:
        """One row per agent ever entered: group, entry and exit step, status, effort capacity."""
        return self.table.frame(self.group_names)
