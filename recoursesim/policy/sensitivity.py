"""Global sensitivity analysis of a scenario's metric over numeric scenario fields (SALib).

The design (Saltelli's Sobol sequence, or Morris trajectories) is drawn by SALib over the given
ranges; every distinct sample becomes a point of an ordinary :class:`~recoursesim.sweep.SweepPlan`
and runs on the sweep engine (one shard per run, resumable, local processes or Dask). Every sample
runs the same seeds (common random numbers). The metric is averaged over seeds per sample and the
indices are estimated from those means; the share of their variance that is seed noise is reported
beside the indices (docs/policy.md explains the estimator and why).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim import output
from recoursesim.errors import ConfigError
from recoursesim.ledger import write_parquet
from recoursesim.output import replacing
from recoursesim.policy._deps import require
from recoursesim.policy.space import MetricSpec, ParamRange
from recoursesim.resources import MAX_MORRIS_LEVELS
from recoursesim.rng import study_seed
from recoursesim.scenario import Scenario
from recoursesim.sweep import Executor, Point, RunTask, SweepPlan, iter_point_results, run_sweep
from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.plan import PointsOption, check_sweep_size
from recoursesim.sweep.runner import SweepReport
from recoursesim.sweep.worker import RunOutcome, execute

METHODS = ("sobol", "morris")

#: Files a sensitivity analysis writes into its directory, and what each holds.
SENSITIVITY_FILES = {
    "sweep/": "the sweep of every distinct sample × seed (one Parquet shard per run; --resume continues it)",
    "samples.parquet": "one row per sample: parameter values, sweep point, seed mean / variance / count of the metric",
    "indices.parquet": "one row per parameter: the indices, their confidence intervals and the rank",
    "sensitivity.png": "the indices with their intervals",
    "sensitivity.json": "the method, ranges, metric, seeds, seed-noise share and timing",
}
#: The files :meth:`SensitivityResult.write` writes again at the end of every session.
REWRITTEN = ("samples.parquet", "indices.parquet", "sensitivity.png", "sensitivity.json")


@dataclass(frozen=True)
class SensitivityDesign:
    """The samples of a sensitivity analysis and the sweep points they map to.

    Attributes:
        ranges: The varied fields.
        method: ``"sobol"`` or ``"morris"``.
        n: SALib's base sample size (Sobol) or number of trajectories (Morris).
        seed: Seed of the sampler, and root seed of the bootstrap's stream unless :func:`analyse` is given one.
        raw: The sample matrix as SALib drew it, ``(n_samples, n_params)``.
        params: Per sample, the scenario values (integers rounded).
        point_of_sample: Per sample, the index of its sweep point (equal samples share a point).
        levels: Morris grid levels.
    """

    ranges: tuple[ParamRange, ...]
    method: str
    n: int
    seed: int
    raw: np.ndarray
    params: tuple[dict[str, Any], ...]
    point_of_sample: np.ndarray
    levels: int = 4

    @property
    def problem(self) -> dict[str, Any]:
        """SALib's problem dictionary."""
        return _problem(self.ranges)

    @property
    def n_points(self) -> int:
        """Distinct sweep points."""
        return int(self.point_of_sample.max()) + 1

    def plan(self, scenario: Scenario, n_seeds: int, root_seed: int | None = None) -> SweepPlan:
        """The sweep that runs every distinct sample for ``n_seeds`` seeds (pooled metrics only).

        Raises:
            ConfigError: Too many runs (naming ``--seeds``), or a sampled value the scenario
                rejects (naming the ``--param``).
        """
        check_sweep_size(self.n_points, n_seeds, SAMPLES)  # before a scenario is validated per sample
        first = {int(p): i for i, p in reversed(list(enumerate(self.point_of_sample)))}
        points = []
        for index in range(self.n_points):
            params = self.params[first[index]]
            try:
                points.append(Point(params, scenario.with_overrides(params)))
            except ConfigError as error:
                raise ConfigError(
                    f"--param {error.field}", f"{error.problem} (at {params})", "narrow the range"
                ) from None
        seed = scenario.seed if root_seed is None else root_seed
        return SweepPlan(tuple(points), n_seeds=n_seeds, root_seed=seed, per_step=False)


