"""Aggregate a sweep's shards: mean, SEM and confidence interval per (parameters, step, group, metric)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from recoursesim import output
from recoursesim.errors import DataError
from recoursesim.ledger import write_parquet
from recoursesim.stats import check_confidence, describe_groups
from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.store import SweepStore

SUMMARY_FILE = "summary.parquet"
#: Columns of the summary after the parameter columns.
SUMMARY_COLUMNS = ("step", "group", "metric", "n", "mean", "sem", "ci_low", "ci_high")


def iter_point_results(directory: str | Path) -> Iterator[tuple[int, dict[str, Any], pd.DataFrame]]:
    """Yield each grid point's per-run rows, one point at a time, in plan order.

    Only one point's shards are in memory at once. Rows are sorted by (seed index, step, group,
    metric), pooled rows (``step`` null) last within a run, so the order never depends on the
    order in which runs finished.

    Args:
        directory: A sweep's output directory.

    Yields:
        ``(point index, parameters, rows)``; ``rows`` has the shard columns (see
        :data:`~recoursesim.sweep.worker.SHARD_SCHEMA`) and is empty for a point with no
        finished run.
    """
    store = SweepStore(directory)
    manifest = store.read_manifest()
    by_point: dict[int, list[tuple[int, str]]] = {}
    for run_id, point, seed_index in manifest["runs"]:
        by_point.setdefault(point, []).append((seed_index, run_id))
    for index, point in enumerate(manifest["points"]):
        paths = [store.shard_path(run_id) for _, run_id in sorted(by_point.get(index, []))]
        tables = [read_shard(path) for path in paths if path.exists()]
        if tables:
            rows = pa.concat_tables(tables).to_pandas()
        else:
            from recoursesim.sweep.worker import SHARD_SCHEMA

            rows = SHARD_SCHEMA.empty_table().to_pandas()
        rows["step"] = rows["step"].astype("Int32")
        rows = rows.sort_values(["seed_index", "step", "group", "metric"], kind="stable", na_position="last")
        yield index, point["params"], rows.reset_index(drop=True)


def read_shard(path: Path) -> pa.Table:
    """One run's shard; a truncated or corrupt file raises :class:`DataError` naming it."""
    try:
        return pq.read_table(path)
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise DataError(
            "DIR",
            f"the shard {path} cannot be read as Parquet ({detail})",
            "delete that file and continue the sweep with `recoursesim sweep SCENARIO --out DIR --resume` "
            "(it reruns the missing run)",
        ) from None


def summarise(
    directory: str | Path,
    *,
    confidence: float = 0.95,
    write: bool = True,
    out: str | Path | None = None,
) -> pd.DataFrame:
    """Mean, standard error and confidence interval of every metric across a sweep's seeds.

    Per (parameters, step, group, metric): ``n`` finite values (a run where a metric is
    undefined — no success at that step, say — contributes nothing), their ``mean``, ``sem``
    (sample standard deviation / √n) and the Student-t interval ``mean ± t(1−α/2, n−1)·sem``
    (:mod:`recoursesim.stats`; with one value ``sem`` and the bounds are NaN).
    ``step`` is null for the pooled whole-run metrics. The result depends only on the shards,
    not on how or where the runs executed: the same sweep gives the same bytes.

    Args:
        directory: A sweep's output directory.
        confidence: Coverage of the interval, in (0, 1).
        write: Also write the table as Parquet.
        out: Where to write it (default: ``directory/summary.parquet``).

    Returns:
        A tidy frame: one column per grid parameter, then :data:`SUMMARY_COLUMNS`.

    Raises:
        ConfigError: ``directory`` holds no sweep, or ``confidence`` is not in (0, 1).
    """
    confidence = check_confidence(confidence)
    manifest = SweepStore(directory).read_manifest()
    names = list(manifest["param_names"])
    parts = []
    for _, params, rows in iter_point_results(directory):
        table = _aggregate(rows, confidence)
        for position, name in enumerate(names):
            table.insert(position, name, [params[name]] * len(table))
        parts.append(table)
    summary = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[*names, *SUMMARY_COLUMNS])
    for name in names:
        summary[name] = _param_column([p["params"][name] for p in manifest["points"]], summary[name])
    summary["step"] = summary["step"].astype("Int32")
    if write:
        target = Path(out) if out is not None else Path(directory) / SUMMARY_FILE
        write_parquet(summary, target)
        if out is None:
            output.record_file(Path(directory), target)
    return summary


def _aggregate(rows: pd.DataFrame, confidence: float) -> pd.DataFrame:
    table = describe_groups(rows, ["step", "group", "metric"], "value", confidence)
    return pd.DataFrame(
        {
            "step": table["step"].astype("Int32").to_numpy(),
            "group": table["group"].astype(str).to_numpy(),
            "metric": table["metric"].astype(str).to_numpy(),
            **{column: table[column].to_numpy() for column in ("n", "mean", "sem", "ci_low", "ci_high")},
        }
    )


def _param_column(values: Sequence[Any], column: pd.Series) -> pd.Series:
    """One dtype per parameter: bool, int64, float64, else text (lists as canonical JSON)."""
    if all(isinstance(v, bool) for v in values):
        return column.astype(bool)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return column.astype("int64")
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return column.astype("float64")
    return column.map(lambda v: v if isinstance(v, str) else canonical_json(v)).astype(str)
