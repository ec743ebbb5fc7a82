"""Engine speed and memory: paper-scale run time and scaling to 10^6 agents.

Usage:
    python benchmarks/engine.py [--repeats 30] [--sizes 10000,100000,1000000] [--json PATH]

Prints the median in-process time of one paper-scale bell2024 baseline run (T=20, 1000 agents,
k=100, 100 entrants) and of the CNS and CDA strategies, then, for each size N, the time and peak
memory (RSS) of one run with N initial agents, k = entrants = N/10, steps 0..20, each in a fresh
process so peaks do not mix.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from recoursesim.reproductions.bell2024 import setting_scenario
from recoursesim.scenario import Scenario


def paper_scale_scenario(n: int = 1000) -> Scenario:
    return Scenario.from_dict(
        {"preset": "bell2024", "population": {"initial": n, "entrants": n // 10}, "selection": {"k": n // 10}}
    )


def time_paper_scale(repeats: int, scenario: Scenario | None = None) -> list[float]:
    scenario = scenario or paper_scale_scenario()
    times = []
    for seed in range(repeats + 1):
        start = time.perf_counter()
        scenario.build_model(seed).run()
        times.append(time.perf_counter() - start)
    return times[1:]  # the first run warms caches and imports


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
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child)
        return 0
    times = time_paper_scale(args.repeats)
    median = statistics.median(times)
    print(f"paper-scale baseline run (T=20, 1000 agents, k=100): median {median * 1e3:.1f} ms over {len(times)} runs")
    strategy_medians = {}
    for strategy in ("cns", "cda"):
        scenario = setting_scenario("equal", 2, strategy)
        strategy_medians[strategy] = statistics.median(time_paper_scale(args.repeats, scenario))
        print(f"paper-scale {strategy.upper()} run: median {strategy_medians[strategy] * 1e3:.1f} ms")
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
    result = {
        "paper_scale_median_s": median,
        "cns_paper_scale_median_s": strategy_medians["cns"],
        "cda_paper_scale_median_s": strategy_medians["cda"],
        "scaling": scaling,
        "machine": {"python": platform.python_version(), "cpus": len(__import__("os").sched_getaffinity(0))},
    }
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
