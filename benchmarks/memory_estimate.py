"""Compare the run-size estimate of ``recoursesim.resources`` with the measured peak memory of real runs.

Usage: python benchmarks/memory_estimate.py [--initial 20000 100000 200000] [--steps 20] [--json PATH] [--quick]

``--json`` writes, per size, the estimate, the measured peak and their ratio (``estimate_over_peak``);
``--quick`` measures 20,000 initial agents only.

Each size runs ``recoursesim run default --no-write`` (plus the Parquet encoding of its results,
as a written run does) in a fresh process and reports that process's peak resident memory (ru_maxrss)
next to the estimate; the ratio should stay at or above 1 (the estimate is an upper bound).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import io, json, resource, sys
from recoursesim.scenario import load_scenario
from recoursesim.simulate import simulate
initial, steps = int(sys.argv[1]), int(sys.argv[2])
scenario = load_scenario("default").with_overrides(
    {"population.initial": initial, "population.entrants": initial // 10, "selection.k": initial // 10,
     "run.steps": steps}
)
result = simulate(scenario, 0, force=True)
for frame in (result.ledger, result.metrics, result.summary, result.model.agent_frame()):
    frame.to_parquet(io.BytesIO())
rows = len(result.ledger)
print(json.dumps({"rows": rows, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main() -> None:
    """Run each size and print estimate, measured peak and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--initial", type=int, nargs="+", default=[20000, 100000, 200000])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None, help="write the figures as JSON to PATH")
    parser.add_argument("--quick", action="store_true", help="20,000 initial agents only")
    args = parser.parse_args()
    if args.quick:
        args.initial = [20000]
    load_before = os.getloadavg()[0]
    figures: dict[str, object] = {}
    from recoursesim.resources import estimate_run, format_bytes
    from recoursesim.scenario import load_scenario

    print(f"{'initial':>8} {'rows est':>10} {'rows':>10} {'estimate':>10} {'peak RSS':>10} {'est/peak':>8}")
    for initial in args.initial:
        scenario = load_scenario("default").with_overrides(
            {
                "population.initial": initial,
                "population.entrants": initial // 10,
                "selection.k": initial // 10,
                "run.steps": args.steps,
            }
        )
        size = estimate_run(scenario.config)
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(initial), str(args.steps)], capture_output=True, text=True, check=True
        )
        measured = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{initial:>8} {size.rows:>10,} {measured['rows']:>10,} {format_bytes(size.bytes):>10} "
            f"{format_bytes(measured['peak']):>10} {size.bytes / measured['peak']:>8.2f}  load {os.getloadavg()[0]:.2f}"
        )
        figures[f"initial_{initial}"] = {
            "estimate_bytes": size.bytes,
            "peak_rss_bytes": measured["peak"],
            "estimate_over_peak": size.bytes / measured["peak"],
        }
    figures["load_average"] = [load_before, os.getloadavg()[0]]
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
