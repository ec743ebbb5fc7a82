"""Native threads in one large run: the default thread pools against BLAS/OpenMP pinned to one thread.

Usage:
    python benchmarks/threads.py [--initial 1000000] [--steps 3] [--repeats 2] [--json PATH] [--quick]

``--quick``: 200,000 initial agents, one repeat (and 1,000 agents, five repeats).

The run is the default scenario with ``--initial`` agents (entrants and k one tenth of that),
``--steps`` steps, without writing files; then the same with each of ``--small`` agents (default
1,000 and 10,000) over 20 steps, 15 repeats. Pinned and unpinned runs alternate in this one
process, so a change in the machine's load hits both alike; the figures are the medians:

- ``pinned_over_default_wall`` and ``pinned_over_default_cpu``: wall-clock and CPU time of a
  pinned run over an unpinned one (below 1: pinning helps);
- ``default_wall_s`` and ``pinned_wall_s``: the median wall times;
- ``by_size``: the same figures for every population size;
- ``load_average``: the 1-minute load average before and after.

:func:`recoursesim.simulate.simulate` (and ``recoursesim run``) pins a run from
``recoursesim.threads.PIN_FROM_AGENTS`` (100,000) initial agents on: these figures are what that
threshold rests on.

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
from recoursesim.simulate import RunResult
from recoursesim.threads import single_threaded


def timed(initial: int, steps: int, pinned: bool) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run (model built and run, metrics and summary computed)."""
    scenario = load_scenario("default").with_overrides(
        {"population.initial": initial, "population.entrants": initial // 10, "selection.k": initial // 10}
    )
    scenario = scenario.with_overrides({"run.steps": steps})
    start, cpu = time.perf_counter(), time.process_time()
    if pinned:  # what simulate() and `recoursesim run` do from PIN_FROM_AGENTS agents on
        with single_threaded():
            model = scenario.build_model(0).run()
    else:
        model = scenario.build_model(0).run()
    _ = RunResult(scenario, 0, model).summary
    return time.perf_counter() - start, time.process_time() - cpu


def compare(initial: int, steps: int, repeats: int) -> dict[str, float]:
    """Alternate unpinned and pinned runs of ``initial`` agents; the median ratios and times."""
    rounds = []
    for repeat in range(repeats):
        default = timed(initial, steps, False)
        pinned = timed(initial, steps, True)
        rounds.append((default, pinned))
        if repeats <= 3 or repeat == repeats - 1:
            print(
                f"round {repeat + 1}: {initial:,} agents, steps 0..{steps}: default threads "
                f"{default[0]:.3f} s ({default[1]:.3f} s CPU), pinned to one {pinned[0]:.3f} s "
                f"({pinned[1]:.3f} s CPU), load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    wall = statistics.median(p[0] / d[0] for d, p in rounds)
    cpu = statistics.median(p[1] / d[1] for d, p in rounds)
    print(f"{initial:,} agents, pinned / default over {repeats} rounds: wall {wall:.3f}, CPU {cpu:.3f}", flush=True)
    return {
        "initial_agents": initial,
        "pinned_over_default_wall": wall,
        "pinned_over_default_cpu": cpu,
        "default_wall_s": statistics.median(d[0] for d, _ in rounds),
        "pinned_wall_s": statistics.median(p[0] for _, p in rounds),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--initial", type=int, default=1_000_000, help="the largest population (default 10^6)")
    parser.add_argument("--small", default="1000,10000", help="smaller populations, 20 steps each (default 1000,10000)")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="200,000 agents, one repeat; 1,000 agents, 5 repeats")
    args = parser.parse_args(argv)
    small = [int(n) for n in args.small.split(",") if n]
    small_repeats = 15
    if args.quick:
        args.initial, args.repeats, small, small_repeats = 200_000, 1, [1000], 5
    load_before = os.getloadavg()[0]
    timed(min(args.initial, 10_000), 1, False)  # imports and first-call costs out of the measurement
    by_size = [compare(n, 20, small_repeats) for n in small]
    largest = compare(args.initial, args.steps, args.repeats)
    load_after = os.getloadavg()[0]
    print(f"1-minute load {load_before:.2f} -> {load_after:.2f}")
    if args.json is not None:
        figures = {**largest, "by_size": [*by_size, largest], "load_average": [load_before, load_after]}
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
