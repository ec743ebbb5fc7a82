"""Engine speed and memory: paper-scale run time against its floor, CDA against the baseline, scaling to 10^6 agents.

Usage:
    python benchmarks/engine.py [--repeats 30] [--sizes 10000,100000,1000000] [--json PATH] [--quick]

Prints (and writes with ``--json``):

- ``paper_scale_median_s``: the median in-process time of one paper-scale bell2024 baseline run
  (T=20, 1000 agents, k=100, 100 entrants, q=2), the model alone; ``cns_...`` and ``cda_...``: the
  same for the CNS and CDA strategies, and ``cda_over_baseline``: the CDA median over the baseline
  median (target <= 2.5), CDA in the order of the Table-1 reproduction (``refit_then_restate``:
  two recommendation passes per step); ``cda_spec_...``: the same CDA run in the default order
  (``spec``: one recommendation pass per step);
- ``with_outputs_median_s``: the same baseline run with every output a written run keeps (the
  ledger, per-step metrics, summary, agents and durability frames), ``floor_median_s``: the same
  essential work as a bare numpy loop (``benchmarks/_floor.py``), and ``outputs_over_floor``:
  their ratio (target <= 3). The two alternate run by run, so a change in load hits both;
- ``outputs_over_floor_cpu`` and ``cda_over_baseline_cpu``: the same ratios in CPU time
  (``time.process_time``), which other programs on a shared machine disturb less;
- for each size N, the time and peak memory (RSS) of one run with N initial agents,
  k = entrants = N/10, steps 0..20, each in a fresh process so peaks do not mix;
- ``load_average``: the 1-minute load average before and after.

``--quick``: 5 repeats and N = 10,000 only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from _floor import floor_run  # this folder is on sys.path when run as a script

from recoursesim.reproductions.bell2024 import setting_scenario
from recoursesim.scenario import Scenario
from recoursesim.simulate import RunResult


def paper_scale_scenario(n: int = 1000) -> Scenario:
    return Scenario.from_dict(
        {"preset": "bell2024", "population": {"initial": n, "entrants": n // 10}, "selection": {"k": n // 10}}
    )


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one call (CPU time is less sensitive to other programs on the machine)."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    """Median wall-clock and median CPU seconds."""
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def strategy_scenario(name: str) -> Scenario:
    """The paper-scale scenario (q = 2, equal effort) of a Table-1 strategy (``"cda_spec"``: CDA, default order)."""
    if name == "cda_spec":  # the same CDA run with the refit after acting (one recommendation pass per step)
        return setting_scenario("equal", 2, "cda").with_overrides({"training.order": "spec"})
    return setting_scenario("equal", 2, name)


def time_strategies(repeats: int, strategies: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds of one paper-scale run (q = 2) of each strategy, alternating seed by seed."""
    scenarios = {name: strategy_scenario(name) for name in strategies}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in strategies}
    for seed in range(repeats + 1):
        for name, scenario in scenarios.items():
            samples[name].append(timed(lambda: scenario.build_model(seed).run()))  # noqa: B023 (called at once)
    return {name: medians(values[1:]) for name, values in samples.items()}  # the first run warms up


def run_with_outputs(scenario: Scenario, seed: int) -> RunResult:
    """One run and every frame a written run keeps (ledger, metrics, summary, agents, durability)."""
    result = RunResult(scenario, seed, scenario.build_model(seed).run())
    for frame in (result.ledger, result.metrics, result.summary, result.model.agent_frame(), result.durability):
        assert len(frame)
    return result


