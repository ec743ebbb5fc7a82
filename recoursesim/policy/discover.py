"""Scenario discovery: under which parameter values does an outcome go bad (PRIM, through the EMA Workbench).

A *condition* names the runs of interest, written ``dTTR:disadvantaged > 2`` (a pooled metric,
:class:`~recoursesim.policy.space.MetricSpec`, then ``>``, ``>=``, ``<`` or ``<=`` and a number).
Every run of a sweep (each seed of each point) is one case: its point's parameters are the inputs,
and whether the condition holds is the output. PRIM (Friedman and Fisher's patient rule induction,
as the EMA Workbench implements it) peels the parameter space down to boxes where the condition
holds in most runs.

Each box is reported at one point of its peeling trajectory: among the boxes at least
``threshold`` dense (the share of its runs where the condition holds), the one with the highest
coverage (the share of all runs of interest that fall inside it), the densest on a tie. A second
box is sought among the runs outside the first, and so on.

```python
from recoursesim.policy.discover import discover, parse_condition, read_cases

cases = read_cases("results/sweep-k", parse_condition("dTTR:disadvantaged > 2"))
found = discover(cases, threshold=0.8)
print(found.format())
found.write("results/discover-k")  # boxes.csv, trajectory.csv, tradeoff.png, boxes.png, discover.json
```
"""

from __future__ import annotations

import json
import math
import operator
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim import output
from recoursesim.errors import ConfigError
from recoursesim.output import replacing
from recoursesim.policy._deps import require_prim
from recoursesim.policy.objectives import NUMBER
from recoursesim.policy.space import MetricSpec, parse_metric
from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.store import LAYOUT_VERSION, MANIFEST, SweepStore

_COMPARE = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}
_CONDITION = re.compile(rf"^\s*(?P<metric>[A-Za-z_]\w*\s*:\s*[^\s<>=]+)\s*(?P<op><=|>=|<|>)\s*(?P<bound>{NUMBER})\s*$")

#: Files :meth:`Discovery.write` writes, and what each holds.
DISCOVER_FILES = {
    "boxes.csv": (
        "one row per box and restricted parameter: coverage, density, mass, runs, limits, quasi-p values "
        "(a box that restricts none: one row, parameter empty)"
    ),
    "trajectory.csv": "every box's peeling trajectory: coverage, density, mass, restricted dimensions per step",
    "tradeoff.png": "coverage against density along each peeling trajectory, the chosen boxes marked",
    "boxes.png": "each box's limits within the range each restricted parameter spans",
    "discover.json": "the condition, the options, the counts of runs and the boxes",
}


@dataclass(frozen=True)
class Condition:
    """Which runs are of interest: a pooled metric compared with a bound.

    Attributes:
        metric: The metric.
        op: ``">"``, ``">="``, ``"<"`` or ``"<="``.
        bound: The bound.
    """

    metric: MetricSpec
    op: str
    bound: float

    @property
    def label(self) -> str:
        """The condition as written, normalised (``"dttr:disadvantaged > 2"``)."""
        return f"{self.metric.label} {self.op} {self.bound:g}"

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Whether each value meets the condition (``False`` for NaN)."""
        with np.errstate(invalid="ignore"):
            return _COMPARE[self.op](np.asarray(values, dtype=float), self.bound)


def parse_condition(text: str, field: str = "--where") -> Condition:
    """Parse ``dTTR:disadvantaged > 2``.

    Raises:
        ConfigError: Unreadable expression, naming ``field``.
    """
    match = _CONDITION.match(text)
    if match is None:
        raise ConfigError(
            field, f"cannot read {text!r}", "write METRIC:GROUP > N (or >=, <, <=), e.g. 'dTTR:female > 2'"
        )
    return Condition(parse_metric(match["metric"].replace(" ", ""), field), match["op"], float(match["bound"]))


@dataclass(frozen=True)
class Cases:
    """The runs PRIM reads: one row of parameters per run, the metric and whether the condition holds.

    Attributes:
        x: One column per parameter (numbers as floats; text, flags and tables as categories).
        values: The metric in each run.
        y: Whether the condition holds in each run.
        condition: The condition.
        undefined: Runs left out because the metric is undefined (NaN) in them.
    """

    x: pd.DataFrame
    values: np.ndarray
    y: np.ndarray
    condition: Condition
    undefined: int = 0


def sweep_directories(results: str | Path) -> list[Path]:
    """The sweeps in a results folder: a sweep itself, a sensitivity study's ``sweep/``, an optimise study's ``runs/*``.

    Raises:
        ConfigError: The folder holds none of them.
    """
    results = Path(results)
    if not results.is_dir():
        raise ConfigError("RESULTS", f"{results} is not a directory", "give a sweep's or a study's --out directory")
    if (results / MANIFEST).is_file():
        return [results]
    if (results / "sweep" / MANIFEST).is_file():
        return [results / "sweep"]
    runs = sorted(p.parent for p in (results / "runs").glob(f"*/{MANIFEST}")) if (results / "runs").is_dir() else []
    if runs:
        return runs
    raise ConfigError(
        "RESULTS",
        f"{results} holds no sweep ({MANIFEST} is missing, and there is no sweep/ or runs/ folder of a study)",
        "give the --out directory of recoursesim sweep, sensitivity or optimise",
    )


