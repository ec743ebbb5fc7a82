"""Mesa agents as thin views over rows of the model's columnar state."""

from __future__ import annotations

from typing import Protocol

import mesa
import numpy as np

from recoursesim.engine.agent_table import AgentTable, Status


class ViewedModel(Protocol):
    """What an agent view reads of its model (a :class:`~recoursesim.engine.model.RecourseModel` has it)."""

    @property
    def table(self) -> AgentTable:
        """The columnar state, one row per agent."""

    @property
    def group_names(self) -> tuple[str, ...]:
        """The group names, by group code."""

    def unscored_score(self, agent_id: int) -> float:
        """The current decision model's score of a waiting agent not scored yet."""


class RecourseAgent(mesa.Agent):
    """One applicant, as a view over its row of :attr:`RecourseModel.table`.

    The agent holds no state of its own: every attribute reads the model's arrays, so the
    vectorised step and Mesa's tools (``model.agents``, ``AgentSet.select``, ``DataCollector``)
    see the same numbers. ``unique_id`` equals the ledger's ``agent_id``. The attributes are
    read-only: agents move only in the model's vectorised step.
    """

    model: ViewedModel

    def __init__(self, model: ViewedModel, agent_id: int) -> None:
        super().__init__(model)
        self.unique_id = int(agent_id)
        self.row = int(agent_id)

    @property
    def features(self) -> np.ndarray:
        """Current features (a read-only view)."""
        view = self.model.table.features[self.row]
        view.flags.writeable = False
        return view

    @property
    def score(self) -> float:
        """Score at the latest step the agent was scored.

        An agent that joined after the latest step has not been scored yet: its score is the one
        the current decision model gives it, which is the score it gets at the next step.
        """
        value = float(self.model.table.score[self.row])
        return self.model.unscored_score(self.row) if np.isnan(value) else value

    @property
    def group(self) -> str:
        """Group name."""
        return self.model.group_names[int(self.model.table.group[self.row])]

    @property
    def effort(self) -> float:
        """Effort capacity drawn on entry."""
        return float(self.model.table.effort[self.row])

    @property
    def effort_spent(self) -> float:
        """Total feature-space cost the agent has spent acting on recommendations."""
        return float(self.model.table.effort_spent[self.row])

    @property
    def entry_step(self) -> int:
        """Step at which the agent was first scored."""
        return int(self.model.table.entry_step[self.row])

    @property
    def status(self) -> Status:
        """Waiting, selected or gave up."""
        return Status(int(self.model.table.status[self.row]))

    @property
    def waiting(self) -> bool:
        """Whether the agent is still in the system."""
        return self.status is Status.WAITING

    def step(self) -> None:
        """Agents do not step one by one: the model moves all of them in one vectorised pass."""
