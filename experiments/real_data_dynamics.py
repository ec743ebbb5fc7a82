"""Recourse dynamics on real data: German credit and Adult under top-k, CNS and CDA across seeds.

Runs every bundled real-data scenario (german-credit-lending, adult-income-threshold) under the
three policies of recoursesim.reproductions.real_data for SEEDS seeds and prints, per scenario,
policy and group, the mean and 95% CI across seeds of rETR (effort to recourse relative to the
reference group) and dTTR (time to recourse minus the reference group's). Writes the raw
per-run summaries and the table (CSV) to --out.

Usage:
    python experiments/real_data_dynamics.py --seeds 30 --workers 2 --out results/real_data_dynamics
"""

from __future__ import annotations

import argparse
import sys
import time

from recoursesim.cli._output import atomic_output_dir
from recoursesim.reproductions import real_data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="seeds per condition (default 30)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--steps", type=int, default=None, help="override the scenarios' number of steps")
    parser.add_argument(
        "--scenarios", nargs="+", default=list(real_data.SCENARIOS), help="scenarios to run (default: both)"
    )
    parser.add_argument("--out", default="results/real_data_dynamics", help="output directory")
    args = parser.parse_args(argv)
    if args.seeds < 2 or args.workers < 1 or (args.steps is not None and args.steps < 1):
        print("error: --seeds must be >= 2, --workers >= 1 and --steps >= 1", file=sys.stderr)
        return 2
    unknown = sorted(set(args.scenarios) - set(real_data.SCENARIOS))
    if unknown:
        print(f"error: unknown scenario {unknown[0]!r}; use {', '.join(real_data.SCENARIOS)}", file=sys.stderr)
        return 2
    chosen = {name: real_data.SCENARIOS[name] for name in args.scenarios}
    start = time.perf_counter()
    with atomic_output_dir(args.out, overwrite=True) as out:  # --out is checked before any run
        conditions = real_data.conditions(chosen)
        rows = real_data.run(conditions, args.seeds, args.workers, args.steps)
        table = real_data.table(real_data.summarise(rows))
        rows.to_csv(out / "runs.csv", index=False)
        table.to_csv(out / "table.csv", index=False)
    elapsed = time.perf_counter() - start
    print(table.to_string(index=False))
    print(f"\n{args.seeds} seeds x {len(conditions)} conditions in {elapsed:.0f} s ({args.workers} workers)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
