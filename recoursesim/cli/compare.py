"""``recoursesim compare``: policies side by side over seeds, with CIs and their differences."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from recoursesim.cli._common import atomic_output_dir, non_negative_int, positive_int
from recoursesim.compare import compare_policies, comparison_figure, format_comparison
from recoursesim.errors import ConfigError
from recoursesim.ledger import write_parquet
from recoursesim.scenario import load_scenario

#: Files written by ``--out``.
COMPARE_FILES = {
    "comparison.csv": "mean, sd and CI per (policy, group, metric)",
    "differences.csv": "each policy minus the first: difference, Welch CI, p-value, exceeds_uncertainty",
    "per_seed.parquet": "one row per (policy, seed, group, metric)",
    "comparison.png": "one panel per metric, mean per group and policy with CI error bars",
}


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``compare`` command."""
    files = "\n".join(f"  {name:18s} {what}" for name, what in COMPARE_FILES.items())
    parser = commands.add_parser(
        "compare",
        help="compare policies (scenarios) over seeds, with confidence intervals",
        description=(
            "Run each scenario over the same N seeds and print, per group, the pooled ETR, TTR, rETR, dTTR, "
            "selection rate, successes and censored agents with 95% CIs across seeds, and each policy's "
            "difference from the first with its Welch CI (* when the CI excludes 0).\n\nFiles written with "
            "--out:\n" + files
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenarios", nargs="+", help="two or more scenario TOML files or bundled names")
    parser.add_argument("--seeds", type=positive_int, default=20, help="seeds per scenario (default 20; at least 2)")
    parser.add_argument("--first-seed", type=non_negative_int, default=0, help="the first seed (default 0)")
    parser.add_argument("--workers", type=positive_int, default=1, help="parallel processes (default 1)")
    parser.add_argument("--out", type=Path, default=None, help="write the tables and the figure to this directory")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``recoursesim compare``."""
    if len(args.scenarios) < 2:
        raise ConfigError("scenarios", f"need at least two to compare, got {len(args.scenarios)}", "give two or more")
    scenarios = [load_scenario(name) for name in args.scenarios]
    labels = [s.name for s in scenarios]
    if len(set(labels)) != len(labels):
        labels = [Path(name).stem for name in args.scenarios]
    started = time.perf_counter()
    comparison = compare_policies(
        scenarios, args.seeds, labels=labels, first_seed=args.first_seed, workers=args.workers
    )
    elapsed = time.perf_counter() - started
    if args.out is not None:
        with atomic_output_dir(args.out) as tmp:
            comparison.table.to_csv(tmp / "comparison.csv", index=False)
            comparison.differences.to_csv(tmp / "differences.csv", index=False)
            write_parquet(comparison.per_seed, tmp / "per_seed.parquet")
            comparison_figure(comparison).savefig(tmp / "comparison.png", dpi=110)
    print(format_comparison(comparison))
    print(f"\n{len(scenarios) * args.seeds} runs in {elapsed:.1f} s")
    if args.out is not None:
        print(f"wrote {', '.join(COMPARE_FILES)} to {args.out}")
    return 0
