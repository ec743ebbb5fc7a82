"""Per-step ground truth: precision of the decisions, improvement and gaming after recourse."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np
import pandas as pd

from recoursesim._validate import check_choice, check_float, check_int, check_table
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.groundtruth.outcome import (
    OUTCOMES,
    DecisionOutcome,
    FittedOutcome,
    LinearOutcome,
    OutcomeModel,
    check_feature_names,
    labelled_rows,
    weight_vector,
)
from recoursesim.ledger import StepRecord
from recoursesim.observers import PopulationSnapshot
from recoursesim.registry import register
from recoursesim.shift._common import check_name, cut_off, rows, run_ledger

if TYPE_CHECKING:
    from recoursesim.features.schema import FeatureSchema

#: Counts the observer reports per group, in order.
COUNTS: tuple[str, ...] = (
    "n_selected",
    "n_selected_qualified",
    "n_recourse_success",
    "n_success_improved",
    "n_success_gamed",
    "n_success_already",
    "n_acted",
    "n_acted_improved",
)


@register("observer", "ground_truth")
class GroundTruthObserver(Component):
    """Tracks each agent's true features and true qualification next to the decision model's verdict.

    Every agent enters with true features equal to its features. When it moves, only the moves of
    *causal* features change its true features; moves of the other features change only what the
    decision model sees. The outcome model says who is truly qualified:

    - ``"linear"``: ``weights · z >= cutoff`` (a stated function of the latent qualification, for
      synthetic populations);
    - ``"decision"``: the step-0 decision model's score ``>= cutoff`` (default: the step-0 cut-off);
    - ``"fitted"``: a logistic regression fitted on every labelled row of the population's data
      set, ``P(y = 1) >= cutoff`` (default 0.5) — an assumption about the world, documented as one.

    Per step and group it counts the selected and the truly qualified among them (precision), the
    agents selected after acting on recourse at least once ("recourse successes"), split into
    improved (unqualified on entry, qualified now), gamed (not qualified now) and already qualified,
    and the agents who moved this step and the share of them who became qualified by the move
    (improvement rate). The observer reads the ledger, so with ``every > 1`` the rows at step ``t``
    cover every step since the previous observation.

    Args:
        outcome: ``"linear"``, ``"decision"`` or ``"fitted"``.
        weights: ``{feature: weight}`` for the linear outcome.
        cutoff: The qualification cut-off (required for ``"linear"``).
        causal: Features whose moves change the true outcome (default: all of them).
        every: Observe every ``every`` steps.
        name: Observer name in the observations.

    :meth:`bind` reads the run's feature names (``causal`` and ``weights`` must name features) and,
    for ``"fitted"``, its population's labelled rows.
    """

    #: Parameters the conformance checks build it with (their run is the bell2024 world).
    check_params: ClassVar[dict[str, Any]] = {
        "outcome": "linear",
        "weights": {"x0": 1.0},
        "cutoff": 0.5,
        "causal": ["x0"],
    }

    def __init__(
        self,
        outcome: str = "linear",
        weights: Mapping[str, float] | None = None,
        cutoff: float | None = None,
        causal: Sequence[str] | None = None,
        every: int = 1,
        name: str = "ground_truth",
    ) -> None:
        self.outcome = outcome
        check_choice("outcome", outcome, OUTCOMES)
        self.weights = weights
        if weights is not None:
            check_table("weights", weights)
        self.cutoff = cutoff
        self._cutoff = None if cutoff is None else check_float("cutoff", cutoff)
        if causal is not None and (isinstance(causal, str) or not isinstance(causal, Sequence)):
            raise ConfigError("causal", f"must be a list of feature names, got {causal!r}", 'write causal = ["x0"]')
        self.causal = causal
        self._causal = None if causal is None else tuple(causal)
        self.every = every
        check_int("every", every, minimum=1)
        self.name = name
        check_name(name)
        if self.outcome == "linear" and (weights is None or self._cutoff is None):
            raise ConfigError(
                "weights", "the linear outcome needs weights and a cutoff", "add weights = {...} and cutoff = ..."
            )
        if self.outcome != "linear" and weights is not None:
            raise ConfigError("weights", f"only the linear outcome takes weights, not {outcome!r}", "remove weights")
        self._labelled: tuple[np.ndarray, np.ndarray] | None = None
        self._schema: FeatureSchema | None = None
        self._features: tuple[str, ...] | None = None
        self._state: _Tracker | None = None

    def bind(self, context: RunContext) -> Self:
        """Check the feature names against the run's; keep the labelled rows for ``"fitted"``."""
        self._schema = context.schema
        if self.outcome == "fitted":
            self._labelled = labelled_rows(context.population)
            if self._labelled is None:
                raise ConfigError(
                    "outcome", "\"fitted\" needs a population with labels, and this one has none",
                    'use a labelled data set population, or outcome = "linear" / "decision"',
                )  # fmt: skip
        self._check_names(context.feature_names)
        self._state = None
        return self

    def _check_names(self, feature_names: tuple[str, ...]) -> None:
        if self._causal is not None:
            check_feature_names("causal", self._causal, feature_names)
        if self.weights is not None:
            weight_vector(self.weights, feature_names)
        self._features = feature_names

    def observe(self, snapshot: PopulationSnapshot) -> pd.DataFrame:
        """Return rows ``group, metric, value`` (group NA is everyone).

        The metrics are the counts of :data:`COUNTS` and ``precision``, ``gaming_rate`` and
        ``improvement_rate`` (NaN when their denominator is 0).
        """
        ledger = run_ledger(snapshot)
        if self._state is None or snapshot.step == 0:
            if self._features != tuple(snapshot.feature_names):
                self._check_names(tuple(snapshot.feature_names))
            self._state = _Tracker(self._outcome_model(snapshot), self._causal_mask(), len(snapshot.group_names))
        tracker = self._state
        tracker.grow(np.asarray(snapshot.group_of))
        counts = np.zeros((len(snapshot.group_names), len(COUNTS)))
        for index in range(tracker.cursor, ledger.n_steps):
            tracker.process(ledger.step_record(index), counts)
        tracker.process_current(snapshot, counts)
        return _rows(counts, snapshot.group_names)

    def qualified_when_scored(self, agent_id: np.ndarray) -> np.ndarray:
        """Whether each agent was truly qualified at its latest scoring (False for agents not scored yet)."""
        if self._state is None:
            return np.zeros(np.shape(agent_id), dtype=bool)
        return self._state.qualified[np.asarray(agent_id, dtype=np.int64)]

    def _outcome_model(self, snapshot: PopulationSnapshot) -> OutcomeModel:
        names = tuple(snapshot.feature_names)
        if self.outcome == "linear":
            return LinearOutcome(weight_vector(self.weights, names), float(self._cutoff))  # type: ignore[arg-type]
        if self.outcome == "fitted":
            features, labels = self._labelled  # type: ignore[misc]
            kinds = self._schema.kinds if self._schema is not None else ()
            categorical = [j for j, kind in enumerate(kinds) if kind == "categorical"]
            return FittedOutcome(features, labels, 0.5 if self._cutoff is None else self._cutoff, categorical)
        if snapshot.initial_scorer is None:
            raise ConfigError("outcome", '"decision" needs the step-0 decision model', "run inside a RecourseModel")
        cutoff = self._cutoff if self._cutoff is not None else cut_off(run_ledger(snapshot).step_record(0).threshold)
        return DecisionOutcome(snapshot.initial_scorer, cutoff)

    def _causal_mask(self) -> np.ndarray:
        names = self._features or ()
        if self._causal is None:
            return np.ones(len(names))
        return np.array([name in self._causal for name in names], dtype=float)


