"""Bell et al. (2024) Table 1: paper values and the reproduction of its cells."""

from __future__ import annotations

import contextlib
import math
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError, RecourseSimError
from recoursesim.report.document import pipe_table
from recoursesim.scenario import Scenario
from recoursesim.stats import mean_interval
from recoursesim.sweep import Point, SweepPlan, iter_point_results, make_executor, run_sweep

EFFORTS = ("equal", "adv_more", "dis_more")
QS = (0, 1, 2, 3)

#: Paper Table 1 (mean over 100 seeds ± SEM), keyed by (effort, q, strategy, metric).
_RETR = {
    "baseline": [1.001, 1.213, 1.429, 1.640, 0.942, 1.109, 1.275, 1.429, 1.064, 1.252, 1.433, 1.605],
    "cns": [1.006, 1.066, 1.133, 1.207, 0.737, 0.805, 0.886, 0.975, 1.366, 1.477, 1.576, 1.672],
    "cda": [1.001, 1.079, 1.158, 1.237, 0.994, 1.049, 1.108, 1.170, 1.007, 1.064, 1.123, 1.190],
    "cns+cda": [0.999, 1.044, 1.020, 1.063, 0.940, 0.916, 0.901, 0.951, 1.064, 1.090, 1.127, 1.175],
}
_RETR_SEM = {
    "baseline": [0.003, 0.003, 0.004, 0.006, 0.002, 0.003, 0.003, 0.004, 0.002, 0.003, 0.004, 0.005],
    "cns": [0.004, 0.004, 0.004, 0.005, 0.002, 0.002, 0.002, 0.003, 0.004, 0.005, 0.006, 0.006],
    "cda": [0.001, 0.001, 0.002, 0.002, 0.001, 0.001, 0.001, 0.002, 0.001, 0.001, 0.002, 0.003],
    "cns+cda": [0.001, 0.002, 0.005, 0.004, 0.001, 0.004, 0.005, 0.003, 0.002, 0.001, 0.002, 0.003],
}
_DTTR = {
    # CNS + CDA dTTR is not in Table 1; these are the paper's Table 2 ("Combined") values.
    "cns+cda": [0.004, 0.226, 0.220, 0.021, 0.181, 0.182, 0.046, -0.050, -0.199, -0.127, -0.073, 0.030],
    "baseline": [-0.043, 0.646, 1.177, 1.573, 1.315, 1.835, 2.257, 2.532, -1.338, -0.845, -0.446, -0.168],
    "cns": [0.006, 0.021, 0.022, 0.038, 0.100, 0.084, 0.050, -0.029, -0.101, -0.085, -0.065, -0.047],
    "cda": [-0.026, 1.012, 1.877, 2.477, 1.290, 2.172, 2.851, 3.295, -1.292, -0.426, 0.335, 0.925],
}
_DTTR_SEM = {
    "cns+cda": [0.012, 0.015, 0.017, 0.014, 0.014, 0.012, 0.015, 0.013, 0.013, 0.014, 0.016, 0.019],
    "baseline": [0.022, 0.023, 0.024, 0.024, 0.021, 0.023, 0.023, 0.023, 0.021, 0.021, 0.024, 0.024],
    "cns": [0.014, 0.013, 0.013, 0.013, 0.012, 0.012, 0.015, 0.015, 0.014, 0.014, 0.014, 0.015],
    "cda": [0.021, 0.021, 0.022, 0.022, 0.021, 0.021, 0.022, 0.025, 0.018, 0.019, 0.019, 0.022],
}


