"""Shift dynamics: what acting on recourse does to the population, the model and the truth.

The logic of ``experiments/shift_dynamics.py``.

For each world (the synthetic bell2024 population; German credit when the dataset population and
the model-agnostic generators are installed), each registered recourse generator (the exact
linear one and search; on German credit also the data-manifold one) and each retraining setting (fixed
model; refit every step), runs SEEDS seeds of 20 steps and prints, at steps 0, 10 and 20, the mean
and 95% CI across seeds of: MMD² between the step-0 and the current population (and its
permutation p-value), the model's disagreement with the step-0 model and its parameter change,
the gaming rate and the precision of the selections (docs/shift.md). Writes the table (CSV), the
raw observations (Parquet) and one figure per world (PNG).

Usage:
    python experiments/shift_dynamics.py --seeds 30 --workers 2 --out results/shift_dynamics
"""

from __future__ import annotations

import time

import pandas as pd

from recoursesim.cli._common import Parser, positive_int, two_or_more
from recoursesim.errors import ConfigError
from recoursesim.output import atomic_output_dir
from recoursesim.report.document import pipe_table
from recoursesim.shift import dynamics

#: The metrics of the docs' tables, in their column order (labels of :data:`dynamics.METRICS`).
DOC_METRICS = (
    "MMD² to step 0",
    "disagreement with step-0 model",
    "gaming rate",
    "improvement rate",
    "precision of selections",
)


def main(argv: list[str] | None = None) -> int:
    """Run ``experiments/shift_dynamics.py``: every world, generator and retraining setting; print and write."""
    parser = Parser(
        description="Shift dynamics: what acting on recourse does to the population, the model and the truth."
    )
    parser.add_argument("--seeds", type=two_or_more, default=30, help="seeds per condition (default 30)")
    parser.add_argument("--workers", type=positive_int, default=1, help="worker processes (default 1)")
    parser.add_argument("--worlds", nargs="+", default=None, help="worlds to run (default: every available one)")
    parser.add_argument("--out", default="results/shift_dynamics", help="output directory")
    args = parser.parse_args(argv)
    worlds = dynamics.worlds()
    if args.worlds:
        unknown = sorted(set(args.worlds) - set(worlds))
        if unknown:
            raise ConfigError("--worlds", f"unknown {', '.join(unknown)}", f"use some of {', '.join(sorted(worlds))}")
        worlds = {name: worlds[name] for name in args.worlds}
    cells = dynamics.conditions(worlds)
    with atomic_output_dir(args.out, overwrite=True) as out:  # --out is checked before any run
        started = time.perf_counter()
        rows = dynamics.run(cells, args.seeds, args.workers)
        elapsed = time.perf_counter() - started
        summary = dynamics.summarise(rows)
        table = dynamics.table(summary)
        with pd.option_context("display.width", 200, "display.max_colwidth", 40, "display.max_rows", 500):
            print(table.to_string(index=False))
        failed = dynamics.failures(rows)
        if not failed.empty:
            print(f"{len(failed)} run(s) failed and are left out:")
            print(failed.to_string(index=False))
        print(f"{len(cells)} conditions x {args.seeds} seeds in {elapsed:.0f} s")
        rows.to_parquet(out / "observations.parquet", index=False)
        for world in sorted(summary["world"].unique()):
            text = summary_markdown(summary[summary["world"] == world])
            (out / f"table-{world}.md").write_text(text + "\n", encoding="utf-8")
        table.to_csv(out / "shift_dynamics.csv", index=False)
        failed.to_csv(out / "failed_runs.csv", index=False)
        for world in sorted(summary["world"].unique()):
            dynamics.figure(summary, world).savefig(out / f"shift_dynamics_{world}.png", dpi=110)
    print(f"wrote {args.out}")
    return 0


def markdown_table(rows: pd.DataFrame, worlds: list[str], steps: tuple[int, ...] = (10, 20)) -> str:
    """The docs' table of one world made from its runs' observations (see :func:`summary_markdown`).

    Args:
        rows: The observations of the runs (``observations.parquet``).
        worlds: The world to show (one name, as a list, as the docs' table markers give it).
        steps: The steps shown.
    """
    (world,) = worlds
    return summary_markdown(dynamics.summarise(rows[rows["world"] == world]), steps)


def summary_markdown(summary: pd.DataFrame, steps: tuple[int, ...] = (10, 20)) -> str:
    """The docs' table of one world's :func:`dynamics.summarise`: a row per generator, retraining and step.

    Args:
        summary: The summary of one world's runs.
        steps: The steps shown.
    """
    summary = summary[summary["step"].isin(steps) & summary["metric"].isin(DOC_METRICS)]
    wide = dynamics.wide_cells(summary, ["generator", "retraining", "step"], "metric")
    wide = wide.reindex(columns=list(DOC_METRICS)).reset_index()
    return pipe_table(wide.astype({"step": str}).fillna("n/a"))
