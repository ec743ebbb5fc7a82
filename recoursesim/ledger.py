"""The ledger: one record per (agent, step), kept as columns, the source of every metric."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from recoursesim._categories import category_dtype
from recoursesim.output.atomic import replacing
from recoursesim.output.folder import GENERATOR_METADATA

if TYPE_CHECKING:
    from recoursesim.features.schema import FeatureSchema


@dataclass(frozen=True)
class StepRecord:
    """What the ledger holds about one step (arrays are read-only views).

    Attributes:
        step: The step ``t``.
        agent_id: Ids of the agents scored at ``t``.
        features: ``(n, d)`` their features at scoring time (before acting).
        score: Their scores under the decision model of step ``t``.
        threshold: The cut-off ``s_t`` (scalar, or one value per scored agent).
        selected: Who was selected.
        effort: Effort each agent spent acting during ``t`` (0 for the selected; filled in once they acted).
    """

    step: int
    agent_id: np.ndarray
    features: np.ndarray
    score: np.ndarray
    threshold: float | np.ndarray
    selected: np.ndarray
    effort: np.ndarray


@dataclass(slots=True)
class _StepColumns:
    """The ledger's own storage of one step (``recommendation``: rows of the waiting agents).

    ``record`` holds the ledger's writable arrays (``effort`` is filled in after acting); callers
    get read-only views of them from :meth:`Ledger.step_record`.
    """

    record: StepRecord
    recommendation: np.ndarray | None = None
    found: np.ndarray | None = None  # rows of the waiting agents, from generators that report it
    lender: np.ndarray | None = None  # a market's rows: the lender code of each row
    waiting: np.ndarray | None = None  # a market's rows: still waiting after the step (else: not selected)
    acted: np.ndarray | None = None  # a market's rows: the recommendation the agent acted on


class Ledger:
    """Columnar record of every agent at every step it was in the system.

    A step's record holds, for each agent scored at step ``t``: its features and score at
    scoring time, the threshold, the outcome (``selected``), the recommendation it received
    (NaN for selected agents) and the effort it spent acting on it during step ``t``
    (feature-space cost of the move ``x_t → x_{t+1}``; 0 for selected agents).

    Args:
        feature_names: Feature column names.
        group_names: Group labels, indexed by group code.
        record_recommendations: Keep the recommendation columns (they are half the ledger's size).
        schema: The population's :class:`~recoursesim.features.FeatureSchema`: the frame then shows
            features and recommendations in the data set's own values (categories as categories).
        lender_names: A declared market's lenders: one row per (agent, step, lender applied to),
            with the ``lender`` and ``acted`` columns (``None``: one row per (agent, step)).
    """

    def __init__(
        self,
        feature_names: Sequence[str],
        group_names: Sequence[str],
        record_recommendations: bool = True,
        schema: FeatureSchema | None = None,
        lender_names: Sequence[str] | None = None,
    ) -> None:
        self.feature_names = tuple(feature_names)
        self.lender_names = None if lender_names is None else tuple(lender_names)
        self.group_names = tuple(group_names)
        self.record_recommendations = record_recommendations
        self.schema = schema
        self._steps: list[_StepColumns] = []

    def __len__(self) -> int:
        return int(sum(chunk.record.agent_id.shape[0] for chunk in self._steps))

    @property
    def n_steps(self) -> int:
        """Number of steps recorded."""
        return len(self._steps)

    def record(
        self,
        step: int,
        agent_id: np.ndarray,
        features: np.ndarray,
        scores: np.ndarray,
        threshold: float | np.ndarray,
        selected: np.ndarray,
        lender: np.ndarray | None = None,
    ) -> None:
        """Record the state of the scored agents at ``step`` (before anyone acts).

        The ledger keeps the arrays it is given (callers pass fresh arrays and do not modify them).
        In a market, ``lender`` gives each row's lender code (default: lender 0), ``selected`` that
        lender's decision and ``threshold`` its threshold.
        """
        id_dtype = np.int32 if agent_id.size == 0 or agent_id.max() < np.iinfo(np.int32).max else np.int64
        self._steps.append(
            _StepColumns(
                StepRecord(
                    step=step,
                    agent_id=agent_id.astype(id_dtype, copy=False),
                    features=features,
                    score=scores,
                    threshold=threshold if np.isscalar(threshold) else np.asarray(threshold),
                    selected=selected,
                    effort=np.zeros(agent_id.shape[0]),
                ),
                lender=self._lender_codes(lender, agent_id.shape[0]),
            )
        )

    def _lender_codes(self, lender: np.ndarray | None, n: int) -> np.ndarray | None:
        if self.lender_names is None:
            return None
        return np.zeros(n, dtype=np.int8) if lender is None else np.asarray(lender, dtype=np.int8)

    def restate_threshold(self, threshold: float | np.ndarray) -> None:
        """Replace the latest step's threshold (a refit order that restates it under the refitted model)."""
        chunk = self._steps[-1]
        chunk.record = replace(chunk.record, threshold=threshold if np.isscalar(threshold) else np.asarray(threshold))

    def record_actions(
        self,
        waiting: np.ndarray,
        recommendation: np.ndarray,
        effort: np.ndarray,
        found: np.ndarray | None = None,
        *,
        acted: np.ndarray | None = None,
        every_row: bool = False,
    ) -> None:
        """Add the latest step's recommendations and effort spent for the rows in ``waiting`` (a mask).

        ``found`` (one boolean per waiting agent), from generators that report it, says whether a
        valid recommendation was found; the frame then has a ``recourse_found`` column.

        In a market: ``acted`` marks the rows whose recommendation the agent acted on (default:
        every waiting row), and with ``every_row`` the ``effort`` has one value per row of the
        step (application costs fall on rows that are not waiting too).
        """
        chunk = self._steps[-1]
        if self.record_recommendations:
            chunk.recommendation = recommendation  # rows of ``waiting`` only; expanded in to_frame
        if every_row:
            chunk.record.effort[:] = effort
        else:
            chunk.record.effort[waiting] = effort
        if found is not None:
            chunk.found = np.asarray(found, dtype=bool)
        if self.lender_names is not None:
            waiting = np.asarray(waiting, dtype=bool)
            chunk.waiting = waiting
            chunk.acted = waiting.copy() if acted is None else np.asarray(acted, dtype=bool)

    def step_record(self, index: int) -> StepRecord:
        """Return the ``index``-th recorded step (read-only views of its arrays)."""
        record = self._steps[index].record
        return StepRecord(
            step=int(record.step),
            agent_id=_read_only(record.agent_id),
            features=_read_only(record.features),
            score=_read_only(record.score),
            threshold=_read_only(record.threshold) if isinstance(record.threshold, np.ndarray) else record.threshold,
            selected=_read_only(record.selected),
            effort=_read_only(record.effort),
        )

    def recommendation(self, index: int) -> np.ndarray | None:
        """The ``index``-th step's recommendations, one row per waiting agent (``None`` if not kept)."""
        recommendation = self._steps[index].recommendation
        return None if recommendation is None else _read_only(recommendation)

    def column(self, name: str) -> np.ndarray:
        """Concatenate one stored column over all steps (``step`` and ``threshold`` broadcast)."""
        parts = []
        for chunk in self._steps:
            n = chunk.record.agent_id.shape[0]
            value = getattr(chunk.record, name)
            parts.append(np.full(n, value) if np.isscalar(value) else value)
        return np.concatenate(parts or [np.empty(0)])

    def to_frame(self, group: np.ndarray, entry_step: np.ndarray) -> pd.DataFrame:
        """Return the ledger as a tidy DataFrame.

        Args:
            group: Group code of every agent id (from the agent table).
            entry_step: Entry step of every agent id.

        Returns:
            One row per (agent, step) with columns ``step, agent_id, group, entry_step``, the
            features, ``score, threshold, selected``, ``rec_<feature>`` (if recorded) and ``effort``;
            with a generator that reports it, ``recourse_found`` (whether the agent got a valid
            recommendation; missing for selected agents, who need none). In a market, one row per
            (agent, step, lender applied to), with a categorical ``lender`` column after
            ``entry_step`` and a boolean ``acted`` after ``effort`` (the row whose recommendation
            the agent acted on).
        """
        agent_id = self.column("agent_id").astype(np.int64)
        no_rows = np.empty((0, len(self.feature_names)))
        features = np.concatenate([chunk.record.features for chunk in self._steps] or [no_rows])
        columns: dict[str, object] = {
            "step": self.column("step").astype(np.int32),
            "agent_id": agent_id,
            "group": pd.Categorical.from_codes(
                group[agent_id].astype(np.int64), dtype=category_dtype(self.group_names)
            ),
            "entry_step": entry_step[agent_id].astype(np.int32),
        }
        if self.lender_names is not None:
            codes = np.concatenate([c.lender for c in self._steps if c.lender is not None] or [np.zeros(0, np.int8)])
            columns["lender"] = pd.Categorical.from_codes(
                codes.astype(np.int64), dtype=category_dtype(self.lender_names)
            )
        columns.update(self._feature_columns(features, ""))
        columns["score"] = self.column("score").astype(float)
        columns["threshold"] = self.column("threshold").astype(float)
        columns["selected"] = self.column("selected").astype(bool)
        if self.record_recommendations:
            recommendation = np.concatenate([_recommendation(c) for c in self._steps] or [no_rows])
            columns.update(self._feature_columns(recommendation, "rec_"))
        columns["effort"] = self.column("effort").astype(float)
        if self.lender_names is not None:
            columns["acted"] = np.concatenate(
                [c.acted if c.acted is not None else np.zeros(c.record.selected.shape, bool) for c in self._steps]
                or [np.zeros(0, bool)]
            )
        if any(c.found is not None for c in self._steps):
            columns["recourse_found"] = pd.array(np.concatenate([_found(c) for c in self._steps]), dtype="boolean")
        return pd.DataFrame(columns)

    def _feature_columns(self, values: np.ndarray, prefix: str) -> dict[str, object]:
        """Feature columns named ``prefix + name``: raw floats, or decoded with the schema."""
        if self.schema is None:
            return {f"{prefix}{name}": values[:, j] for j, name in enumerate(self.feature_names)}
        decoded = self.schema.decode(values)
        return {f"{prefix}{name}": decoded[name].array for name in decoded}


def _read_only(array: np.ndarray) -> np.ndarray:
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


def _waiting(chunk: _StepColumns) -> np.ndarray:
    """The rows that got recommendations: the market's waiting rows, else the agents not selected."""
    return chunk.waiting if chunk.waiting is not None else ~chunk.record.selected


def _recommendation(chunk: _StepColumns) -> np.ndarray:
    full = np.full(chunk.record.features.shape, np.nan)
    if chunk.recommendation is not None:
        full[_waiting(chunk)] = chunk.recommendation
    return full


def _found(chunk: _StepColumns) -> np.ndarray:
    """Per scored agent: True/False for waiting agents (recommendation found or not), None for selected ones."""
    full = np.full(chunk.record.selected.shape, None, dtype=object)
    if chunk.found is not None:
        full[_waiting(chunk)] = chunk.found
    return full


def by_applicant(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (step, agent) of a ledger frame: a market's rows folded, any other frame as is.

    A market's ledger has one row per (step, agent, lender applied to). Folded, ``selected`` says
    whether *any* lender accepted the agent, ``effort`` is the sum over its rows (applications and
    acting), and the other columns (score, threshold, recommendation) are those of the row whose
    recommendation the agent acted on, else of its first lender's row; ``lender`` and ``acted``
    are dropped. Every per-run metric reads a ledger through this, so ETR, TTR and the summaries
    of a market mean "selected by any lender".
    """
    if "lender" not in frame.columns:
        return frame
    key = [frame["step"].to_numpy(), frame["agent_id"].to_numpy()]
    grouped = frame.groupby(key, sort=False)
    selected = grouped["selected"].transform("any")
    effort = grouped["effort"].transform("sum")
    folded = frame.assign(
        selected=selected, effort=effort, _rank=(~frame["acted"]).astype(int), _code=frame["lender"].cat.codes
    )
    folded = folded.sort_values(["step", "agent_id", "_rank", "_code"], kind="stable")
    folded = folded.drop_duplicates(["step", "agent_id"], keep="first")
    return folded.drop(columns=["lender", "acted", "_rank", "_code"]).reset_index(drop=True)


def write_parquet(frame: pd.DataFrame, path: str | Path) -> None:
    """Write ``frame`` to Parquet deterministically (same frame, same bytes), marked as recoursesim's.

    The file is written under a temporary name and renamed into place, so a reader never sees
    a half-written file.
    """
    path = Path(path)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **GENERATOR_METADATA})
    with replacing(path) as tmp:  # a full disk leaves no half-written file behind
        pq.write_table(table, tmp, compression="zstd", write_statistics=True)
