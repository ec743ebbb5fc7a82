"""Reading a sweep directory for a report: each seed's per-step and pooled metrics from its shard.

A sweep keeps, per run, the per-step metrics per group and the pooled per-group summary
(:mod:`recoursesim.sweep.worker`), not the ledger. That is what every time series of the report
is made of, so a sweep's report has the same time series, each as a mean and a 95% band across
its seeds; the sections drawn from individual agents (the distributions of each agent's effort and
time, the agents in feature space) say that a sweep does not keep them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.report.results import Results, SeedRun, recorded_scenario

#: Columns of the observations table (a sweep keeps none).
_OBSERVATION_COLUMNS = ["step", "observer", "group", "metric", "value"]


def load_sweep_results(directory: str | Path, point: int | None = None) -> Results:
    """The runs of one grid point of a sweep, as a report reads them.

    Args:
        directory: The sweep's output directory (with ``manifest.json``).
        point: The grid point (default: the only one; required when the sweep has several).

    Raises:
        ConfigError: several points and none chosen, a point out of range, no finished run, or a
            sweep run without per-step metrics.
    """
    from recoursesim.sweep import SweepStore, iter_point_results

    directory = Path(directory)
    manifest = SweepStore(directory).read_manifest()
    if not isinstance(manifest.get("points"), list) or not isinstance(manifest.get("runs"), list):
        raise ConfigError(
            "RESULTS",
            f"{directory / 'manifest.json'} is not a sweep manifest this recoursesim can read",
            "run the sweep again with this version (`recoursesim sweep ... --out DIR`)",
        )
    points: list[dict[str, Any]] = manifest["points"]
    if point is None:
        if len(points) > 1:
            listed = "; ".join(f"{i}: {p['params']}" for i, p in enumerate(points))
            raise ConfigError(
                "--point", f"{directory} is a sweep with {len(points)} grid points", f"choose one ({listed})"
            )
        point = 0
    if not 0 <= point < len(points):
        raise ConfigError("--point", f"is {point}, but the sweep has {len(points)} grid points", "use 0 … N-1")
    rows = next(rows for index, _, rows in iter_point_results(directory) if index == point)
    if rows.empty:
        raise ConfigError("RESULTS", f"{directory} has no finished run at point {point}", "run or --resume the sweep")
    if not manifest.get("per_step", True):
        raise ConfigError(
            "RESULTS", f"{directory} was swept without per-step metrics", "run the sweep again with per-step metrics"
        )
    runs = []
    root = manifest.get("root_seed", 0)
    for seed_index, run_rows in rows.groupby("seed_index", sort=True):
        per_step = run_rows.loc[run_rows["step"].notna()]
        pooled = run_rows.loc[run_rows["step"].isna()]
        metrics = per_step.pivot_table(index=["step", "group"], columns="metric", values="value", dropna=False)
        summary = pooled.pivot_table(index="group", columns="metric", values="value", dropna=False)
        metrics = metrics.reset_index().rename_axis(columns=None)
        metrics["step"] = metrics["step"].astype("int64")
        runs.append(
            SeedRun(
                directory=directory,
                seed={"entropy": root, "spawn_key": [int(seed_index)]},
                ledger=None,
                metrics=metrics,
                summary=summary.reset_index().rename_axis(columns=None),
                observations=pd.DataFrame(columns=_OBSERVATION_COLUMNS),
                durability=pd.DataFrame(),
            )
        )
    spec = points[point]["scenario"]
    return Results(directory, recorded_scenario(spec, str(directory)), tuple(runs))
