"""RecourseModel: the recourse-over-time loop as a Mesa model with columnar state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mesa
import numpy as np
import pandas as pd

from recoursesim._validate import check_int
from recoursesim.agent_table import AgentTable, Status
from recoursesim.agents import RecourseAgent
from recoursesim.behaviour.base import ActionContext, Behaviour
from recoursesim.errors import ConfigError, DataError
from recoursesim.ledger import Ledger
from recoursesim.observers import Observer, PopulationSnapshot, observation_rows
from recoursesim.populations.base import Cohort, PopulationGenerator
from recoursesim.recourse.base import RecourseGenerator
from recoursesim.rng import run_streams
from recoursesim.scoring.base import Scorer
from recoursesim.selection.base import Selection, SelectionContext, Selector
from recoursesim.training.base import Trainer, TrainingContext


class RecourseModel(mesa.Model):
    """Agents compete for ``k`` positive outcomes per step and act on recourse recommendations.

    Each call of :meth:`step` runs one step ``t`` of the loop (docs/model.md, "The loop"):

    1. score every waiting agent with the scorer;
    2. select (the selector returns the winners and the threshold ``s_t``);
    3. record every scored agent in the :class:`~recoursesim.ledger.Ledger`;
    4. the selected agents leave for good;
    5. every remaining agent gets a recommendation ``x'``;
    6. every remaining agent acts (the behaviour moves it; the effort spent is recorded);
    7. the trainer, if any, refits the decision model on this step's data;
    8. observers, if any, audit the population;
    9. the step's entrants join (first scored at ``t + 1``); agents out of patience leave.

    State is columnar (:class:`~recoursesim.agent_table.AgentTable`), and the step is one
    vectorised pass. :class:`~recoursesim.agents.RecourseAgent` views are created the first time
    :attr:`agents` is read and kept in sync from then on, so runs that never look at individual
    agents pay nothing for them.

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
        seed: The run seed (or a ``SeedSequence`` from a sweep); a run is a pure function of it.
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
        seed: int | np.random.SeedSequence = 0,
    ) -> None:
        streams = run_streams(seed)
        super().__init__(rng=streams["mesa"])
        self.seed = seed
        self.population = population
        self.scorer = scorer
        self.selector = selector
        self.recourse = recourse
        self.behaviour = behaviour
        self.trainer = trainer
        self.observers = tuple(observers)
        self.n_initial = check_int("population.initial", n_initial, minimum=1)
        self.n_steps = check_int("run.steps", n_steps, minimum=0)
        self.entrants = _entrants_schedule(entrants, self.n_steps)
        self.patience = None if patience is None else check_int("model.patience", patience, minimum=1)
        self._streams = streams
        self.feature_names = tuple(population.feature_names)
        self.group_names = tuple(population.group_names)
        self.t = 0
        self.threshold: float | np.ndarray = float("nan")
        self.table = AgentTable(len(self.feature_names), capacity=self.n_initial + int(self.entrants.sum()))
        self.ledger_store = Ledger(self.feature_names, self.group_names, record_recommendations)
        self._observations: list[pd.DataFrame] = []
        self._views: dict[int, RecourseAgent] | None = None
        population.fit(streams["population"])
        cohort = population.sample(self.n_initial, streams["population"])
        self._active = self._admit(cohort, entry_step=0)
        if trainer is not None and hasattr(trainer, "start"):
            self.scorer = trainer.start(
                self.table.features[self._active], self.table.group[self._active], scorer, streams["training"]
            )
        self.initial_scorer = self.scorer

    # ------------------------------------------------------------------ the loop

    def step(self) -> None:
        """Run one step ``t`` of the loop (see the class docstring) and advance ``t``."""
        if self.t > self.n_steps:
            raise RuntimeError(f"the run has ended after step T={self.n_steps}; build a new model to run again")
        t = self.t
        table = self.table
        rows = self._active
        features = table.features[rows]
        scores = np.asarray(self.scorer.score(features), dtype=float)
        if scores.shape != (rows.size,) or not np.all(np.isfinite(scores)):
            raise DataError("scorer", "returned scores that are not one finite number per agent", "check the scorer")
        table.score[rows] = scores
        fresh = table.entry_step[rows] == t
        table.initial_score[rows[fresh]] = scores[fresh]

        selection = self.selector.select(scores, self._selection_context(t, rows, features))
        selected = _checked_mask(selection, rows.size)
        self.threshold = selection.threshold
        self.ledger_store.record(t, rows, features, scores, selection.threshold, selected)

        winners = rows[selected]
        table.status[winners] = Status.SELECTED
        table.exit_step[winners] = t
        waiting = ~selected
        stay = rows[waiting]
        threshold = selection.threshold
        recommendation = self._recommend(features[waiting], scores[waiting], _rows_of(threshold, waiting), self.scorer)
        acting_scorer, acting_scores = self.scorer, scores
        order = getattr(self.trainer, "order", "spec") if self.trainer is not None else None
        if order in ("reference", "refit_before_acting"):
            # Refit first; agents then act under the refitted model. With "reference" (recgame's
            # FairCDA/ModelRetrain order) they also get the refitted model's recommendations, aimed
            # at its own cut-off on this step's population (same selector, same k).
            self.scorer = self._retrain(t, rows, features, scores, selected, threshold, recommendation, waiting)
            acting_scorer, acting_scores = self.scorer, np.asarray(self.scorer.score(features), dtype=float)
            if order == "reference":
                context = self._selection_context(t, rows, features)
                threshold = self.selector.select(acting_scores, context).threshold
                recommendation = self._recommend(
                    features[waiting], acting_scores[waiting], _rows_of(threshold, waiting), acting_scorer
                )
        new_features = self.behaviour.act(
            ActionContext(
                features=features[waiting],
                recommendation=recommendation,
                effort=table.effort[stay],
                scores=acting_scores[waiting],
                threshold=_rows_of(threshold, waiting),
                scorer=acting_scorer,
                cost=self.recourse.cost,
                rng=self._streams["behaviour"],
                step=t,
            )
        )
        spent = self.recourse.cost(new_features - features[waiting])
        self.ledger_store.record_actions(waiting, recommendation, spent)
        table.features[stay] = new_features
        table.effort_spent[stay] += spent

        if order == "spec":
            self.scorer = self._retrain(t, rows, features, scores, selected, threshold, recommendation, waiting)

        gave_up = stay[:0]
        if self.patience is not None:
            tired = (t - table.entry_step[stay] + 1) >= self.patience
            gave_up = stay[tired]
            table.status[gave_up] = Status.GAVE_UP
            table.exit_step[gave_up] = t
            stay = stay[~tired]

        for observer in self.observers:
            if t % observer.every == 0:
                self._observations.append(observation_rows(observer.name, t, observer.observe(self.snapshot(stay))))

        if self._views is not None:
            for agent_id in np.concatenate([winners, gave_up]):
                self._views.pop(int(agent_id)).remove()
        if t < self.n_steps and self.entrants[t] > 0:
            cohort = self.population.sample(int(self.entrants[t]), self._streams["entrants"])
            stay = np.concatenate([stay, self._admit(cohort, entry_step=t + 1)])
        self._active = stay
        self.t = t + 1
        self.running = self.t <= self.n_steps

    def run(self, until: int | None = None) -> RecourseModel:
        """Run steps up to and including step ``until`` (default ``T``, the end); return ``self``."""
        last = self.n_steps if until is None else min(int(until), self.n_steps)
        while self.t <= last:
            self.step()
        return self

    def _recommend(
        self, features: np.ndarray, scores: np.ndarray, threshold: float | np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        return np.asarray(self.recourse.recommend(features, scores, threshold, scorer))

    def _retrain(
        self,
        t: int,
        rows: np.ndarray,
        features: np.ndarray,
        scores: np.ndarray,
        selected: np.ndarray,
        threshold: float | np.ndarray,
        recommendation: np.ndarray,
        waiting: np.ndarray,
    ) -> Scorer:
        full = np.full(features.shape, np.nan)
        full[waiting] = recommendation
        return self.trainer.update(
            TrainingContext(
                step=t,
                features=features,
                group=self.table.group[rows],
                scores=scores,
                selected=selected,
                threshold=threshold,
                recommendation=full,
                scorer=self.scorer,
                rng=self._streams["training"],
            )
        )

    # ------------------------------------------------------------------ state

    def _admit(self, cohort: Cohort, entry_step: int) -> np.ndarray:
        features = np.asarray(cohort.features, dtype=float)
        if features.ndim != 2 or features.shape[1] != len(self.feature_names):
            raise DataError("population", f"produced features of shape {features.shape}", "check the generator")
        if not np.all(np.isfinite(features)):
            bad = self.feature_names[int(np.flatnonzero(~np.isfinite(features).all(axis=0))[0])]
            raise DataError(f"population.{bad}", "a generated feature is NaN or infinite", "check its parameters")
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
        )

    @property
    def agents(self) -> mesa.agent.AgentSet:
        """The waiting agents as Mesa agents (views created on first access, then kept in sync)."""
        if self._views is None:
            self._views = {int(agent_id): RecourseAgent(self, int(agent_id)) for agent_id in self._active}
        return super().agents

    @property
    def waiting_ids(self) -> np.ndarray:
        """Ids of the agents currently waiting (a copy)."""
        return self._active.copy()

    def snapshot(self, ids: np.ndarray | None = None) -> PopulationSnapshot:
        """Return the waiting agents (or ``ids``) with the current decision model, for auditors."""
        ids = self._active if ids is None else ids
        return PopulationSnapshot(
            step=self.t,
            agent_id=ids.copy(),
            features=self.table.features[ids].copy(),
            group=self.table.group[ids].copy(),
            feature_names=self.feature_names,
            group_names=self.group_names,
            scorer=self.scorer,
            threshold=self.threshold,
            rng=self._streams["observers"],
            ledger=self.ledger_store,
            group_of=self.table.group.copy(),
            initial_scorer=self.initial_scorer,
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

    def agent_frame(self) -> pd.DataFrame:
        """One row per agent ever entered: group, entry and exit step, status, effort capacity."""
        table = self.table
        return pd.DataFrame(
            {
                "agent_id": np.arange(table.n, dtype=np.int64),
                "group": pd.Categorical.from_codes(table.group.astype(np.int64), categories=list(self.group_names)),
                "entry_step": table.entry_step.copy(),
                "exit_step": table.exit_step.copy(),
                "status": pd.Categorical.from_codes(
                    table.status.astype(np.int64), categories=[s.name.lower() for s in Status]
                ),
                "effort_capacity": table.effort.copy(),
            }
        )


def _entrants_schedule(entrants: Any, n_steps: int) -> np.ndarray:
    if isinstance(entrants, int | np.integer) and not isinstance(entrants, bool):
        count = check_int("population.entrants", entrants, minimum=0)
        return np.full(n_steps, count, dtype=np.int64)
    if isinstance(entrants, Sequence) and not isinstance(entrants, str):
        values = [check_int(f"population.entrants[{i}]", v, minimum=0) for i, v in enumerate(entrants)]
        if len(values) != n_steps:
            raise ConfigError(
                "population.entrants",
                f"lists {len(values)} steps but the run has T={n_steps} (entrants join after steps 0..T-1)",
                f"give exactly {n_steps} numbers, or one number for every step",
            )
        return np.asarray(values, dtype=np.int64)
    raise ConfigError(
        "population.entrants", f"must be a whole number or a list, got {entrants!r}", "write entrants = 100"
    )


def _rows_of(threshold: float | np.ndarray, rows: np.ndarray) -> float | np.ndarray:
    """A scalar threshold as is; a per-agent threshold restricted to ``rows``."""
    return threshold if np.isscalar(threshold) else np.asarray(threshold)[rows]


def _checked_mask(selection: Selection, n: int) -> np.ndarray:
    mask = np.asarray(selection.selected)
    if mask.dtype != bool or mask.shape != (n,):
        raise ConfigError("selection", "the selector must return one boolean per agent", "fix the selector")
    threshold = selection.threshold
    if not np.isscalar(threshold) and np.shape(threshold) != (n,):
        raise ConfigError("selection", "the threshold must be a scalar or one value per agent", "fix the selector")
    return mask