#: A sensitivity analysis' points: its samples, set by ``--samples``.
SAMPLES = PointsOption(
    "--samples", "samples (N·(D+2) for Sobol, N·(D+1) for Morris)", "give a smaller --samples or fewer --param"
)


def _problem(ranges: Sequence[ParamRange]) -> dict[str, Any]:
    return {"num_vars": len(ranges), "names": [r.key for r in ranges], "bounds": [[r.low, r.high] for r in ranges]}


def design(
    ranges: Sequence[ParamRange], method: str = "sobol", n: int = 64, *, seed: int = 0, levels: int = 4
) -> SensitivityDesign:
    """Draw the samples of a sensitivity analysis.

    Args:
        ranges: The varied fields (at least one; two for a meaningful Sobol analysis).
        method: ``"sobol"``: Saltelli's scheme, ``n·(D+2)`` samples (first- and total-order
            indices); ``"morris"``: ``n`` trajectories of ``D+1`` samples (elementary effects).
        n: Base sample size (a power of two for Sobol) or number of trajectories.
        seed: Seed of the sampler.
        levels: Grid levels of the Morris design.

    Returns:
        The design.

    Raises:
        ConfigError: Unknown method, too small ``n``, or a key given twice.
    """
    if method not in METHODS:
        raise ConfigError("--method", f"{method!r} is not a method", f"use one of {', '.join(METHODS)}")
    if not ranges or len({r.key for r in ranges}) != len(ranges):
        raise ConfigError("--param", "needs distinct fields", "give each --param key=lo:hi once")
    if method == "sobol" and (n < 2 or n & (n - 1)):
        raise ConfigError("--samples", f"{n} is not a power of two >= 2", "give 8, 16, 32, 64, ...")
    if method == "morris" and n < 2:
        raise ConfigError("--samples", "Morris needs at least 2 trajectories", "give --samples 2 or more")
    if method == "morris" and (levels < 2 or levels % 2 or levels > MAX_MORRIS_LEVELS):
        raise ConfigError(
            "--levels",
            f"must be an even number from 2 to {MAX_MORRIS_LEVELS:,}, got {levels}",
            "give 4 (the usual choice), 6 or 8: Morris' grid has that many levels per field",
        )
    check_sweep_size(n * (len(ranges) + (2 if method == "sobol" else 1)), 1, SAMPLES)  # before the sampler allocates
    problem = _problem(ranges)
    if method == "sobol":
        raw = require("SALib.sample.sobol").sample(problem, n, calc_second_order=False, seed=seed)
    else:
        raw = require("SALib.sample.morris").sample(problem, n, num_levels=levels, seed=seed)
    params = tuple({r.key: r.value(x) for r, x in zip(ranges, row, strict=True)} for row in raw)
    labels: dict[str, int] = {}
    point_of_sample = np.array([labels.setdefault(canonical_json(p), len(labels)) for p in params], dtype=np.int64)
    return SensitivityDesign(tuple(ranges), method, n, seed, np.asarray(raw, float), params, point_of_sample, levels)


def sample_frame(directory: str | Path, design: SensitivityDesign, metric: MetricSpec) -> pd.DataFrame:
    """One row per sample: its parameters, sweep point and the metric's seed mean, variance and count.

    Args:
        directory: The sweep directory of :meth:`SensitivityDesign.plan`.
        design: The design.
        metric: What to measure.

    Returns:
        Columns ``sample``, one per parameter, ``point``, ``mean``, ``var`` (over seeds, ``ddof=1``),
        ``n_seeds`` (seeds where the metric is defined).

    Raises:
        ConfigError: Unknown metric or group.
    """
    stats: dict[int, tuple[float, float, int]] = {}
    checked = False
    for point, _, rows in iter_point_results(directory):
        if not checked and len(rows):
            metric.check_against(rows)
            checked = True
        values = metric.per_seed(rows).to_numpy(dtype=float) if len(rows) else np.array([])
        values = values[np.isfinite(values)]
        mean = float(values.mean()) if values.size else float("nan")
        var = float(values.var(ddof=1)) if values.size > 1 else float("nan")
        stats[point] = (mean, var, int(values.size))
    frame = pd.DataFrame({"sample": np.arange(len(design.params))})
    for r in design.ranges:
        frame[r.key] = [p[r.key] for p in design.params]
    frame["point"] = design.point_of_sample
    for i, column in enumerate(("mean", "var", "n_seeds")):
        frame[column] = [stats[int(p)][i] for p in design.point_of_sample]
    return frame


