"""Run-time overhead of the shift and ground-truth observers (every 5 steps) on German credit.

Usage:
    python benchmarks/shift_overhead.py [--repeats 3] [--json PATH] [--quick]

``--quick``: one timed pair of runs per world.

German credit: 500 applicants + 50 per step, 20 steps, one-hot logistic model, top-k (k = 50), the
search generator (the exact linear one if search is not installed), German credit's ground truth
(a logistic fit on all labelled rows; see docs/shift.md). Prints the median time of a plain run,
of a run with ``domain_shift``, ``model_shift``, ``selection_boundary`` and ``ground_truth`` every 5
steps, and the overhead (target: <= 20%), in wall-clock time and in CPU time. Also measures the
synthetic world for comparison (its runs are ~0.2 s, so fixed observer costs weigh much more there).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from recoursesim.registry import names
from recoursesim.shift import dynamics
from recoursesim.shift.overhead import shift_overhead


def german_overhead(repeats: int = 3) -> dict[str, float]:
    """Shift-observer overhead on the German-credit world: ``{"shift_overhead", "german_plain_s", ...}``.

    Returns an empty dict (and says so) when the dataset population or a mixed-type generator is missing.
    """
    worlds = dynamics.worlds()
    if "german" not in worlds:
        print("German credit: needs the dataset population and a mixed-type generator; skipped")
        return {}
    generator = "search" if "search" in names("recourse") else "exact_linear"
    spec = dynamics.GERMAN | {"recourse": dynamics.GERMAN_GENERATORS[generator]}
    german = shift_overhead(spec, dynamics.GERMAN_TRUTH, repeats)
    print(f"German credit ({generator}): plain {german['plain_s']:.2f} s, with observers "
          f"{german['observed_s']:.2f} s, overhead {100 * german['overhead']:.1f}% (wall); CPU "
          f"{german['plain_cpu_s']:.2f} s vs {german['observed_cpu_s']:.2f} s, "
          f"{100 * german['cpu_overhead']:.1f}%")  # fmt: skip
    return {
        "shift_overhead": german["overhead"],
        "german_plain_s": german["plain_s"],
        "german_observed_s": german["observed_s"],
        "shift_cpu_overhead": german["cpu_overhead"],
        "german_plain_cpu_s": german["plain_cpu_s"],
        "german_observed_cpu_s": german["observed_cpu_s"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None, help="write the figures as JSON to PATH")
    parser.add_argument("--quick", action="store_true", help="one timed pair of runs per world")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats = 1
    out: dict[str, float] = german_overhead(args.repeats)
    spec = dynamics.SYNTHETIC | {"recourse": dynamics.GENERATORS["linear"]}
    synthetic = shift_overhead(spec, dynamics.SYNTHETIC_TRUTH, args.repeats)
    out["synthetic_shift_overhead"] = synthetic["overhead"]
    out["load_average"] = os.getloadavg()[0]
    print(f"synthetic: plain {synthetic['plain_s']:.2f} s, with observers {synthetic['observed_s']:.2f} s, "
          f"overhead {100 * synthetic['overhead']:.1f}% (wall), "
          f"{100 * synthetic['cpu_overhead']:.1f}% (CPU)")  # fmt: skip
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
