"""``recoursesim compare``: policies side by side over seeds, with CIs and their differences."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from recoursesim.cli._common import FilesHelpFormatter, add_trust_arguments, non_negative_int, seed_count, with_files
from recoursesim.cli._executor_options import add_worker_arguments
from recoursesim.compare import Comparison, compare_policies, comparison_figure, format_comparison
from recoursesim.errors import ConfigError
from recoursesim.ledger import write_parquet
from recoursesim.output import add_out_arguments, atomic_output_dir, check_out, command_record
from recoursesim.resources import cap_workers, check_run_memory
from recoursesim.scenario import load_scenario
from recoursesim.sweep import make_executor

#: Files written by ``--out``.
COMPARE_FILES = {
    "comparison.csv": "mean, sd and CI per (policy, group, metric)",
    "differences.csv": "each policy minus the first, paired by seed: difference, CI, p-value, exceeds_uncertainty",
    "per_seed.parquet": "one row per (policy, seed, group, metric)",
    "comparison.png": "one panel per metric, mean per group and policy with CI error bars",
}


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``compare`` command."""
    parser = commands.add_parser(
        "compare",
        help="compare policies (scenarios) over seeds, with confidence intervals",
        description=with_files(
            "Run each scenario as one point of a sweep over the same N seeds (the children of "
            "SeedSequence(--root-seed), as in `recoursesim sweep`) and print, per group, the pooled ETR, TTR, "
            "rETR, dTTR, selection rate, successes and censored agents with 95% CIs across seeds, and each "
            "policy's difference from the first, paired by seed, with its 95% CI (* when the CI excludes 0).",
            COMPARE_FILES,
            "Files written with --out",
        ),
        formatter_class=FilesHelpFormatter,
    )
    parser.add_argument("scenarios", nargs="+", help="two or more scenario TOML files or bundled names")
    parser.add_argument("--seeds", type=seed_count, default=20, help="seeds per scenario (default 20; at least 2)")
    parser.add_argument(
        "--root-seed", type=non_negative_int, default=None, help="root entropy (default: the first scenario's run.seed)"
    )
    add_worker_arguments(parser)
    add_out_arguments(parser, "write the tables and the figure to this directory")
    add_trust_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``recoursesim compare``."""
    if args.out is not None:
        check_out(args.out, overwrite=args.overwrite, command=command_record("compare", args))
    if len(args.scenarios) < 2:
        raise ConfigError("scenarios", f"need at least two to compare, got {len(args.scenarios)}", "give two or more")
    scenarios = [load_scenario(name, allow_imports=args.allow_imports, trusted=args.trusted) for name in args.scenarios]
    labels = [s.name for s in scenarios]
    if len(set(labels)) != len(labels):
        labels = [Path(name).stem for name in args.scenarios]
    workers, note = cap_workers(args.workers, len(scenarios) * args.seeds)
    for scenario in scenarios:
        check_run_memory(scenario.config, runs_at_once=workers, force=args.force)
    if note:
        print(note, file=sys.stderr)
    started = time.perf_counter()
    with make_executor(workers) as executor:
        comparison = compare_policies(
            scenarios,
            args.seeds,
            labels=labels,
            root_seed=args.root_seed,
            executor=executor,
            progress=sys.stderr.isatty(),
        )
    elapsed = time.perf_counter() - started
    if args.out is not None:
        with atomic_output_dir(args.out, overwrite=args.overwrite, command=command_record("compare", args)) as tmp:
            _write(comparison, tmp)
    print(format_comparison(comparison))
    print(f"\n{len(scenarios) * args.seeds} runs in {elapsed:.1f} s")
    if args.out is not None:
        print(f"wrote {', '.join(COMPARE_FILES)} to {args.out}")
    return 0


def _write(comparison: Comparison, tmp: Path) -> None:
    comparison.table.to_csv(tmp / "comparison.csv", index=False)
    comparison.differences.to_csv(tmp / "differences.csv", index=False)
    write_parquet(comparison.per_seed, tmp / "per_seed.parquet")
    comparison_figure(comparison).savefig(tmp / "comparison.png", dpi=110)