def seed_noise_share(frame: pd.DataFrame) -> float:
    """Share of the variance of the seed means that the seeds alone would produce.

    ``mean_i(s²_i / n_i) / Var_i(ȳ_i)``: the average sampling variance of one sample's seed mean
    over the variance of the seed means across samples; samples with fewer than two finite seeds
    are left out of the numerator (NaN with one seed per sample).
    """
    noise = (frame["var"] / frame["n_seeds"]).to_numpy(dtype=float)
    noise = noise[np.isfinite(noise)]
    total = float(frame["mean"].var(ddof=1))
    if not noise.size or not total > 0:
        return float("nan")
    return float(noise.mean() / total)


def analyse(
    design: SensitivityDesign,
    frame: pd.DataFrame,
    *,
    confidence: float = 0.95,
    resamples: int = 500,
    root_seed: int | None = None,
) -> pd.DataFrame:
    """Sensitivity indices of the seed means, with bootstrap confidence intervals (SALib).

    The bootstrap draws from the study's ``"bootstrap"`` stream
    (:func:`~recoursesim.rng.study_seed`) under ``root_seed`` (default: the design's
    seed), so the same inputs give the same intervals.

    Sobol: columns ``S1``, ``S1_low``, ``S1_high``, ``ST``, ``ST_low``, ``ST_high``. Morris:
    ``mu_star``, ``mu_star_low``, ``mu_star_high``, ``mu``, ``sigma``. Both: ``parameter`` and
    ``rank`` (1 = most influential: by ``ST``, or by ``mu_star``).

    Raises:
        ConfigError: The metric is undefined (no finite seed) at some samples.
    """
    y = frame["mean"].to_numpy(dtype=float)
    missing = np.flatnonzero(~np.isfinite(y))
    if missing.size:
        raise ConfigError(
            "--metric",
            f"is undefined in every seed at {missing.size} of {y.size} samples (e.g. {design.params[missing[0]]})",
            "choose a metric defined everywhere, narrow the ranges, or run more steps",
        )
    names = [r.key for r in design.ranges]
    bootstrap = study_seed(design.seed if root_seed is None else root_seed, "bootstrap")
    if design.method == "sobol":
        result = require("SALib.analyze.sobol").analyze(
            design.problem, y, calc_second_order=False, num_resamples=resamples, conf_level=confidence, seed=bootstrap
        )
        table = pd.DataFrame({"parameter": names})
        for key in ("S1", "ST"):
            value, half = np.asarray(result[key], float), np.asarray(result[f"{key}_conf"], float)
            table[key], table[f"{key}_low"], table[f"{key}_high"] = value, value - half, value + half
        order = table["ST"]
    else:
        result = require("SALib.analyze.morris").analyze(
            design.problem,
            design.raw,
            y,
            num_resamples=resamples,
            conf_level=confidence,
            num_levels=design.levels,
            seed=bootstrap,
        )
        table = pd.DataFrame({"parameter": names})
        value, half = np.asarray(result["mu_star"], float), np.asarray(result["mu_star_conf"], float)
        table["mu_star"], table["mu_star_low"], table["mu_star_high"] = value, value - half, value + half
        table["mu"], table["sigma"] = np.asarray(result["mu"], float), np.asarray(result["sigma"], float)
        order = table["mu_star"]
    table["rank"] = order.rank(ascending=False, method="first").astype("int64")
    return table


