"""Sweep throughput: runs per second with 1 and 2 local workers, parallel efficiency, full Table 1 time.

Usage:
    python benchmarks/sweep.py [--runs 200] [--repeats 3] [--table1-seeds 100] [--skip-table1] [--json sweep.json]
                               [--quick]

``--quick``: 20 runs per measurement, one round, no full Table 1.

With dask.distributed installed (and without ``--skip-dask``), the same plans also run on a
2-worker Dask ``LocalCluster``, in rounds alternating with the 2 loky workers:
``dask_vs_joblib_2`` is the median ratio of Dask's wall time to joblib's (target <= 1.15).

The workload is the Table-1 run (bell2024 preset, baseline strategy, paper scale: T = 20, 1000
initial agents, k = 100), pooled metrics only, each run written as its own shard. The 2-worker pool
is started (and its workers have imported recoursesim) before the clock starts, so the figure is
the steady-state rate; the pool's start-up time is reported separately. 1-worker and 2-worker
rounds alternate and the medians are reported, so a change in the machine's load hits both. ``table1_full_seconds`` is
the wall time of ``reproduce(<Table-1 strategies that exist>, 100, workers=2)`` from a cold start.
The machine's load average is recorded before and after: on a shared machine the figures are only
as good as the idle cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from recoursesim.reproductions.bell2024 import EFFORTS, QS, STRATEGIES, reproduce, setting_scenario
from recoursesim.sweep import DaskExecutor, JoblibExecutor, Point, SweepPlan, execute, run_sweep
from recoursesim.sweep.executors import Executor

TABLE1_STRATEGIES = ("baseline", "cns", "cda", "cns+cda")


def _plan(n_runs: int, root_seed: int) -> SweepPlan:
    settings = [(e, q) for e in EFFORTS for q in QS]
    points = tuple(
        Point({"effort": e, "q": q}, setting_scenario(e, q, "baseline")) for e, q in settings[: min(4, n_runs)]
    )
    return SweepPlan(points, n_seeds=max(1, n_runs // len(points)), root_seed=root_seed, per_step=False)


def _rate(plan: SweepPlan, executor: Executor) -> tuple[float, float, float]:
    """Runs per second, wall seconds, and the mean run time inside the workers."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        report = run_sweep(plan, Path(tmp) / "sweep", executor=executor, progress=False)
        seconds = time.perf_counter() - start
    if not report.ok:
        raise SystemExit(f"benchmark sweep failed: {report.failures[:1]}")
    return plan.n_runs / seconds, seconds, report.run_seconds / plan.n_runs


