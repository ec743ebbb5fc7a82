"""Time scenario discovery (``recoursesim discover``) over a 10,000-run sweep; target: PRIM in <= 10 s.

Usage: python benchmarks/discover.py [--json PATH] [--quick]

The sweep is written once with a synthetic runner (each run's dTTR is a fixed function of its
point plus seed noise: bad when k < 20 and the effort scale < 0.3), so the figures measure the
discovery, not the simulation: ``read_seconds`` reads the sweep's shards into one case per run,
``prim_seconds`` runs the EMA Workbench's PRIM and chooses the boxes, ``seconds`` is both;
``import_seconds`` (importing PRIM, once per process) is apart. Each figure has its CPU time
beside it (``*_cpu_seconds``, this process's, all threads): on a shared machine the wall-clock
time is the CPU time stretched by the load, which is printed too.
``--quick``: 1,000 runs. Needs the ema extra (``pip install -e '.[ema]'``); without it the script
says so and writes no figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim.scenario import load_scenario
from recoursesim.sweep import RunOutcome, RunTask, SweepPlan, run_sweep
from recoursesim.sweep.worker import encode_shard

TARGET_SECONDS = 10.0


def synthetic_runner(task: RunTask) -> RunOutcome:
    noise = np.random.default_rng(task.seed.generate_state(1)).uniform(-0.4, 0.4)
    bad = task.params["selection.k"] < 20 and task.params["population.effort.scale"] < 0.3
    summary = pd.DataFrame({"group": ["male", "female"], "dttr": [0.0, (3.0 if bad else 1.0) + noise]})
    return RunOutcome(task, encode_shard(task, None, summary))


def build(out: Path, n_k: int, n_effort: int, n_seeds: int) -> int:
    grid = {
        "selection.k": [int(k) for k in np.linspace(10, 60, n_k).round()],
        "population.effort.scale": [round(float(e), 4) for e in np.linspace(0.01, 1.0, n_effort)],
    }
    grid["selection.k"] = sorted(set(grid["selection.k"]))
    plan = SweepPlan.from_grid(load_scenario("german-credit-lending"), grid, n_seeds=n_seeds, per_step=False)
    run_sweep(plan, out, progress=False, runner=synthetic_runner)
    return plan.n_runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if importlib.util.find_spec("ema_workbench") is None:
        print("discover: skipped (the ema extra is not installed: pip install -e '.[ema]')")
        if args.json:
            args.json.write_text(json.dumps({"skipped": "ema extra not installed"}))
        return
    from recoursesim.policy._deps import require_prim
    from recoursesim.policy.discover import discover, parse_condition, read_cases

    started, cpu = time.perf_counter(), time.process_time()
    require_prim()
    import_seconds, import_cpu = time.perf_counter() - started, time.process_time() - cpu

    n_k, n_effort, n_seeds = (10, 25, 4) if args.quick else (50, 50, 4)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        n_runs = build(Path(tmp) / "sweep", n_k, n_effort, n_seeds)
        build_seconds = time.perf_counter() - started
        started, cpu = time.perf_counter(), time.process_time()
        cases = read_cases(Path(tmp) / "sweep", parse_condition("dTTR:female > 2"))
        read_seconds, read_cpu = time.perf_counter() - started, time.process_time() - cpu
        started, cpu = time.perf_counter(), time.process_time()
        found = discover(cases)
        prim_seconds, prim_cpu = time.perf_counter() - started, time.process_time() - cpu
    box = found.boxes[0]
    figures = {
        "runs": n_runs,
        "import_seconds": round(import_seconds, 2),
        "import_cpu_seconds": round(import_cpu, 2),
        "build_seconds": round(build_seconds, 2),
        "read_seconds": round(read_seconds, 3),
        "read_cpu_seconds": round(read_cpu, 3),
        "prim_seconds": round(prim_seconds, 3),
        "prim_cpu_seconds": round(prim_cpu, 3),
        "seconds": round(read_seconds + prim_seconds, 3),
        "target_seconds": TARGET_SECONDS,
        "coverage": round(box.coverage, 4),
        "density": round(box.density, 4),
        "load_average": os.getloadavg()[0],
    }
    print(
        f"discover over {n_runs} runs: read {read_seconds:.2f} s (CPU {read_cpu:.2f} s), "
        f"PRIM {prim_seconds:.2f} s (CPU {prim_cpu:.2f} s) "
        f"(importing PRIM {import_seconds:.2f} s, CPU {import_cpu:.2f} s, apart) "
        f"(target <= {TARGET_SECONDS:g} s), box 1 coverage {box.coverage:.3f} density {box.density:.3f}; "
        f"load average {figures['load_average']:.2f}"
    )
    if args.json:
        args.json.write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