class _Tracker:
    """Per-agent true features and qualification, updated from the ledger one step at a time."""

    def __init__(self, outcome: OutcomeModel, causal: np.ndarray, n_groups: int) -> None:
        self.outcome = outcome
        self.causal = causal
        self.n_groups = n_groups
        self.cursor = 0  # next ledger step to read
        self.counted_actions = -1  # actions of steps up to this one are counted
        d = causal.shape[0]
        self.group = np.empty(0, dtype=np.int64)
        self.seen = np.zeros(0, dtype=bool)
        self.last = np.empty((0, d))
        self.true = np.empty((0, d))
        self.entry_qualified = np.zeros(0, dtype=bool)
        self.qualified = np.zeros(0, dtype=bool)

    def grow(self, group_of: np.ndarray) -> None:
        n, old = group_of.shape[0], self.seen.shape[0]
        self.group = group_of.astype(np.int64)
        if n <= old:
            return
        for name in ("seen", "last", "true", "entry_qualified", "qualified"):
            array = getattr(self, name)
            setattr(self, name, np.concatenate([array, np.zeros((n - old, *array.shape[1:]), dtype=array.dtype)]))

    def process(self, record: StepRecord, counts: np.ndarray) -> None:
        """Read one ledger step: moves since the agents' previous scoring, then this step's selection."""
        ids = np.asarray(record.agent_id, dtype=np.int64)
        features = np.asarray(record.features, dtype=float)
        new = ~self.seen[ids]
        old_ids = ids[~new]
        moved = np.any(features[~new] != self.last[old_ids], axis=1)
        self.true[old_ids] += (features[~new] - self.last[old_ids]) * self.causal
        self.true[ids[new]] = features[new]
        self.entry_qualified[ids[new]] = self.outcome.qualified(features[new]) if new.any() else False
        now = np.asarray(self.outcome.qualified(self.true[ids]), dtype=bool) if ids.size else np.zeros(0, dtype=bool)
        if record.step - 1 > self.counted_actions:
            before = self.qualified[old_ids]
            self._add(counts, old_ids[moved], "n_acted")
            self._add(counts, old_ids[moved & ~before & now[~new]], "n_acted_improved")
            self.counted_actions = record.step - 1
        self.last[ids] = features
        self.seen[ids] = True
        self.qualified[ids] = now
        selected = np.asarray(record.selected, dtype=bool)
        success = selected & ~new
        entry = self.entry_qualified[ids]
        for name, mask in (
            ("n_selected", selected),
            ("n_selected_qualified", selected & now),
            ("n_recourse_success", success),
            ("n_success_improved", success & now & ~entry),
            ("n_success_gamed", success & ~now),
            ("n_success_already", success & now & entry),
        ):
            self._add(counts, ids[mask], name)
        self.cursor = record.step + 1

    def process_current(self, snapshot: PopulationSnapshot, counts: np.ndarray) -> None:
        """Count this step's moves from the snapshot (the agents' features after acting)."""
        ids = np.asarray(snapshot.agent_id, dtype=np.int64)
        features = np.asarray(snapshot.features, dtype=float)
        scored = self.seen[ids]  # entrants not scored yet have not acted
        ids, features = ids[scored], features[scored]
        moved = np.any(features != self.last[ids], axis=1)
        true = self.true[ids] + (features - self.last[ids]) * self.causal
        after = np.asarray(self.outcome.qualified(true), dtype=bool) if ids.size else np.zeros(0, dtype=bool)
        self._add(counts, ids[moved], "n_acted")
        self._add(counts, ids[moved & ~self.qualified[ids] & after], "n_acted_improved")
        self.counted_actions = snapshot.step

    def _add(self, counts: np.ndarray, ids: np.ndarray, name: str) -> None:
        counts[:, COUNTS.index(name)] += np.bincount(self.group[ids], minlength=self.n_groups)[: self.n_groups]


def _rows(counts: np.ndarray, group_names: Sequence[str]) -> pd.DataFrame:
    entries: list[tuple[object, str, float]] = []
    labels: list[object] = [pd.NA, *group_names]
    for label, values in zip(labels, [counts.sum(axis=0), *counts], strict=True):
        named = dict(zip(COUNTS, values, strict=True))
        entries += [(label, metric, float(value)) for metric, value in named.items()]
        entries += [
            (label, "precision", _ratio(named["n_selected_qualified"], named["n_selected"])),
            (label, "gaming_rate", _ratio(named["n_success_gamed"], named["n_recourse_success"])),
            (label, "improvement_rate", _ratio(named["n_acted_improved"], named["n_acted"])),
        ]
    return rows(entries)


def _ratio(numerator: float, denominator: float) -> float:
    return float(numerator / denominator) if denominator > 0 else float("nan")
