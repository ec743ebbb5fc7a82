"""``recoursesim summarise``: mean, SEM and confidence intervals of a sweep's metrics."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from recoursesim.cli._common import writing
from recoursesim.errors import ConfigError
from recoursesim.output import check_replaceable_file
from recoursesim.stats import NO_INTERVAL
from recoursesim.sweep import SweepStore, summarise


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``summarise`` command."""
    parser = commands.add_parser(
        "summarise",
        help="aggregate a sweep: mean, SEM, 95%% CI per (parameters, step, group, metric)",
        description=(
            "Read the shards of the sweep in DIR and write DIR/summary.parquet (or --out): one row per "
            "(grid parameters, step, group, metric) with n, mean, sem, ci_low, ci_high; step is empty "
            "for the pooled whole-run metrics. Prints the pooled rows."
        ),
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="a sweep's output directory")
    parser.add_argument("--out", type=Path, default=None, help="write the summary here (default DIR/summary.parquet)")
    parser.add_argument("--confidence", type=float, default=0.95, help="interval coverage (default 0.95)")
    parser.add_argument("--quiet", action="store_true", help="write the file, print nothing")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``recoursesim summarise``."""
    if args.out is not None:
        check_replaceable_file(args.out, "--out")
    if not args.directory.is_dir():
        raise ConfigError("DIR", f"{args.directory} is not a directory", "give a sweep's --out directory")
    store = SweepStore(args.directory)
    manifest = store.read_manifest()
    target = args.out if args.out is not None else args.directory / "summary.parquet"
    with writing(target, "--out" if args.out is not None else "DIR", "the summary"):
        table = summarise(args.directory, confidence=args.confidence, out=args.out)
    if not args.quiet:
        finished = len(store.finished() & {r[0] for r in manifest["runs"]})
        failed = len(store.failures())
        print(f"sweep {manifest['sweep_id']}: {finished}/{len(manifest['runs'])} runs finished, {failed} failed")
        print(format_pooled(table, manifest["param_names"]))
        print(f"\nwrote {target}")
    return 0


def format_pooled(table: pd.DataFrame, param_names: list[str]) -> str:
    """The pooled (whole-run) rows as ``mean ± half-width`` per parameters and group, one column per metric.

    A mean resting on one run has no interval and says so (:data:`recoursesim.stats.NO_INTERVAL`).
    """
    pooled = table[table["step"].isna()]
    if pooled.empty:
        return "(no finished runs)"
    keys = [*param_names, "group"]
    cells = pooled.assign(
        cell=[
            "n/a" if pd.isna(m) else (f"{m:.3f} ({NO_INTERVAL})" if pd.isna(h) else f"{m:.3f}±{h:.3f}")
            for m, h in zip(pooled["mean"], pooled["ci_high"] - pooled["mean"], strict=True)
        ]
    )
    wide = cells.pivot(index=keys, columns="metric", values="cell")
    preferred = [c for c in ("recourse", "censored", "etr", "ttr", "retr", "dttr") if c in wide.columns]
    return wide[preferred or list(wide.columns)].to_string()
