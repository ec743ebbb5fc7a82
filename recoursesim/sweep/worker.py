"""The work of one run, as executed on a worker: simulate, then encode the result as a Parquet shard.

Workers compute and return bytes; only the driver writes files. A worker therefore needs no
access to the output directory (a Dask cluster need not share a file system with the driver),
and an exception inside a run comes back as data instead of stopping the sweep.
"""

from __future__ import annotations

import io
import time
import traceback
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from recoursesim.simulate import simulate
from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.market_rows import market_rows
from recoursesim.sweep.plan import RunTask

#: Columns of a shard, in order. ``step`` is null on the pooled (whole-run) rows.
SHARD_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("point", pa.int32()),
        ("params", pa.string()),
        ("seed_index", pa.int32()),
        ("seed_entropy", pa.string()),
        ("step", pa.int32()),
        ("group", pa.string()),
        ("metric", pa.string()),
        ("value", pa.float64()),
    ]
)


@dataclass(frozen=True)
class RunOutcome:
    """What a worker sends back: the shard bytes, or the error the run raised.

    Attributes:
        task: The run.
        shard: The Parquet bytes of the run's tidy results (``None`` on failure).
        error: ``"ExceptionType: message"`` (``None`` on success).
        traceback: The formatted traceback of a failure.
        seconds: Wall time spent on the run, including encoding.
    """

    task: RunTask
    shard: bytes | None
    error: str | None = None
    traceback: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the run succeeded."""
        return self.error is None


def execute(task: RunTask) -> RunOutcome:
    """Run one task and encode its results; never raises for a failing run.

    Args:
        task: The run.

    Returns:
        The outcome, with the shard or the error.
    """
    start = time.perf_counter()
    try:
        shard = encode_shard(task, *_run(task))
    except Exception as error:  # a failing run is data: recorded, then the sweep goes on
        return RunOutcome(
            task,
            None,
            f"{type(error).__name__}: {error}",
            traceback.format_exc(),
            time.perf_counter() - start,
        )
    return RunOutcome(task, shard, seconds=time.perf_counter() - start)


def fresh_seed(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """An unused copy of ``seed`` (same entropy and spawn key, no children spawned yet).

    A run spawns its streams from its seed, which advances the ``SeedSequence``; running from a
    copy makes the result independent of whatever the object went through before.
    """
    return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)


#: Per-group durability shares recorded with the pooled rows: validity 1, 3 and 5 steps after issue.
DURABILITY_METRICS = ("validity_1", "validity_3", "validity_5")


def _run(task: RunTask) -> tuple[pd.DataFrame | None, pd.DataFrame, pd.DataFrame | None]:
    result = simulate(task.scenario, fresh_seed(task.seed))
    metrics = result.metrics if task.per_step else None
    market = market_rows(result, per_step=task.per_step)
    if not task.durability:
        return metrics, result.summary, market
    return metrics, with_durability(result.summary, result.durability_summary), market


def with_durability(summary: pd.DataFrame, durability: pd.DataFrame) -> pd.DataFrame:
    """The pooled per-group summary with :data:`DURABILITY_METRICS` added (unchanged if the run kept no advice).

    Args:
        summary: The run's pooled per-group summary.
        durability: Its per-group durability summary (:func:`~recoursesim.durability.durability_summary`).
    """
    if durability.empty or not set(DURABILITY_METRICS) <= set(durability.columns):
        return summary
    by_group = durability.assign(group=durability["group"].astype(str)).set_index("group")
    groups = summary["group"].astype(str)
    return summary.assign(**{name: groups.map(by_group[name]).astype(float) for name in DURABILITY_METRICS})


def encode_shard(
    task: RunTask, metrics: pd.DataFrame | None, summary: pd.DataFrame, market: pd.DataFrame | None = None
) -> bytes:
    """Tidy rows ``(step, group, metric, value)`` of a run, labelled with the run, as Parquet bytes.

    Every numeric column of ``metrics`` (per step and group) and of ``summary`` (pooled per group,
    ``step`` null) becomes one row per (step, group) and metric. A market run's ``market`` rows
    (:func:`~recoursesim.sweep.market_rows.market_rows`, already long) follow, their metrics named
    ``<lender>:<measure>``.

    Args:
        task: The run the results belong to.
        metrics: Per-step metrics with ``step`` and ``group`` columns, or ``None``.
        summary: The pooled per-group summary with a ``group`` column.
        market: Long market rows (``step``, -1 for pooled; ``group``; ``metric``; ``value``), or ``None``.

    Returns:
        The shard, deterministic for the same inputs.
    """
    parts = [_long(summary, None)]
    if metrics is not None:
        parts.insert(0, _long(metrics, metrics["step"].to_numpy()))
    if market is not None:
        parts.append(tuple(market[c].to_numpy() for c in ("step", "group", "metric", "value")))
    step = np.concatenate([p[0] for p in parts])
    n = len(step)
    table = pa.table(
        {
            "run_id": pa.array([task.run_id] * n, pa.string()),
            "point": pa.array(np.full(n, task.point), pa.int32()),
            "params": pa.array([canonical_json(task.params)] * n, pa.string()),
            "seed_index": pa.array(np.full(n, task.seed_index), pa.int32()),
            "seed_entropy": pa.array([str(task.seed.entropy)] * n, pa.string()),
            "step": pa.array(step, pa.int32(), mask=step < 0),
            "group": pa.array(np.concatenate([p[1] for p in parts]), pa.string()),
            "metric": pa.array(np.concatenate([p[2] for p in parts]), pa.string()),
            "value": pa.array(np.concatenate([p[3] for p in parts]), pa.float64()),
        },
        schema=SHARD_SCHEMA,
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", write_statistics=False)
    return sink.getvalue()


def _long(frame: pd.DataFrame, steps: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Flatten a (row, metric) frame into (step, group, metric, value) arrays; step -1 = pooled."""
    metrics = [c for c in frame.columns if c not in ("step", "group") and pd.api.types.is_numeric_dtype(frame[c])]
    values = frame[metrics].to_numpy(dtype=float)
    rows, width = values.shape
    step = np.full(rows, -1, dtype=np.int64) if steps is None else np.asarray(steps, dtype=np.int64)
    groups = frame["group"].astype(str).to_numpy(dtype=object)
    return (
        np.repeat(step, width),
        np.repeat(groups, width),
        np.tile(np.array(metrics, dtype=object), rows),
        values.ravel(),
    )