def read_cases(results: str | Path, condition: Condition) -> Cases:
    """One case per finished run of the sweeps in ``results`` (:func:`sweep_directories`).

    The folder is read as data: its manifest and shards, nothing else, and nothing is executed.

    Raises:
        ConfigError: No sweep, a sweep written by another recoursesim version, a sweep that varies
            no parameter, an unknown metric or group, no finished run, or a condition that no
            run (or every run) meets.
    """
    params: list[dict[str, Any]] = []
    values: list[np.ndarray] = []
    names: set[str] = set()
    for directory in sweep_directories(results):
        manifest = _read_manifest(directory)
        names.update(manifest["param_names"])
        run_params, run_values = _run_values(directory, manifest, condition.metric)
        params += run_params
        values.append(run_values)
    if not params:
        raise ConfigError("RESULTS", f"{results} holds no finished run", "finish the sweep first (--resume)")
    all_values = np.concatenate(values)
    defined = np.isfinite(all_values)
    x = _inputs([p for p, ok in zip(params, defined, strict=True) if ok], sorted(names))
    cases = Cases(x, all_values[defined], condition.holds(all_values[defined]), condition, int((~defined).sum()))
    _check_cases(cases)
    return cases


def _run_values(
    directory: Path, manifest: dict[str, Any], metric: MetricSpec
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Each finished run's point parameters and metric, read from all its shards at once."""
    store = SweepStore(directory)
    done = store.finished()  # one listing of the folder, not a file-system call per run
    finished = [(run_id, point, seed) for run_id, point, seed in manifest["runs"] if run_id in done]
    if not finished:
        return [], np.array([])
    rows = _pooled_rows(store, [run_id for run_id, _, _ in finished])
    runs = [(point, seed) for _, point, seed in finished]
    _check_metric(metric, rows)
    width = max(seed for _, seed in runs) + 1
    # One key per run, as the seed index per_seed groups by, so one call gives every run's value.
    rows["seed_index"] = rows["point"].to_numpy(dtype=np.int64) * width + rows["seed_index"].to_numpy(dtype=np.int64)
    keys = [point * width + seed for point, seed in runs]
    per_run = metric.per_seed(rows).reindex(keys).to_numpy(dtype=float)
    points = manifest["points"]
    return [points[point]["params"] for point, _ in runs], per_run


def _pooled_rows(store: SweepStore, run_ids: Sequence[str]) -> pd.DataFrame:
    """The pooled (whole-run) rows of the given runs' shards, read as one Parquet data set."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    from recoursesim.sweep.summarise import read_shard

    paths = [str(store.shard_path(run_id)) for run_id in run_ids]
    try:
        table = ds.dataset(paths, format="parquet").to_table(
            columns=["point", "seed_index", "step", "group", "metric", "value"], filter=pc.field("step").is_null()
        )
    except (OSError, ValueError):  # a truncated or corrupt shard: name it, as every reader of shards does
        for path in paths:
            read_shard(Path(path))
        raise
    return table.to_pandas()


def _read_manifest(directory: Path) -> dict[str, Any]:
    manifest = SweepStore(directory).read_manifest()  # its parts readers index (param_names too) well formed
    layout = manifest.get("layout")
    if not isinstance(layout, int) or layout > LAYOUT_VERSION:
        raise ConfigError(
            "RESULTS",
            f"{directory} was written by another recoursesim version (layout {layout!r}, this one reads up to "
            f"{LAYOUT_VERSION})",
            "rerun the sweep with this version, or discover with the version that wrote it",
        )
    if not manifest["param_names"]:
        raise ConfigError("RESULTS", f"the sweep in {directory} varies no parameter", "give a sweep over a --grid")
    return manifest


def _check_metric(metric: MetricSpec, rows: pd.DataFrame) -> None:
    try:
        metric.check_against(rows)
    except ConfigError as error:
        raise ConfigError("--where", error.problem, error.fix) from None


def _check_cases(cases: Cases) -> None:
    label, n = cases.condition.label, len(cases.y)
    if not n:
        raise ConfigError("--where", f"{cases.condition.metric.label} is undefined in every run", "name another metric")
    spread = f"over {n} runs it spans {cases.values.min():.4g} … {cases.values.max():.4g}"
    if not cases.y.any():
        raise ConfigError("--where", f"no run has {label} ({spread})", "choose a bound inside that span")
    if cases.y.all():
        raise ConfigError("--where", f"every run has {label} ({spread})", "choose a bound inside that span")


def _inputs(params: Sequence[dict[str, Any]], names: Sequence[str]) -> pd.DataFrame:
    """The parameter columns PRIM reads: numbers as floats, anything else as a category of its text."""
    columns: dict[str, Any] = {}
    for name in names:
        raw = [p.get(name) for p in params]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw):
            # Floats even for integer parameters: PRIM's pasting step writes half-way limits (19.5).
            columns[name] = np.asarray(raw, dtype=float)
        else:
            columns[name] = pd.Categorical([v if isinstance(v, str) else canonical_json(v) for v in raw])
    return pd.DataFrame(columns)


#: The one ``boxes.csv`` row of a box that restricts no parameter.
_UNRESTRICTED = pd.DataFrame(
    [{"parameter": "", "low": math.nan, "high": math.nan, "values": "", "qp_low": math.nan, "qp_high": math.nan}]
)


@dataclass(frozen=True)
class Box:
    """One box PRIM found, at the point of its peeling trajectory chosen (see the module docstring).

    Attributes:
        number: 1 for the first box, 2 for the one found among the runs outside it, …
        step: Its position on the peeling trajectory.
        coverage: Share of all runs of interest inside the box.
        density: Share of the box's runs that are of interest.
        mass: Share of all runs inside the box (of those PRIM still considered).
        n: Runs inside the box.
        limits: One row per restricted parameter: ``parameter``, ``low``, ``high`` (numbers),
            ``values`` (categories kept), ``qp_low``, ``qp_high`` (quasi-p values of each limit, NaN
            where the limit is the parameter's own).
        trajectory: The whole peeling trajectory (coverage, density, mass, res_dim, n per step).
    """

    number: int
    step: int
    coverage: float
    density: float
    mass: float
    n: int
    limits: pd.DataFrame
    trajectory: pd.DataFrame


@dataclass
class Discovery:
    """What :func:`discover` found.

    Attributes:
        cases: The runs it read.
        boxes: The boxes, in the order found (empty when none reached the density threshold).
        threshold: The density a box had to reach.
        ranges: Per numeric parameter, its ``(min, max)`` over the runs.
    """

    cases: Cases
    boxes: list[Box]
    threshold: float
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """One row per box and restricted parameter, with the box's statistics."""
        parts = []
        for box in self.boxes:
            limits = box.limits if len(box.limits) else _UNRESTRICTED
            stats = {
                "box": box.number,
                "coverage": box.coverage,
                "density": box.density,
                "mass": box.mass,
                "runs": box.n,
            }
            parts.append(limits.assign(**stats)[[*stats, *limits.columns]])
        columns = ["box", "coverage", "density", "mass", "runs", "parameter", "low", "high", "values", "qp_low"]
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[*columns, "qp_high"])

    def format(self) -> str:
        """The boxes as text: one block per box, its statistics, then the limits of each restricted parameter."""
        cases = self.cases
        lines = [
            f"{int(cases.y.sum())} of {len(cases.y)} runs have {cases.condition.label}"
            + (f" ({cases.undefined} runs where it is undefined left out)" if cases.undefined else "")
        ]
        if not self.boxes:
            lines.append(f"no box reaches density {self.threshold:g}; lower --threshold")
        for box in self.boxes:
            lines.append(
                f"box {box.number}: coverage {box.coverage:.3f}, density {box.density:.3f}, "
                f"mass {box.mass:.3f} ({box.n} runs)"
            )
            for row in box.limits.itertuples():
                where = (
                    f"in {{{row.values}}}"
                    if isinstance(row.values, str) and row.values
                    else f"{row.low:.4g} … {row.high:.4g}"
                )
                qp = max((q for q in (row.qp_low, row.qp_high) if not math.isnan(q)), default=math.nan)
                lines.append(f"    {row.parameter}: {where}" + ("" if math.isnan(qp) else f"  (quasi-p {qp:.2g})"))
            if box.limits.empty:
                lines.append(
                    "    restricts no parameter: no subspace stands out "
                    f"(the condition holds in {box.density:.1%} of all the runs searched)"
                )
        return "\n".join(lines)

    def notes(self) -> dict[str, Any]:
        """What ``discover.json`` holds."""
        return {
            "where": self.cases.condition.label,
            "threshold": self.threshold,
            "runs": len(self.cases.y),
            "runs_of_interest": int(self.cases.y.sum()),
            "runs_undefined": self.cases.undefined,
            "parameters": list(self.cases.x.columns),
            "boxes": [
                {
                    "box": b.number,
                    "coverage": b.coverage,
                    "density": b.density,
                    "mass": b.mass,
                    "runs": b.n,
                    "restricted": b.limits["parameter"].tolist(),
                }
                for b in self.boxes
            ],
            "files": DISCOVER_FILES,
        }

    def write(self, directory: str | Path) -> list[Path]:
        """Write :data:`DISCOVER_FILES` into ``directory`` (each atomically, recorded as recoursesim's).

        Returns:
            The files written.
        """
        from recoursesim.policy.figures import discovery_boxes_figure, discovery_tradeoff_figure

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        names = list(DISCOVER_FILES)
        paths = [directory / name for name in names]
        trajectories = [b.trajectory.assign(box=b.number) for b in self.boxes]
        frames = (self.table(), pd.concat(trajectories, ignore_index=True) if trajectories else pd.DataFrame())
        for frame, path in zip(frames, paths[:2], strict=True):
            output.write_recorded(directory, path, frame.to_csv(index=False).encode("utf-8"))
        condition = self.cases.condition.label
        figures = (
            discovery_tradeoff_figure(self.boxes, threshold=self.threshold, condition=condition),
            discovery_boxes_figure(self.boxes, ranges=self.ranges, condition=condition),
        )
        for figure, path in zip(figures, paths[2:4], strict=True):
            with replacing(path) as tmp:
                figure.savefig(tmp, dpi=110, format="png")
            output.record_file(directory, path)
        output.write_recorded(directory, paths[4], (json.dumps(self.notes(), indent=2) + "\n").encode("utf-8"))
        return paths


def discover(
    cases: Cases,
    *,
    threshold: float = 0.8,
    max_boxes: int = 3,
    peel_alpha: float = 0.05,
    paste_alpha: float = 0.05,
    mass_min: float = 0.05,
) -> Discovery:
    """Run the EMA Workbench's PRIM over ``cases`` and choose each box on its peeling trajectory.

    Args:
        cases: The runs (:func:`read_cases`, or built by hand).
        threshold: The density a box must reach, in (0, 1].
        max_boxes: Boxes to seek at most; the search stops earlier at a box that does not reach
            ``threshold``.
        peel_alpha: Share of the runs peeled off at each step.
        paste_alpha: Share of the runs pasted back at each step.
        mass_min: Smallest share of the runs a box may hold.

    Returns:
        The boxes found.

    Raises:
        ConfigError: A threshold or share outside its range, or no box to seek.
    """
    for name, value in (("--threshold", threshold), ("--peel-alpha", peel_alpha), ("--mass-min", mass_min)):
        if not (math.isfinite(value) and 0 < value <= 1):
            raise ConfigError(name, f"must be in (0, 1], got {value}", f"give {name} 0.8, say")
    if max_boxes < 1:
        raise ConfigError("--boxes", f"must be at least 1, got {max_boxes}", "give --boxes 1 or more")
    prim = require_prim()
    with warnings.catch_warnings():
        # The workbench calls DataFrame.drop(inplace=True), which pandas 3.1 deprecates; nothing for a user to do.
        warnings.filterwarnings("ignore", message="The inplace keyword", category=DeprecationWarning)
        algorithm = prim.Prim(
            cases.x, cases.y.astype(bool), peel_alpha=peel_alpha, paste_alpha=paste_alpha, mass_min=mass_min
        )
    boxes: list[Box] = []
    while len(boxes) < max_boxes:
        found = algorithm.find_box()
        if found is None:
            break
        trajectory = found.peeling_trajectory
        dense = trajectory[trajectory["density"] >= threshold]
        if dense.empty:
            break
        step = int(dense.sort_values(["coverage", "density"], ascending=False, kind="stable").index[0])
        found.select(step)
        boxes.append(_box(len(boxes) + 1, step, found, algorithm.box_init))
    ranges = {c: (float(cases.x[c].min()), float(cases.x[c].max())) for c in cases.x if cases.x[c].dtype.kind == "f"}
    return Discovery(cases, boxes, threshold, ranges)


def _box(number: int, step: int, found: Any, box_init: pd.DataFrame) -> Box:
    """A :class:`Box` from the EMA Workbench's box at trajectory position ``step``."""
    lims, p_values = found.box_lims[step], found.p_values[step]
    rows = []
    for name in lims.columns:
        low, high = lims[name].iloc[0], lims[name].iloc[1]
        if isinstance(low, set):
            if low == box_init[name].iloc[0]:
                continue
            low_value, high_value, kept = math.nan, math.nan, ", ".join(sorted(map(str, low)))
        else:
            if low == box_init[name].iloc[0] and high == box_init[name].iloc[1]:
                continue
            low_value, high_value, kept = float(low), float(high), ""
        qp = [math.nan if q is None or q < 0 else float(q) for q in p_values.get(name, [math.nan, math.nan])]
        rows.append(
            {"parameter": name, "low": low_value, "high": high_value, "values": kept, "qp_low": qp[0], "qp_high": qp[1]}
        )
    stats = found.peeling_trajectory.iloc[step]
    trajectory = found.peeling_trajectory[["coverage", "density", "mass", "res_dim", "n"]].copy()
    trajectory.insert(0, "step", np.arange(len(trajectory)))
    trajectory["chosen"] = trajectory["step"] == step
    return Box(
        number,
        step,
        float(stats["coverage"]),
        float(stats["density"]),
        float(stats["mass"]),
        int(stats["n"]),
        pd.DataFrame(rows, columns=["parameter", "low", "high", "values", "qp_low", "qp_high"]),
        trajectory.reset_index(drop=True),
    )
