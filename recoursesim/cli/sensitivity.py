"""``recoursesim sensitivity``: which scenario fields drive a metric (Sobol or Morris, on the sweep engine).

Vary numeric scenario fields over ranges (Sobol: Saltelli samples, first- and total-order indices;
Morris: elementary effects), run every sample for --seeds seeds on the sweep engine, average the
metric over seeds per sample and estimate the indices with bootstrap confidence intervals.
"""

from __future__ import annotations

import argparse
import math

from recoursesim import output
from recoursesim.cli._common import positive_int, sweep_seed_count
from recoursesim.cli._executor_options import check_executor
from recoursesim.cli._study import add_study_arguments, add_study_parser, study_directory, study_out
from recoursesim.errors import ConfigError
from recoursesim.policy.sensitivity import REWRITTEN, SENSITIVITY_FILES, design, run_sensitivity
from recoursesim.policy.space import check_metrics, parse_metric, parse_ranges
from recoursesim.scenario import load_scenario
from recoursesim.sweep import SweepStore
from recoursesim.sweep.runner import SweepAbortedError


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``sensitivity`` command."""
    parser = add_study_parser(commands, "sensitivity", __doc__, files=SENSITIVITY_FILES)
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=LO:HI",
        help="a numeric scenario field and its range, e.g. selection.k=10:200 (integers if both bounds are); repeat",
    )
    parser.add_argument(
        "--metric", required=True, metavar="NAME:GROUP", help="pooled metric, e.g. dTTR:female or rETR:disadvantaged"
    )
    parser.add_argument("--method", choices=("sobol", "morris"), default="sobol", help="default sobol")
    parser.add_argument(
        "--samples",
        type=positive_int,
        default=64,
        metavar="N",
        help="Sobol base sample size (power of two; N·(D+2) samples) or Morris trajectories (N·(D+1)); default 64",
    )
    parser.add_argument("--seeds", type=sweep_seed_count, default=4, help="seeds per sample (default 4)")
    parser.add_argument("--levels", type=positive_int, default=4, help="Morris grid levels (default 4)")
    parser.add_argument("--resamples", type=positive_int, default=500, help="bootstrap resamples (default 500)")
    add_study_arguments(parser, command="sensitivity", seeded="the design, and of the bootstrap", study="analysis")
    parser.set_defaults(func=sensitivity)


def sensitivity(args: argparse.Namespace) -> int:
    """Execute ``recoursesim sensitivity``."""
    scenario = load_scenario(args.scenario, allow_imports=args.allow_imports, trusted=args.trusted)
    ranges = parse_ranges(args.param)
    if not ranges:
        raise ConfigError("--param", "no field to vary", "give at least one --param KEY=LO:HI")
    metric = parse_metric(args.metric)
    check_metrics(scenario, [metric])  # a misspelt metric or group is refused now, not after the sweep
    seed = scenario.seed if args.root_seed is None else args.root_seed
    the_design = design(ranges, args.method, args.samples, seed=seed, levels=args.levels)
    plan = the_design.plan(scenario, args.seeds, seed)
    choice = check_executor(args, plan.n_runs, [p.scenario for p in plan.points])
    out = study_out(args, "sensitivity", scenario.name, "analysis")
    if args.resume:
        if not (out / "sweep" / "manifest.json").is_file():
            fix = "drop --resume to start one (with --overwrite if --out holds files)"
            raise ConfigError("--resume", f"{out} holds no analysis to continue", fix)
        SweepStore(out / "sweep").check(plan, resume=True)
        output.check_own_files(out, REWRITTEN, folders=("sweep",))  # refused now, not after the runs
    with study_directory(args, out, scenario.spec) as directory:
        directory.mkdir(parents=True, exist_ok=True)
        output.record_nested(directory, directory / "sweep")  # from the start: --overwrite after a stop
        try:
            with choice.open() as executor:
                result = run_sensitivity(
                    scenario,
                    the_design,
                    metric,
                    directory / "sweep",
                    n_seeds=args.seeds,
                    root_seed=seed,
                    executor=executor,
                    resume=args.resume,
                    progress=not args.quiet,
                    resamples=args.resamples,
                )
        except SweepAbortedError as error:
            raise ConfigError("sensitivity", str(error), "rerun with --resume") from None
        result.write(directory)
    if not args.quiet:
        print(result.indices.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        report = result.report
        share = "n/a" if not math.isfinite(result.noise_share) else f"{result.noise_share:.1%}"
        print(
            f"{report.n_runs} runs ({report.succeeded} now, {report.skipped} before) in {report.seconds:.1f} s; "
            f"seed-noise share of the variance of the sample means: {share}"
        )
        print(f"wrote {out}/ ({', '.join(SENSITIVITY_FILES)})")
    return 0