def _dask_rounds(runs: int, repeats: int, loky: JoblibExecutor) -> dict[str, object] | None:
    """Alternate 2-worker Dask and 2-worker loky rounds on the same plans; their median time ratio."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("dask.distributed is not installed: no Dask comparison")
        return None
    ratios = []
    with DaskExecutor(local_workers=2) as dask:
        _rate(_plan(4, root_seed=98), dask)  # workers import recoursesim before the clock starts
        for repeat in range(repeats):
            plan = _plan(runs, root_seed=101 + repeat)
            rate_loky, _, _ = _rate(plan, loky)
            rate_dask, _, _ = _rate(plan, dask)
            ratios.append((rate_loky / rate_dask, os.getloadavg()[0]))
            print(
                f"dask round {repeat + 1}: loky {rate_loky:6.2f} runs/s, dask {rate_dask:6.2f} runs/s, "
                f"dask takes {ratios[-1][0]:.2f}x loky's time, load {ratios[-1][1]:.2f}"
            )
    ratio = statistics.median(r[0] for r in ratios)
    print(f"  Dask LocalCluster (2 workers) wall time / loky (2 workers): {ratio:.2f}x (target <= 1.15)")
    return {
        "dask_vs_joblib_2": round(ratio, 3),
        "dask_rounds": [{"ratio": round(r, 3), "load_1min": round(load, 2)} for r, load in ratios],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200, help="runs per throughput measurement (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating 1-/2-worker rounds (default 3)")
    parser.add_argument("--table1-seeds", type=int, default=100, help="seeds per Table-1 setting (default 100)")
    parser.add_argument(
        "--table1-strategies",
        default=",".join(TABLE1_STRATEGIES),
        help="comma-separated Table-1 strategies to time (default: all four; those not defined are skipped)",
    )
    parser.add_argument("--skip-table1", action="store_true", help="do not time the full Table 1")
    parser.add_argument("--skip-dask", action="store_true", help="do not compare with a 2-worker Dask cluster")
    parser.add_argument("--json", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="20 runs, one round, no full Table 1")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.repeats, args.skip_table1 = 20, 1, True

    load_before = os.getloadavg()
    print(f"cpus {os.cpu_count()}, load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}")
    warm = _plan(4, root_seed=99)
    one = JoblibExecutor(1)
    _rate(warm, one)  # import and first-run costs out of the measurement
    start = time.perf_counter()
    rounds = []
    with JoblibExecutor(2) as two:
        list(two.map_unordered(execute, SweepPlan(warm.points, n_seeds=2, per_step=False).tasks()))
        startup = time.perf_counter() - start
        # Alternate 1-worker and 2-worker rounds so that a change in the machine's load hits both alike.
        for repeat in range(args.repeats):
            plan = _plan(args.runs, root_seed=1 + repeat)
            rate_1, _, per_run_1 = _rate(plan, one)
            rate_2, _, per_run_2 = _rate(plan, two)
            rounds.append((rate_1, rate_2, per_run_1, per_run_2, os.getloadavg()[0]))
            print(
                f"round {repeat + 1}: 1 worker {rate_1:6.2f} runs/s ({per_run_1 * 1e3:.1f} ms/run), "
                f"2 workers {rate_2:6.2f} runs/s ({per_run_2 * 1e3:.1f} ms/run), "
                f"efficiency {rate_2 / (2 * rate_1):.1%}, load {rounds[-1][4]:.2f}"
            )
        dask = None if args.skip_dask else _dask_rounds(args.runs, args.repeats, two)
    rate_1 = statistics.median(r[0] for r in rounds)
    rate_2 = statistics.median(r[1] for r in rounds)
    efficiency = statistics.median(r[1] / (2 * r[0]) for r in rounds)
    occupancy = statistics.median(r[1] * r[3] / 2 for r in rounds)
    slowdown = statistics.median(r[3] / r[2] for r in rounds)
    print(f"median of {args.repeats} rounds × {args.runs} runs (2-worker pool start-up {startup:.1f} s, not counted):")
    print(f"  1 worker : {rate_1:6.2f} runs/s")
    print(f"  2 workers: {rate_2:6.2f} runs/s")
    print(f"  parallel efficiency with 2 workers: {efficiency:.1%}")
    print(
        f"  worker occupancy with 2 workers: {occupancy:.1%} (time the workers spent inside runs); a run took "
        f"{slowdown:.2f}× as long with 2 workers as with 1: CPU time the other processes on the machine took"
    )

    results: dict[str, object] = {
        "runs_per_s_1": round(rate_1, 3),
        "runs_per_s_2": round(rate_2, 3),
        "efficiency_2": round(efficiency, 4),
        "table1_full_seconds": None,
        "pool_startup_seconds_2": round(startup, 2),
        "worker_occupancy_2": round(occupancy, 4),
        "run_time_ratio_2_vs_1": round(slowdown, 3),
        "runs_per_measurement": args.runs,
        "rounds": [
            {"runs_per_s_1": round(a, 3), "runs_per_s_2": round(b, 3), "load_1min": round(load, 2)}
            for a, b, _, _, load in rounds
        ],
    }
    if dask is not None:
        results.update(dask)
    if not args.skip_table1:
        strategies = [s for s in args.table1_strategies.split(",") if s in STRATEGIES]
        n_runs = len(strategies) * len(EFFORTS) * len(QS) * args.table1_seeds
        print(f"Table 1: {', '.join(strategies)} × 12 settings × {args.table1_seeds} seeds = {n_runs} runs, 2 workers")
        start = time.perf_counter()
        reproduce(strategies, args.table1_seeds, workers=2)
        seconds = time.perf_counter() - start
        print(f"Table 1: {seconds:.1f} s wall ({n_runs / seconds:.2f} runs/s)")
        results.update(
            table1_full_seconds=round(seconds, 1),
            table1_strategies=strategies,
            table1_seeds=args.table1_seeds,
            table1_runs=n_runs,
        )
    load_after = os.getloadavg()
    print(f"load average after: {', '.join(f'{x:.2f}' for x in load_after)}")
    results.update(cpus=os.cpu_count(), load_before=list(load_before), load_after=list(load_after))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