def _table() -> dict[tuple[str, int, str, str], tuple[float, float]]:
    table = {}
    for metric, means, sems in (("rETR", _RETR, _RETR_SEM), ("dTTR", _DTTR, _DTTR_SEM)):
        for strategy, values in means.items():
            for i, (mean, sem) in enumerate(zip(values, sems[strategy], strict=True)):
                table[(EFFORTS[i // 4], QS[i % 4], strategy, metric)] = (mean, sem)
    return table


#: ``(effort, q, strategy, metric) -> (paper mean, paper SEM)``.
PAPER_TABLE1 = _table()

#: Strategy name -> the named scenario preset that runs it (see :mod:`recoursesim.scenario.presets`).
STRATEGIES: dict[str, str] = {
    "baseline": "bell2024",
    "cns": "bell2024-cns",
    "cda": "bell2024-cda",
    "cns+cda": "bell2024-cns-cda",
    "gupta": "bell2024-gupta",
}


@dataclass(frozen=True)
class Cell:
    """One reproduced Table-1 cell."""

    effort: str
    q: int
    strategy: str
    metric: str
    ours_mean: float
    ours_sem: float
    paper_mean: float | None
    paper_sem: float | None
    reproduced: bool | None
    n_seeds: int


def setting_scenario(effort: str, q: int, strategy: str = "baseline") -> Scenario:
    """The scenario of one Table-1 setting: the strategy's preset with this effort condition and ``q``."""
    if strategy not in STRATEGIES:
        raise ConfigError("--strategy", f"unknown strategy {strategy!r}", f"use one of {', '.join(STRATEGIES)}")
    spec = {
        "preset": STRATEGIES[strategy],
        "name": f"bell2024-{strategy}-{effort}-q{q}",
        "population": {"q": float(q), "effort": effort},
    }
    return Scenario.from_dict(spec, source=f"bell2024 {strategy} {effort} q={q}")


def reproduce(
    strategies: Sequence[str],
    seeds: int,
    *,
    workers: int = 1,
    settings: Iterable[tuple[str, int]] | None = None,
    sigmas: float = 4.0,
    progress: Callable[[str], None] | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    scheduler: str | None = None,
    dask_local: int | None = None,
) -> list[Cell]:
    """Run every (effort, q) setting for each strategy over ``seeds`` seeds and compare with the paper.

    The runs are one :mod:`recoursesim.sweep`: grid points (strategy, effort, q), seeds spawned from
    ``SeedSequence(0)``, one shard per run. A cell is reproduced when
    ``|ours − paper| <= sigmas · sqrt(SEM_ours² + SEM_paper²)``.

    Args:
        strategies: Names from :data:`STRATEGIES`.
        seeds: Runs per setting (children ``0 … seeds-1`` of ``SeedSequence(0)``).
        workers: Local worker processes (joblib).
        settings: ``(effort, q)`` pairs (default: all 12).
        sigmas: Tolerance in combined standard errors.
        progress: Called with a line of text per finished setting; also shows the sweep's progress bar.
        out: Keep the sweep's shards in this directory (default: a temporary one, removed afterwards).
        resume: Continue the sweep already in ``out``.
        scheduler: Run on this Dask scheduler instead of local processes.
        dask_local: Run on a Dask ``LocalCluster`` with this many workers.

    Returns:
        Two cells (rETR, dTTR) per setting and strategy.

    Raises:
        RecourseSimError: A strategy is unknown, the executor cannot start, or a run failed.
    """
    settings = list(settings or [(e, q) for e in EFFORTS for q in QS])
    points = tuple(
        Point({"strategy": strategy, "effort": effort, "q": q}, setting_scenario(effort, q, strategy))
        for strategy in strategies
        for effort, q in settings
    )
    plan = SweepPlan(points, n_seeds=seeds, root_seed=0, per_step=False)
    cells: list[Cell] = []
    with contextlib.ExitStack() as stack:
        directory = Path(out) if out is not None else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        executor = stack.enter_context(make_executor(workers, scheduler=scheduler, dask_local=dask_local))
        report = run_sweep(plan, directory, executor=executor, resume=resume, progress=progress is not None)
        if report.failures:
            first = report.failures[0]
            raise RecourseSimError(
                f"{len(report.failures)} of {report.n_runs} runs failed (first: {first['params']} seed "
                f"{first['seed_index']}: {first['error']}); records in {directory / 'errors'}"
            )
        for _, params, rows in iter_point_results(directory):
            pooled = rows[rows["step"].isna() & (rows["group"] == "disadvantaged")]
            for metric in ("rETR", "dTTR"):
                values = pooled.loc[pooled["metric"] == metric.lower(), "value"].to_numpy(dtype=float)
                cells.append(_cell(params["effort"], params["q"], params["strategy"], metric, values, sigmas))
            if progress:
                progress(format_cells(cells[-2:], header=False))
    return cells


def _cell(effort: str, q: int, strategy: str, metric: str, values: np.ndarray, sigmas: float) -> Cell:
    summary = mean_interval(values)  # finite values only; sem NaN below two seeds
    mean, sem = summary.mean, summary.sem
    paper = PAPER_TABLE1.get((effort, q, strategy, metric))
    reproduced = None
    if paper is not None:
        reproduced = bool(abs(mean - paper[0]) <= sigmas * math.hypot(sem, paper[1]))
    return Cell(effort, q, strategy, metric, mean, sem, paper and paper[0], paper and paper[1], reproduced, summary.n)


def format_cells(cells: Sequence[Cell], header: bool = True) -> str:
    """Plain-text table of cells: paper vs ours, and the distance in combined standard errors."""
    lines = []
    if header:
        lines.append(
            f"{'strategy':9s} {'effort':9s} {'q':>2s} {'metric':6s} {'paper':>15s} {'ours':>15s} {'z':>6s}  ok"
        )
    for c in cells:
        paper = "—" if c.paper_mean is None else f"{c.paper_mean:.3f}±{c.paper_sem:.3f}"
        z = (
            ""
            if c.paper_mean is None or c.paper_sem is None
            else f"{(c.ours_mean - c.paper_mean) / math.hypot(c.ours_sem, c.paper_sem):+.2f}"
        )
        ok = {True: "yes", False: "NO", None: "n/a"}[c.reproduced]
        lines.append(
            f"{c.strategy:9s} {c.effort:9s} {c.q:2d} {c.metric:6s} {paper:>15s} "
            f"{c.ours_mean:>8.3f}±{c.ours_sem:.3f} {z:>6s}  {ok}"
        )
    return "\n".join(lines)


#: How the docs name each strategy.
STRATEGY_TITLES = {"baseline": "baseline", "cns": "CNS", "cda": "CDA", "cns+cda": "CNS + CDA", "gupta": "Gupta"}


def markdown_table(rows: pd.DataFrame, strategies: Sequence[str]) -> str:
    """The docs' table of reproduced cells per strategy and metric, from the cells' rows.

    Args:
        rows: One row per cell (the fields of :class:`Cell`; ``reproduced`` empty where the paper
            has no value).
        strategies: The strategies to show, in order.

    Returns:
        ``| strategy | rETR cells | dTTR cells |`` with ``reproduced/compared`` in each cell.
    """
    table = []
    for strategy in strategies:
        counts = {}
        for metric in ("rETR", "dTTR"):
            compared = rows[(rows["strategy"] == strategy) & (rows["metric"] == metric) & rows["reproduced"].notna()]
            counts[f"{metric} cells"] = f"{int(compared['reproduced'].astype(bool).sum())}/{len(compared)}"
        table.append({"strategy": STRATEGY_TITLES[strategy], **counts})
    return pipe_table(pd.DataFrame(table, columns=["strategy", "rETR cells", "dTTR cells"]))
