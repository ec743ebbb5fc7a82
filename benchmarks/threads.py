"""Native threads in one large run: the default thread pools against BLAS/OpenMP pinned to one thread.

Usage:
    python benchmarks/threads.py [--initial 1000000] [--steps 3] [--repeats 2] [--json PATH] [--quick]

``--quick``: 200,000 initial agents, one repeat.

The run is the default scenario with ``--initial`` agents (entrants and k one tenth of that),
``--steps`` steps, without writing files. Pinned and unpinned runs alternate in this one
process, so a change in the machine's load hits both alike; the figures are the medians:

- ``pinned_over_default_wall`` and ``pinned_over_default_cpu``: wall-clock and CPU time of a
  pinned run over an unpinned one (below 1: pinning helps);
- ``default_wall_s`` and ``pinned_wall_s``: the median wall times;
- ``load_average``: the 1-minute load average before and after.

On a 2-core machine the work of one run is memory-bound at this size; BLAS threads spinning on
both cores then cost CPU time (taken from other processes) without making the run faster.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from recoursesim.scenario import load_scenario
from recoursesim.simulate import simulate
from recoursesim.threads import single_threaded


def timed(initial: int, steps: int, pinned: bool) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run (model built and run, metrics and summary computed)."""
    scenario = load_scenario("default").with_overrides(
        {"population.initial": initial, "population.entrants": initial // 10, "selection.k": initial // 10}
    )
    start, cpu = time.perf_counter(), time.process_time()
    if pinned:
        with single_threaded():
            result = simulate(scenario, 0, steps=steps, force=True)
            _ = result.summary
    else:
        result = simulate(scenario, 0, steps=steps, force=True)
        _ = result.summary
    return time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--initial", type=int, default=1_000_000)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="200,000 agents, one repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.initial, args.repeats = 200_000, 1
    load_before = os.getloadavg()[0]
    timed(min(args.initial, 10_000), 1, False)  # imports and first-call costs out of the measurement
    rounds = []
    for repeat in range(args.repeats):
        default = timed(args.initial, args.steps, False)
        pinned = timed(args.initial, args.steps, True)
        rounds.append((default, pinned))
        print(
            f"round {repeat + 1}: {args.initial:,} agents, steps 0..{args.steps}: default threads "
            f"{default[0]:.2f} s ({default[1]:.2f} s CPU), pinned to one {pinned[0]:.2f} s ({pinned[1]:.2f} s CPU), "
            f"load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    wall = statistics.median(p[0] / d[0] for d, p in rounds)
    cpu = statistics.median(p[1] / d[1] for d, p in rounds)
    load_after = os.getloadavg()[0]
    print(f"pinned / default: wall {wall:.3f}, CPU {cpu:.3f} (1-minute load {load_before:.2f} -> {load_after:.2f})")
    if args.json is not None:
        figures = {
            "pinned_over_default_wall": wall,
            "pinned_over_default_cpu": cpu,
            "default_wall_s": statistics.median(d[0] for d, _ in rounds),
            "pinned_wall_s": statistics.median(p[0] for _, p in rounds),
            "initial_agents": args.initial,
            "load_average": [load_before, load_after],
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
