"""One dashboard run: the model driven step by step, its live metrics, and the two agents of the story."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.dashboard.settings import DashboardSettings
from recoursesim.engine.model import RecourseModel
from recoursesim.groundtruth.observer import GroundTruthObserver
from recoursesim.ledger import by_applicant
from recoursesim.metrics import recourse_over_time
from recoursesim.metrics.market_table import market_table
from recoursesim.scenario import Scenario

#: The longest horizon (steps after issue) the durability view follows.
DURABILITY_HORIZON = 5
#: The horizons whose validity the durability panel draws.
DURABILITY_HORIZONS = (1, 3, 5)
#: Names given to the two agents the story follows (Bell et al. 2024, §1).
STORY_NAMES = ("Anne", "Dawn")
#: Columns of :meth:`DashboardSession.story_frame`.
STORY_COLUMNS = [
    "name", "agent_id", "group", "step", "score", "threshold", "gap", "selected", "recommended_move", "effort",
]  # fmt: skip


@dataclass(frozen=True)
class StoryAgent:
    """An agent the story mode follows.

    Attributes:
        name: ``"Anne"`` (rejected at step 0 just below the cut-off) or ``"Dawn"`` (far below it).
        agent_id: The agent's id.
        group: The agent's group name.
    """

    name: str
    agent_id: int
    group: str


@dataclass(frozen=True)
class DurabilityView:
    """The durability panel's tables for one step of the run.

    Attributes:
        fates: :func:`~recoursesim.durability.recommendation_fates` of the run so far.
        by_step: Validity ``h`` steps after issue per issue step and group
            (:func:`~recoursesim.durability.durability_by_step`, ``h`` in :data:`DURABILITY_HORIZONS`).
        curves: Kaplan–Meier survival per group (:func:`~recoursesim.durability.survival_by_group`).
    """

    fates: pd.DataFrame
    by_step: pd.DataFrame
    curves: pd.DataFrame


class DashboardSession:
    """A :class:`RecourseModel` built from :class:`DashboardSettings`, stepped by the dashboard.

    Every number shown comes from the model's own ledger and observations, through the same
    metric functions as ``recoursesim run``.

    Args:
        settings: The dashboard's controls.

    Raises:
        ConfigError: The settings do not make a valid scenario.
    """

    def __init__(self, settings: DashboardSettings) -> None:
        self.settings = settings
        self.scenario: Scenario = settings.to_scenario()
        self.model: RecourseModel = self.scenario.build_model(settings.seed)
        self._ledger: pd.DataFrame | None = None
        self._fates: pd.DataFrame | None = None
        self._view: DurabilityView | None = None
        self._market: pd.DataFrame | None = None
        # Play steps the model in a worker thread while the page draws: the fates are read under
        # the same lock as a step, so they never see a step half done.
        self._lock = threading.Lock()
        self.story: tuple[StoryAgent, ...] = ()

    @property
    def t(self) -> int:
        """The next step to run (the number of steps run so far)."""
        return int(self.model.t)

    @property
    def finished(self) -> bool:
        """Whether the run has reached its last step."""
        return not self.model.running or self.model.t > self.model.n_steps

    def step(self) -> bool:
        """Run one step if the run has not finished; return whether a step ran."""
        if self.finished:
            return False
        with self._lock:
            self.model.step()
            self._ledger = None
            self._fates = None
            self._market = None
        if not self.story:
            self.story = self._choose_story()
        return True

    @property
    def ledger(self) -> pd.DataFrame:
        """The model's ledger so far (cached until the next step)."""
        if self._ledger is None:
            self._ledger = self.model.ledger
        return self._ledger

    @property
    def applicant_ledger(self) -> pd.DataFrame:
        """One row per (step, agent): in a market, the ledger folded per applicant (selected = by any lender)."""
        return by_applicant(self.ledger)

    @property
    def is_market(self) -> bool:
        """Whether the run is a market of several lenders."""
        return "market" in self.scenario.spec

    def metrics(self) -> pd.DataFrame:
        """ETR_t, TTR_t, rETR_t, dTTR_t and selection rates per (step, group) so far (the market's, in a market)."""
        return recourse_over_time(
            self.applicant_ledger, effort=self.scenario.effort_measure, reference_group=self.scenario.reference_group
        )

    def market(self) -> pd.DataFrame:
        """The market table so far (:func:`~recoursesim.metrics.market_table.market_table`; cached until the next step).

        Per step, lender (and ``market``) and group (and ``all``): selection and recourse rates,
        systemic exclusion, homogenization, portability and ETR/TTR. What the lenders panel draws.
        """
        with self._lock:
            if self._market is None:
                self._market = market_table(
                    self.ledger, list(self.model.group_names), effort=self.scenario.effort_measure,
                    reference_group=self.scenario.reference_group,
                )  # fmt: skip
            return self._market

    def durability_view(self) -> DurabilityView:
        """What the durability panel draws, computed once per step from :meth:`durability`'s columns.

        A page redraws far more often than the model steps (every control, every toggle), so the
        per-step tables are kept until the next step and each redraw only reads them.
        """
        from recoursesim.durability import durability_by_step, survival_by_group

        fates = self.durability()
        with self._lock:
            if self._view is None or self._view.fates is not fates:
                self._view = DurabilityView(
                    fates,
                    durability_by_step(fates, DURABILITY_HORIZONS).astype({"group": str}),
                    survival_by_group(fates).astype({"group": str}),
                )
            return self._view

    def durability(self) -> pd.DataFrame:
        """The fate of every recommendation issued so far (:func:`~recoursesim.durability.recommendation_fates`).

        Judged under the decisions of the steps run so far, so validity ``h`` steps after issue is
        known only for recommendations issued at least ``h`` steps ago (cached until the next step;
        empty before the first step).
        """
        from recoursesim.durability import recommendation_fates

        with self._lock:
            if self._fates is None:
                self._fates = recommendation_fates(self.model, horizon=DURABILITY_HORIZON)
            return self._fates

    def latest(self) -> pd.DataFrame:
        """The ledger rows of the latest step run, one per agent (empty before the first step)."""
        ledger = self.applicant_ledger
        if ledger.empty:
            return ledger
        return ledger.loc[ledger["step"] == ledger["step"].max()]

    def waiting(self) -> pd.DataFrame:
        """The agents waiting now: features and group (the population the next step will score)."""
        ids = self.model.waiting_ids
        table = self.model.table
        frame = pd.DataFrame(table.features[ids], columns=list(self.model.feature_names))
        frame["group"] = [self.model.group_names[g] for g in table.group[ids]]
        frame["agent_id"] = ids
        return frame

    def true_qualification(self, agent_id: np.ndarray) -> np.ndarray | None:
        """Whether each agent was truly qualified when last scored (``None`` before the first step)."""
        observer = next((o for o in self.model.observers if isinstance(o, GroundTruthObserver)), None)
        if observer is None or self.ledger.empty:
            return None
        return observer.qualified_when_scored(np.asarray(agent_id))

    def auditor(self) -> pd.DataFrame:
        """Equality-of-effort observations so far: one row per (step, group, metric)."""
        observations = self.model.observations
        return observations.assign(group=observations["group"].astype(object))

    def story_frame(self) -> pd.DataFrame:
        """The story agents' history: one row per (agent, step) with score, cut-off, move and effort.

        Columns: ``name, agent_id, group, step, score, threshold, gap`` (cut-off − score),
        ``selected``, ``recommended_move`` (distance to the recommendation) and ``effort``.
        """
        ledger = self.applicant_ledger
        names = list(self.model.feature_names)
        rows = []
        for agent in self.story:
            history = ledger.loc[ledger["agent_id"] == agent.agent_id].sort_values("step")
            move = np.linalg.norm(history[[f"rec_{n}" for n in names]].to_numpy() - history[names].to_numpy(), axis=1)
            gap = history["threshold"] - history["score"]
            moved = np.where(history["selected"].to_numpy(), 0.0, move)
            rows.append(
                history.assign(name=agent.name, group=agent.group, gap=gap, recommended_move=moved)[STORY_COLUMNS]
            )
        return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=STORY_COLUMNS)

    def story_text(self) -> list[str]:
        """One plain sentence per story agent saying where they stand now."""
        frame = self.story_frame()
        lines = []
        for agent in self.story:
            mine = frame.loc[frame["name"] == agent.name]
            first = mine.iloc[0]
            won = mine.loc[mine["selected"]]
            start = (
                f"{agent.name} ({agent.group}) started {first['gap']:.3f} below the cut-off "
                f"at step {int(first['step'])}"
            )
            if not won.empty:
                step = int(won["step"].iloc[0])
                lines.append(
                    f"{start}; selected at step {step} after {step - int(first['step'])} steps "
                    f"and {mine['effort'].sum():.3f} effort."
                )
            else:
                lines.append(
                    f"{start}; still waiting after {len(mine)} steps, {mine['gap'].iloc[-1]:.3f} below the "
                    f"cut-off, {mine['effort'].sum():.3f} effort spent so far."
                )
        return lines

    def _choose_story(self) -> tuple[StoryAgent, ...]:
        """Anne: the rejected agent closest below the first cut-off; Dawn: a rejected agent far below it."""
        first = self.latest()
        rejected = first.loc[~first["selected"]].sort_values(["score", "agent_id"], ascending=[False, True])
        if len(rejected) < 2:
            return ()
        anne = rejected.iloc[0]
        dawn = rejected.iloc[int(0.95 * (len(rejected) - 1))]
        return tuple(
            StoryAgent(name, int(row["agent_id"]), str(row["group"]))
            for name, row in zip(STORY_NAMES, (anne, dawn), strict=True)
        )
