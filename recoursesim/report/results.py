"""Reading a results directory for a report: a ``recoursesim run`` output, a folder of them (one per seed), a sweep.

A sweep keeps, per run, the per-step metrics per group and the pooled per-group summary
(:mod:`recoursesim.sweep.worker`), not the ledger. That is what every time series of the report
is made of, so a sweep's report has the same time series, each as a mean and a 95% band across
its seeds; the sections drawn from individual agents (the distributions of each agent's effort and
time, the agents in feature space) say that a sweep does not keep them.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.datasets.user import read_parquet_file
from recoursesim.errors import ConfigError, DataError
from recoursesim.ledger import by_applicant
from recoursesim.scenario import Scenario
from recoursesim.scenario.checks import check_table
from recoursesim.scenario.scenario import ScenarioError
from recoursesim.trust import is_allowed

#: Files a run directory must hold, with the columns the report reads from each. A directory
#: whose files lack these columns was written by an older recoursesim.
REQUIRED: dict[str, tuple[str, ...]] = {
    "ledger.parquet": (
        "step", "agent_id", "group", "entry_step", "score", "threshold", "selected", "effort",
    ),
    "metrics.parquet": (
        "step", "group", "n_scored", "n_selected", "selection_rate", "mean_selected_score",
        "mean_selected_initial_score", "n_recourse", "etr", "ttr",
    ),
    "summary.parquet": ("group", "entered", "selected_on_entry", "recourse", "censored", "gave_up", "etr", "ttr"),
}  # fmt: skip
#: Columns of the results tables by kind: whole counts (steps, ids) with no NaN, numbers (NaN
#: allowed: an ETR with no recourse), and true/false flags with no NaN.
COUNT_COLUMNS = frozenset({
    "step", "agent_id", "entry_step", "duration", "n_scored", "n_selected", "n_recourse", "entered",
    "selected_on_entry", "recourse", "censored", "gave_up",
})  # fmt: skip
NUMBER_COLUMNS = frozenset({"score", "threshold", "effort", "selection_rate", "etr", "ttr", "retr", "dttr"})
FLAG_COLUMNS = frozenset({"selected", "expired"})
SCENARIO_FILE = "scenario.json"
OBSERVATIONS_FILE = "observations.parquet"
DURABILITY_FILE = "durability.parquet"
MARKET_FILE = "market.parquet"


@dataclass(frozen=True)
class SeedRun:
    """One run's results as written by ``recoursesim run`` (or :meth:`RunResult.write`).

    Attributes:
        directory: Where they were read from.
        seed: The seed record (an int, or a spawned seed's ``entropy``/``spawn_key``).
        ledger: One row per (agent, step) (``None`` for a sweep's run, which keeps no ledger); for
            a market run, its ledger folded per applicant (:func:`~recoursesim.ledger.by_applicant`).
        metrics: One row per (step, group).
        summary: One row per group.
        observations: Per-step auditor rows (empty if the run had no observers).
        durability: One row per recommendation (empty if the run kept none or predates the file).
        market: Per step, lender and group (``market.parquet``; empty for a single-lender run).
    """

    directory: Path
    seed: Any
    ledger: pd.DataFrame | None
    metrics: pd.DataFrame
    summary: pd.DataFrame
    observations: pd.DataFrame
    durability: pd.DataFrame
    market: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def seed_label(self) -> str:
        """The seed as text (``7``, or ``entropy/spawn_key`` for a spawned seed)."""
        if isinstance(self.seed, dict):
            return f"{self.seed.get('entropy')}/{'-'.join(str(k) for k in self.seed.get('spawn_key', []))}"
        return str(self.seed)

    def seed_value(self) -> int | np.random.SeedSequence:
        """The seed to rebuild the run with."""
        if isinstance(self.seed, dict):
            return np.random.SeedSequence(int(self.seed["entropy"]), spawn_key=tuple(self.seed["spawn_key"]))
        return int(self.seed)


@dataclass(frozen=True)
class Results:
    """All the runs of one scenario that a report covers.

    Attributes:
        directory: The results directory given.
        scenario: The resolved scenario (identical in every run).
        runs: One :class:`SeedRun` per seed, in directory order.
    """

    directory: Path
    scenario: Scenario
    runs: tuple[SeedRun, ...]

    @property
    def n_seeds(self) -> int:
        """Number of runs (seeds)."""
        return len(self.runs)

    @property
    def has_ledgers(self) -> bool:
        """Whether every run has its ledger (a sweep keeps only per-step and pooled metrics)."""
        return all(run.ledger is not None for run in self.runs)

    def ledgers(self) -> list[pd.DataFrame]:
        """Every run's ledger.

        Raises:
            ConfigError: the results come from a sweep, which keeps no ledgers.
        """
        found = [run.ledger for run in self.runs if run.ledger is not None]
        if len(found) != len(self.runs):
            raise ConfigError("RESULTS", f"{self.directory} keeps no ledgers (a sweep)", "use run directories")
        return found

    def stacked(self, name: str) -> pd.DataFrame:
        """One result table (``metrics``, ``durability``, ``ledger`` ...) of every run, with a ``seed`` column."""
        frames = [getattr(run, name).assign(seed=run.seed_label) for run in self.runs]
        frame = pd.concat(frames, ignore_index=True)
        if "group" in frame:
            frame["group"] = frame["group"].astype(object).where(frame["group"].notna(), None)
        return frame


def load_results(path: str | Path, point: int | None = None) -> Results:
    """Read a results directory.

    ``path`` is one run directory (``ledger.parquet``, ``metrics.parquet``, ``summary.parquet``,
    ``scenario.json``; as ``recoursesim run --out`` writes it), a directory whose subdirectories
    are run directories of the same scenario, one per seed (as ``recoursesim run SCENARIO --seed
    N`` writes them under ``results/<scenario>/seed-<N>``), or a sweep directory (``manifest.json``;
    see :func:`load_sweep_results`, which ``point`` is for).

    Args:
        path: The directory.
        point: For a sweep directory with several grid points, the one to report on.

    A results directory is data: its tables are read, and the scenario it records is read as a
    table (:func:`recorded_scenario`); no model file or module it names is loaded or imported.

    Raises:
        ConfigError: The directory is missing, holds no runs (empty), holds runs of different
            scenarios, or was written by an older recoursesim (a file or column the report needs
            is missing).
    """
    directory = Path(path)
    if not directory.exists():
        raise ConfigError("RESULTS", f"{directory} does not exist", "give the directory `recoursesim run --out` wrote")
    if not directory.is_dir():
        raise ConfigError("RESULTS", f"{directory} is not a directory", "give a results directory, not a file")
    if (directory / "manifest.json").exists():
        return load_sweep_results(directory, point)
    if _is_run(directory):
        run_dirs = [directory]
    else:
        run_dirs = sorted((d for d in directory.iterdir() if d.is_dir() and _is_run(d)), key=_seed_order)
    if not run_dirs:
        if not any(directory.iterdir()):
            raise ConfigError("RESULTS", f"{directory} is empty", "run `recoursesim run SCENARIO --out DIR` first")
        raise ConfigError(
            "RESULTS",
            f"{directory} holds no run results ({SCENARIO_FILE} and ledger.parquet, here or in its subdirectories)",
            "point at a directory written by `recoursesim run`",
        )
    runs = []
    metas = [_read_meta(run_dir) for run_dir in run_dirs]
    spec: dict[str, Any] = metas[0]["scenario"]
    for run_dir, meta in zip(run_dirs, metas, strict=True):
        if meta["scenario"] != spec:
            raise ConfigError(
                "RESULTS",
                f"{run_dir} ran a different scenario from {run_dirs[0]}",
                "report on one scenario's runs at a time (use `recoursesim compare` for several)",
            )
        runs.append(_read_run(run_dir, meta))
    return Results(directory, recorded_scenario(spec, str(run_dirs[0] / SCENARIO_FILE)), tuple(runs))


def recorded_scenario(spec: Any, source: str) -> Scenario:
    """The scenario a results directory records, as a checked table that is never built.

    Its sections and keys are checked (:func:`~recoursesim.scenario.checks.check_table`), but no
    component is constructed: a model file it names is not loaded and a module it names is not
    imported, whatever the person running allows (see :func:`code_named`). A scenario run with a
    model or a DataFrame given from Python names them only by their fingerprints and is read as
    recorded. A ``trusted`` list recorded by an older version is a record of a grant, not one.
    """
    if not isinstance(spec, dict):
        raise ConfigError("RESULTS", f"{source} records no scenario table", "re-run the scenario with this version")
    population, scorer = spec.get("population", {}), spec.get("scorer", {})
    from_python = "data_fingerprint" in population or ("fingerprint" in scorer and "model_file" not in scorer)
    if from_python:
        return Scenario(spec, source)
    table = copy.deepcopy(spec)
    if isinstance(table.get("scorer"), dict):
        table["scorer"].pop("trusted", None)
    try:
        return Scenario(check_table(table), source)
    except ConfigError as error:
        raise ScenarioError(source, error) from None


def code_named(spec: dict[str, Any]) -> str | None:
    """What a recorded scenario names that only code could rebuild: a model file or a plug-in module.

    Returns:
        ``"the model file model.skops"``, ``"the module mypkg.selectors"``, or ``None`` when the
        scenario is made of recoursesim's own components (and can be run again here as data).
    """
    scorer = spec.get("scorer")
    if isinstance(scorer, dict) and scorer.get("model_file") is not None:
        return f"the model file {Path(str(scorer['model_file'])).name}"
    stack: list[Any] = [spec]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            name = item.get("name")
            if isinstance(name, str) and ":" in name and not is_allowed(name.partition(":")[0], ()):
                return f"the module {name.partition(':')[0]}"
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _is_run(directory: Path) -> bool:
    return (directory / SCENARIO_FILE).is_file() or (directory / "ledger.parquet").is_file()


def _seed_order(directory: Path) -> tuple[int, str]:
    digits = "".join(c for c in directory.name if c.isdigit())
    return (int(digits) if digits else -1, directory.name)


#: What to do about a results file that cannot be read (truncated, overwritten, not Parquet).
_REWRITE = "re-run the scenario into a new directory (`recoursesim run SCENARIO --seed N --out DIR`)"


def _older(run_dir: Path, what: str) -> ConfigError:
    return ConfigError(
        "RESULTS",
        f"{run_dir} was written by an older recoursesim ({what})",
        "re-run the scenario with this version (`recoursesim run SCENARIO --seed N --out DIR`)",
    )


def _read_meta(run_dir: Path) -> dict[str, Any]:
    path = run_dir / SCENARIO_FILE
    if not path.is_file():
        raise _older(run_dir, f"no {SCENARIO_FILE}")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigError("RESULTS", f"{path} is not readable JSON ({error})", "re-run the scenario") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("scenario"), dict) or "seed" not in meta:
        raise _older(run_dir, f"{SCENARIO_FILE} lacks the 'scenario' and 'seed' entries")
    if not _is_seed(meta["seed"]):
        raise ConfigError(
            "RESULTS",
            f"{path}: seed is {str(meta['seed'])[:60]}, not a seed recoursesim writes "
            "(a whole number, or {entropy, spawn_key})",
            "restore the run's scenario.json, or re-run the scenario",
        )
    return meta


def _is_seed(seed: Any) -> bool:
    """A seed record as a run writes it: a non-negative int, or ``{"entropy": int, "spawn_key": [int, ...]}``."""

    def whole(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if isinstance(seed, dict):
        key = seed.get("spawn_key")
        return whole(seed.get("entropy")) and isinstance(key, list) and all(whole(k) for k in key)
    return whole(seed)


def _checked_table(path: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """Refuse a results table whose columns hold values of the wrong kind (text for counts, NaN steps)."""
    for column in frame.columns.intersection(list(COUNT_COLUMNS | NUMBER_COLUMNS | FLAG_COLUMNS)):
        series = frame[column]
        if column in FLAG_COLUMNS:
            ok, kind = pd.api.types.is_bool_dtype(series) and not series.isna().any(), "true/false values"
        elif pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
            ok, kind = False, "numbers"
        elif column in COUNT_COLUMNS:
            values = series.to_numpy(dtype=float, na_value=np.nan)
            ok, kind = bool(np.all(np.isfinite(values) & (values >= 0) & (values == np.floor(values)))), "whole counts"
        else:
            ok, kind = True, "numbers"
        if not ok:
            raise DataError("RESULTS", f"{path} column {column} must hold {kind} (has {series.dtype})", _REWRITE)
    return frame


def _read_run(run_dir: Path, meta: dict[str, Any]) -> SeedRun:
    frames = {}
    for name, columns in REQUIRED.items():
        path = run_dir / name
        if not path.is_file():
            raise _older(run_dir, f"no {name}")
        frame = read_parquet_file(path, "RESULTS", _REWRITE)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise _older(run_dir, f"{name} lacks {', '.join(missing)}")
        frames[name] = _checked_table(path, frame)
    if frames["summary.parquet"].empty:
        raise DataError(
            "RESULTS", f"{run_dir / 'summary.parquet'} has no rows (a run summarises every group)", _REWRITE
        )

    def optional(name: str, empty: pd.DataFrame, checked: bool = True) -> pd.DataFrame:
        path = run_dir / name
        if not path.exists():
            return empty
        frame = read_parquet_file(path, "RESULTS", _REWRITE)
        return _checked_table(path, frame) if checked else frame

    return SeedRun(
        directory=run_dir,
        seed=meta["seed"],
        ledger=by_applicant(frames["ledger.parquet"]),
        metrics=frames["metrics.parquet"],
        summary=frames["summary.parquet"],
        observations=optional(OBSERVATIONS_FILE, pd.DataFrame(columns=_OBSERVATION_COLUMNS), checked=False),
        durability=optional(DURABILITY_FILE, pd.DataFrame()),
        market=optional(MARKET_FILE, pd.DataFrame()),
    )


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
    from recoursesim.sweep.market_rows import is_market_metric, market_table_from_rows

    directory = Path(directory)
    manifest = SweepStore(directory).read_manifest()  # its shape is checked there
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
    spec = points[point]["scenario"]
    lenders = [str(item.get("name")) for item in spec.get("lenders", []) if isinstance(item, dict)]
    for seed_index, all_rows in rows.groupby("seed_index", sort=True):
        market = market_table_from_rows(all_rows, lenders)
        run_rows = all_rows.loc[~is_market_metric(all_rows["metric"])]
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
                market=market,
            )
        )
    return Results(directory, recorded_scenario(spec, str(directory)), tuple(runs))
