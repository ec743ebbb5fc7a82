"""``recoursesim sweep``: many seeded runs of a scenario over a parameter grid, streamed to disk."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from pathlib import Path

from recoursesim.cli._common import (
    add_scenario_argument,
    add_trust_arguments,
    non_negative_int,
    status,
    sweep_seed_count,
)
from recoursesim.cli._executor_options import ExecutorChoice, add_executor_arguments, check_executor
from recoursesim.cli._study import check_resume_or_overwrite, replaces
from recoursesim.errors import ConfigError
from recoursesim.output import atomic_output_dir, check_out, input_files, out_path, slug
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.sweep import SweepPlan, SweepReport, SweepStore, parse_grid, run_sweep, summarise
from recoursesim.sweep.runner import SweepAbortedError

#: How many failures the command lists before summarising the rest.
MAX_LISTED_FAILURES = 20


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``sweep`` command."""
    parser = commands.add_parser(
        "sweep",
        help="run a scenario over seeds × a parameter grid (local processes or Dask)",
        description=(
            "Run SCENARIO for N seeds at every point of a parameter grid. Per-run seeds are the "
            "children of SeedSequence(--root-seed); each run writes its own Parquet shard to "
            "OUT/runs/ as it finishes, so an interrupted sweep continues with --resume. Failed "
            "runs are recorded in OUT/errors/ and listed at the end (exit status 1). The summary "
            "(mean, SEM, 95% CI per parameters, step, group and metric) is written to "
            "OUT/summary.parquet."
        ),
    )
    add_scenario_argument(parser)
    parser.add_argument("--seeds", type=sweep_seed_count, required=True, help="runs per grid point")
    parser.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="a dotted scenario key and its values, e.g. selection.k=50,100 (repeat for a product grid)",
    )
    parser.add_argument(
        "--posterior",
        type=Path,
        default=None,
        metavar="FILE",
        help="run --seeds runs at each draw of a posterior.toml written by calibrate (instead of --grid)",
    )
    parser.add_argument(
        "--out", type=out_path, default=None, help="output directory (default: results/sweep-<scenario name>)"
    )
    parser.add_argument("--resume", action="store_true", help="continue the same sweep in --out (skip finished runs)")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a --out directory that holds files, as a whole, once the new sweep has finished",
    )
    add_executor_arguments(parser)
    parser.add_argument(
        "--root-seed", type=non_negative_int, default=None, help="root entropy (default: the scenario's run.seed)"
    )
    parser.add_argument(
        "--pooled-only", action="store_true", help="record only the pooled per-group metrics (faster), not per step"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no report, only errors")
    add_trust_arguments(parser)
    parser.set_defaults(func=sweep)


def sweep(args: argparse.Namespace) -> int:
    """Execute ``recoursesim sweep``."""
    scenario = load_scenario(args.scenario, allow_imports=args.allow_imports, trusted=args.trusted)
    plan = _plan(args, scenario)
    executor_choice = check_executor(args, plan.n_runs, [p.scenario for p in plan.points])
    out = args.out or Path("results") / f"sweep-{slug(scenario.name)}"
    check_resume_or_overwrite(args, "sweep")
    replace = replaces(args, out)
    inputs = input_files(args.scenario, spec=scenario.spec)
    if replace:
        check_out(out, overwrite=True, protected=inputs)
    else:
        SweepStore(out).check(plan, resume=args.resume, missing_parent_ok=args.out is None)
    if args.out is None:
        out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with contextlib.ExitStack() as stack:  # with --overwrite: a new directory, swapped in only when done
            directory = (
                stack.enter_context(atomic_output_dir(out, overwrite=True, protected=inputs)) if replace else out
            )
            say = status(args.quiet) or (lambda line: None)
            say(f"sweep: {plan.n_runs} runs; starting {_where(executor_choice)}")
            with executor_choice.open() as executor:
                report = run_sweep(plan, directory, executor=executor, resume=args.resume, progress=not args.quiet)
            say(f"sweep: summarising into {out / 'summary.parquet'}")
            summarise(directory)
    except ConfigError as error:
        if replace and error.field == "--out" and "--resume" in error.fix:  # the new sweep's directory is gone
            raise ConfigError(
                "--out",
                f"writing the new sweep failed ({error.problem.split('(', 1)[-1].split(')', 1)[0]}); "
                f"{out} still holds the earlier sweep",
                error.fix.replace(", then continue with --resume", ", then run the sweep again"),
            ) from None
        raise
    except SweepAbortedError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    report = dataclasses.replace(report, directory=out)
    if not args.quiet:
        print(format_report(report))
    if report.failures:
        print(format_failures(report), file=sys.stderr)
        return 1
    return 0


def _plan(args: argparse.Namespace, scenario: Scenario) -> SweepPlan:
    """The sweep's plan: the ``--grid`` product, or one point per draw of ``--posterior``."""
    if args.posterior is None:
        return SweepPlan.from_grid(
            scenario, parse_grid(args.grid), n_seeds=args.seeds, root_seed=args.root_seed, per_step=not args.pooled_only
        )
    if args.grid:
        raise ConfigError("--posterior", "cannot be combined with --grid", "give one of them")
    from recoursesim.calibration.posterior import read_posterior

    draws = read_posterior(args.posterior)
    return SweepPlan.from_draws(
        scenario,
        {key: draws[key].tolist() for key in draws.columns},
        n_seeds=args.seeds,
        root_seed=args.root_seed,
        per_step=not args.pooled_only,
        field=f"--posterior {args.posterior}",
    )


def _where(choice: ExecutorChoice) -> str:
    """What :meth:`ExecutorChoice.open` starts, in words."""
    if choice.scheduler:
        return f"a connection to the Dask scheduler {choice.scheduler}"
    if choice.dask_local:
        return f"a local Dask cluster of {choice.dask_local} workers"
    return f"{choice.workers} worker processes" if choice.workers > 1 else "the runs in this process"


def format_report(report: SweepReport) -> str:
    """One paragraph on what the session did."""
    done = report.skipped + report.succeeded
    rate = report.succeeded / report.seconds if report.seconds > 0 else float("nan")
    busy = report.run_seconds / report.seconds if report.seconds > 0 else float("nan")
    lines = [
        f"sweep {report.sweep_id}: {done}/{report.n_runs} runs finished "
        f"({report.succeeded} now, {report.skipped} before, {len(report.failures)} failed) "
        f"in {report.seconds:.1f} s ({rate:.1f} runs/s, {report.executor}, {busy:.1f} busy on average)",
        f"wrote {report.directory / 'runs'}/, {report.directory / 'summary.parquet'}",
    ]
    return "\n".join(lines)


def format_failures(report: SweepReport) -> str:
    """The failed runs, one line each (the first :data:`MAX_LISTED_FAILURES`)."""
    records = report.directory / "errors"
    lines = [f"error: {len(report.failures)} of {report.n_runs} runs failed (records in {records}/):"]
    for failure in report.failures[:MAX_LISTED_FAILURES]:
        params = ", ".join(f"{k}={v}" for k, v in failure["params"].items()) or "-"
        lines.append(f"  run {failure['run_id']} [{params}] seed {failure['seed_index']}: {failure['error']}")
    if len(report.failures) > MAX_LISTED_FAILURES:
        lines.append(f"  ... and {len(report.failures) - MAX_LISTED_FAILURES} more")
    lines.append("rerun with --resume to retry the failed runs")
    return "\n".join(lines)
