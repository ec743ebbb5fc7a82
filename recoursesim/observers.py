"""Per-step observers: auditors that look at the simulated population while it runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

import numpy as np
import pandas as pd

from recoursesim.ledger import Ledger
from recoursesim.scoring.base import Scorer

if TYPE_CHECKING:
    from recoursesim.component import RunContext
    from recoursesim.features.schema import FeatureSchema


@dataclass(frozen=True)
class PopulationSnapshot:
    """The agents waiting at the end of a step, and the decision model that will score them next.

    Attributes:
        step: The step just completed.
        agent_id: Ids of the waiting agents.
        features: ``(n, d)`` their features after acting.
        group: Their group codes.
        feature_names: Feature names.
        group_names: Group names, indexed by code.
        scorer: The decision model for the next step.
        threshold: The threshold of the latest selection: a scalar, or one value per snapshot
            agent (the threshold it faced when last scored; NaN for an agent not scored yet).
        rng: A random stream reserved for observers.
        ledger: The run's ledger so far (steps ``0 … step``), read only: features at scoring time,
            scores, thresholds, outcomes and effort per step. ``None`` outside a model run.
        group_of: Group code of every agent id entered so far (indexed by id), or ``None``.
        initial_scorer: The decision model that scored step 0, or ``None``.
        schema: The population's :class:`~recoursesim.features.FeatureSchema` (mixed-type
            populations; ``features`` are then in its code space), or ``None``.
    """

    step: int
    agent_id: np.ndarray
    features: np.ndarray
    group: np.ndarray
    feature_names: tuple[str, ...]
    group_names: tuple[str, ...]
    scorer: Scorer
    threshold: float | np.ndarray
    rng: np.random.Generator
    ledger: Ledger | None = None
    group_of: np.ndarray | None = None
    initial_scorer: Scorer | None = None
    schema: FeatureSchema | None = None

    def agent_thresholds(self) -> np.ndarray:
        """The threshold as one value per snapshot agent (a scalar threshold repeated)."""
        return np.broadcast_to(np.asarray(self.threshold, dtype=float), self.group.shape).copy()

    def frame(self) -> pd.DataFrame:
        """Return features and group as a DataFrame (group as a categorical of names).

        With a schema, the features are in the data set's own values (categories as categories).
        """
        if self.schema is not None:
            frame = self.schema.decode(self.features)
        else:
            frame = pd.DataFrame(self.features, columns=list(self.feature_names))
        frame["group"] = pd.Categorical.from_codes(self.group.astype(np.int64), categories=list(self.group_names))
        return frame


@runtime_checkable
class Observer(Protocol):
    """Audits the population every ``every`` steps.

    ``observe`` returns ``{metric: value}`` or a DataFrame with columns ``metric`` and ``value``
    (and optionally ``group``); the model stores the rows, tagged with the step and the
    observer's ``name``, in :attr:`RecourseModel.observations`.
    """

    name: str
    every: int

    def observe(self, snapshot: PopulationSnapshot) -> Mapping[str, float] | pd.DataFrame:
        """Audit one snapshot."""
        ...

    def bind(self, context: RunContext) -> Self:
        """Learn what it needs from the run when the model is built (default: nothing; see ``Component.bind``)."""
        return self


def observation_rows(name: str, step: int, result: Mapping[str, float] | pd.DataFrame) -> pd.DataFrame:
    """Normalise an observer's result to rows ``step, observer, group, metric, value``."""
    if isinstance(result, pd.DataFrame):
        frame = result.copy()
        if "group" not in frame:
            frame["group"] = pd.NA
    else:
        frame = pd.DataFrame({"metric": list(result), "value": [float(v) for v in result.values()]})
        frame["group"] = pd.NA
    frame["step"] = step
    frame["observer"] = name
    return frame[["step", "observer", "group", "metric", "value"]]
