"""``recoursesim run``: run one scenario for one seed, print the summary, write the results."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim.cli._common import (
    FilesHelpFormatter,
    add_force_argument,
    add_scenario_argument,
    add_trust_arguments,
    non_negative_int,
    with_files,
)
from recoursesim.errors import ConfigError
from recoursesim.output import add_out_arguments, atomic_output_dir, input_files, rerun, slug
from recoursesim.resources import check_run_memory
from recoursesim.scenario import load_scenario
from recoursesim.simulate import RESULT_FILES, RunResult, simulate


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``run`` command."""
    parser = commands.add_parser(
        "run",
        help="run a scenario and print its per-group summary",
        description=with_files(
            "Run one scenario for one seed, print the per-group summary (successes, censored "
            "agents, ETR, TTR, rETR, dTTR) and write the results as Parquet.",
            RESULT_FILES,
            "Files written",
        ),
        formatter_class=FilesHelpFormatter,
    )
    add_scenario_argument(parser, optional=True)
    parser.add_argument("--seed", type=non_negative_int, default=None, help="run seed (default: the scenario's)")
    parser.add_argument("--steps", type=non_negative_int, default=None, help="override T (steps 0..T)")
    add_out_arguments(parser, "results directory (default: results/<scenario name>/seed-<N>)")
    parser.add_argument("--no-write", action="store_true", help="print the summary only, write no files")
    add_force_argument(parser)
    add_trust_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``recoursesim run``."""
    if args.no_write and (args.out is not None or args.overwrite):
        given = "--out" if args.out is not None else "--overwrite"
        raise ConfigError(given, "is given with --no-write, which writes nothing", f"drop --no-write or {given}")
    scenario = load_scenario(args.scenario, allow_imports=args.allow_imports, trusted=args.trusted)
    seed = scenario.seed if args.seed is None else args.seed
    check_run_memory(scenario.config, steps=args.steps, force=args.force)
    if args.no_write:
        result = simulate(scenario, seed, steps=args.steps, force=True)
        print(format_summary(result))
        return 0
    out = args.out or Path("results") / slug(scenario.name) / f"seed-{seed}"
    command = {"command": "run", "scenario": scenario.name, "seed": seed}  # its rerun replaces these results
    again = not args.overwrite and rerun(out, command)
    with atomic_output_dir(
        out, overwrite=args.overwrite, protected=input_files(args.scenario, spec=scenario.spec), command=command
    ) as tmp:  # checks --out before the run
        result = simulate(scenario, seed, steps=args.steps, force=True)
        written = result.write(tmp)
    print(format_summary(result))
    replaced = " (replacing what this command wrote there before)" if again else ""
    print(f"\nwrote {', '.join(path.name for path in written)} to {out}{replaced}")
    return 0


def format_summary(result: RunResult) -> str:
    """Render the per-group summary of a run as a plain-text table."""
    summary = result.summary
    scenario = result.scenario
    effort = "score gain" if scenario.effort_measure == "score_gain" else "feature-space cost"
    lenders = result.model.lender_names if result.model.market is not None else ()
    market = f" · {len(lenders)} lenders: {', '.join(lenders)}" if lenders else ""
    header = [
        f"scenario {scenario.name} · seed {result.seed} · steps 0..{scenario.steps} · "
        f"{int(summary['entered'].sum())} agents{market}",
        f"ETR = mean effort to recourse ({effort}); TTR = mean steps to recourse; "
        f"rETR, dTTR against {result.reference_group}",
        "",
    ]
    table = pd.DataFrame(
        {
            "group": summary["group"].astype(str),
            "entered": summary["entered"],
            "on entry": summary["selected_on_entry"],
            "successes": summary["recourse"],
            "censored": summary["censored"],
            "gave up": summary["gave_up"],
            "ETR": summary["etr"].map(_number),
            "TTR": summary["ttr"].map(_number),
            "rETR": summary["retr"].map(_number),
            "dTTR": summary["dttr"].map(_number),
            "wasted effort": summary["wasted_effort"].map(_number),
        }
    )
    return "\n".join(header) + table.to_string(index=False)


def _number(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.3f}"