def time_against_floor(repeats: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall, CPU) seconds of the paper-scale run with all outputs and of its numpy floor, alternating."""
    scenario = setting_scenario("equal", 2, "baseline")
    run_with_outputs(scenario, 0), floor_run(0)  # imports and first-run costs out of the measurement
    ours, floor = [], []
    for seed in range(1, repeats + 1):
        ours.append(timed(lambda: run_with_outputs(scenario, seed)))  # noqa: B023 (called at once)
        floor.append(timed(lambda: floor_run(seed)))  # noqa: B023
    return medians(ours), medians(floor)


def child(n: int) -> None:
    scenario = paper_scale_scenario(n)
    start = time.perf_counter()
    model = scenario.build_model(0).run()
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {"n_agents": n, "seconds": seconds, "peak_rss_mb": peak_kb / 1024, "ledger_rows": len(model.ledger_store)}
        )
    )


def measure(n: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(n)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="5 repeats, N = 10,000 only")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child)
        return 0
    if args.quick:
        args.repeats, args.sizes = 5, "10000"
    load_before = os.getloadavg()[0]
    (with_outputs, with_outputs_cpu), (floor, floor_cpu) = time_against_floor(args.repeats)
    print(
        f"paper-scale run with all outputs: median {with_outputs * 1e3:.1f} ms, numpy floor {floor * 1e3:.1f} ms: "
        f"{with_outputs / floor:.2f}x the floor (CPU time: {with_outputs_cpu / floor_cpu:.2f}x; target <= 3; "
        f"load {os.getloadavg()[0]:.2f})",
        flush=True,
    )
    strategy_medians = time_strategies(args.repeats, ("baseline", "cns", "cda", "cda_spec"))
    median, median_cpu = strategy_medians["baseline"]
    print(f"paper-scale baseline run (T=20, 1000 agents, k=100, q=2): median {median * 1e3:.1f} ms")
    labels = {"cns": "CNS", "cda": "CDA (authors' order, refit_then_restate)", "cda_spec": "CDA (default order, spec)"}
    for strategy, label in labels.items():
        wall, cpu = strategy_medians[strategy]
        print(
            f"paper-scale {label} run: median {wall * 1e3:.1f} ms ({wall / median:.2f}x the baseline; "
            f"CPU time {cpu / median_cpu:.2f}x; load {os.getloadavg()[0]:.2f})",
            flush=True,
        )
    scaling = []
    for n in [int(s) for s in args.sizes.split(",") if s]:
        row = measure(n)
        scaling.append({k: row[k] for k in ("n_agents", "seconds", "peak_rss_mb")})
        seconds, peak, rows = row["seconds"], row["peak_rss_mb"], row["ledger_rows"]
        print(f"N={n:>9,d}: {seconds:7.2f} s  peak RSS {peak:7.0f} MB  ({rows:,d} ledger rows)")
    if len(scaling) > 1:
        first, last = scaling[0], scaling[-1]
        ratio = (last["seconds"] / first["seconds"]) / (last["n_agents"] / first["n_agents"])
        print(f"time per agent, largest vs smallest N: {ratio:.2f}x (1.0 = exactly linear)")
    load_after = os.getloadavg()[0]
    print(f"1-minute load average: {load_before:.2f} before, {load_after:.2f} after ({os.cpu_count()} cores)")
    result = {
        "with_outputs_median_s": with_outputs,
        "floor_median_s": floor,
        "outputs_over_floor": with_outputs / floor,
        "outputs_over_floor_cpu": with_outputs_cpu / floor_cpu,
        "cda_over_baseline": strategy_medians["cda"][0] / median,
        "cda_over_baseline_cpu": strategy_medians["cda"][1] / median_cpu,
        "cda_spec_over_baseline": strategy_medians["cda_spec"][0] / median,
        "cda_spec_over_baseline_cpu": strategy_medians["cda_spec"][1] / median_cpu,
        "paper_scale_median_s": median,
        "cns_paper_scale_median_s": strategy_medians["cns"][0],
        "cda_paper_scale_median_s": strategy_medians["cda"][0],
        "cda_spec_paper_scale_median_s": strategy_medians["cda_spec"][0],
        "scaling": scaling,
        "machine": {"python": platform.python_version(), "cpus": len(os.sched_getaffinity(0))},
        "load_average": [load_before, load_after],
    }
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