@dataclass(frozen=True)
class SensitivityResult:
    """A finished analysis.

    Attributes:
        design: The design.
        metric: The metric.
        samples: :func:`sample_frame`.
        indices: :func:`analyse`.
        noise_share: :func:`seed_noise_share`.
        n_seeds: Seeds per sample.
        report: What the sweep session did.
        scenario_name: The base scenario's name.
        root_seed: Root entropy of the runs.
        sweep: The sweep directory the analysis ran into.
    """

    design: SensitivityDesign
    metric: MetricSpec
    samples: pd.DataFrame
    indices: pd.DataFrame
    noise_share: float
    n_seeds: int
    report: SweepReport
    scenario_name: str
    root_seed: int
    sweep: Path

    def write(self, directory: str | Path) -> list[Path]:
        """Write the tables, the figure and the notes (:data:`SENSITIVITY_FILES`) into ``directory``.

        Each file is written atomically and recorded as recoursesim's (:mod:`recoursesim.output.record`)
        as soon as it is complete; so is the sweep when it is ``directory/sweep`` (it keeps its own
        record).

        Returns:
            The files written.

        Raises:
            ConfigError: one of them is there but recoursesim did not write it, or it was changed since.
        """
        from recoursesim.policy.figures import sensitivity_figure

        directory = Path(directory)
        output.check_own_files(directory, REWRITTEN)
        if (directory / "sweep").resolve() == self.sweep.resolve():
            output.record_nested(directory, directory / "sweep")
        paths = [directory / name for name in REWRITTEN]
        for frame, path in ((self.samples, paths[0]), (self.indices, paths[1])):
            write_parquet(frame, path)
            output.record_file(directory, path)
        with replacing(paths[2]) as tmp:
            sensitivity_figure(
                self.indices,
                method=self.design.method,
                n=self.design.n,
                samples=len(self.design.params),
                metric=self.metric.label,
                noise_share=self.noise_share,
                n_seeds=self.n_seeds,
            ).savefig(tmp, dpi=110, format="png")
        output.record_file(directory, paths[2])
        output.write_recorded(directory, paths[3], (json.dumps(self.notes(), indent=2) + "\n").encode("utf-8"))
        return paths

    def notes(self) -> dict[str, Any]:
        """What ``sensitivity.json`` holds: the method, ranges, metric, seeds, seed-noise share and timing."""
        design = self.design
        return {
            "scenario": self.scenario_name,
            "method": design.method,
            "samples": design.n,
            "n_samples": len(design.params),
            "n_points": design.n_points,
            "seeds": self.n_seeds,
            "root_seed": self.root_seed,
            "metric": self.metric.label,
            "ranges": [{"key": r.key, "low": r.low, "high": r.high, "integer": r.integer} for r in design.ranges],
            "seed_noise_share": self.noise_share if math.isfinite(self.noise_share) else None,
            "runs": self.report.n_runs,
            "runs_this_session": self.report.succeeded,
            "seconds_this_session": round(self.report.seconds, 3),
            "files": SENSITIVITY_FILES,
        }


def run_sensitivity(
    scenario: Scenario,
    design: SensitivityDesign,
    metric: MetricSpec,
    out: str | Path,
    *,
    n_seeds: int,
    root_seed: int | None = None,
    executor: Executor | None = None,
    resume: bool = False,
    progress: bool = False,
    confidence: float = 0.95,
    resamples: int = 500,
    runner: Callable[[RunTask], RunOutcome] = execute,
) -> SensitivityResult:
    """Run ``design`` on the sweep engine into ``out`` and estimate the indices.

    Args:
        scenario: The base scenario.
        design: :func:`design`.
        metric: What to measure.
        out: The sweep directory (new, or this same sweep with ``resume``).
        n_seeds: Seeds per sample.
        root_seed: Root entropy (default: the scenario's ``run.seed``).
        executor: Where runs execute (default: this process).
        resume: Continue the sweep in ``out``.
        progress: Progress bar on stderr.
        confidence: Coverage of the bootstrap intervals.
        resamples: Bootstrap resamples.
        runner: The per-run function (the sweep's).

    Returns:
        The result (nothing but the sweep is written; :meth:`SensitivityResult.write` writes the rest).

    Raises:
        ConfigError: A run failed (the sweep is kept; rerun with resume), or as :func:`analyse`.
    """
    plan = design.plan(scenario, n_seeds, root_seed)
    report = run_sweep(plan, out, executor=executor, resume=resume, progress=progress, runner=runner)
    if report.failures:
        first = report.failures[0]
        raise ConfigError(
            "sensitivity",
            f"{len(report.failures)} of {report.n_runs} runs failed (first: {first['params']}: {first['error']})",
            f"see {Path(out) / 'errors'}/, narrow the ranges, and rerun with --resume",
        )
    samples = sample_frame(out, design, metric)
    indices = analyse(design, samples, confidence=confidence, resamples=resamples, root_seed=plan.root_seed)
    noise = seed_noise_share(samples)
    return SensitivityResult(
        design, metric, samples, indices, noise, n_seeds, report, scenario.name, plan.root_seed, Path(out)
    )
