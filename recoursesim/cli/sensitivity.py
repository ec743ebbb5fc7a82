"""``recoursesim sensitivity``: which scenario fields drive a metric (Sobol or Morris, on the sweep engine)."""

from __future__ import annotations

import argparse
import json
import math

from recoursesim.cli._common import positive_int
from recoursesim.cli._executor_options import check_executor
from recoursesim.cli._study import add_study_arguments, add_study_parser, study_directory, study_out
from recoursesim.errors import ConfigError
from recoursesim.ledger import write_parquet
from recoursesim.scenario import load_scenario
from recoursesim.sweep import SweepStore
from recoursesim.sweep.runner import SweepAbortedError

#: Files the command writes into ``--out``, and what each holds.
SENSITIVITY_FILES = {
    "sweep/": "the sweep of every distinct sample × seed (one Parquet shard per run; --resume continues it)",
    "samples.parquet": "one row per sample: parameter values, sweep point, seed mean / variance / count of the metric",
    "indices.parquet": "one row per parameter: the indices, their confidence intervals and the rank",
    "sensitivity.png": "the indices with their intervals",
    "sensitivity.json": "the method, ranges, metric, seeds, seed-noise share and timing",
}


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``sensitivity`` command."""
    parser = add_study_parser(
        commands,
        "sensitivity",
        help="global sensitivity analysis of a metric over numeric scenario fields (SALib)",
        description=(
            "Vary numeric scenario fields over ranges (Sobol: Saltelli samples, first- and total-order "
            "indices; Morris: elementary effects), run every sample for --seeds seeds on the sweep "
            "engine, average the metric over seeds per sample and estimate the indices with bootstrap "
            "confidence intervals. Needs the policy extra: pip install 'recoursesim[policy]'."
        ),
        files=SENSITIVITY_FILES,
    )
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
    parser.add_argument("--seeds", type=positive_int, default=4, help="seeds per sample (default 4)")
    parser.add_argument("--levels", type=positive_int, default=4, help="Morris grid levels (default 4)")
    parser.add_argument("--resamples", type=positive_int, default=500, help="bootstrap resamples (default 500)")
    add_study_arguments(parser, command="sensitivity", seeded="the design", study="analysis")
    parser.set_defaults(func=sensitivity)


def sensitivity(args: argparse.Namespace) -> int:
    """Execute ``recoursesim sensitivity``."""
    from recoursesim.policy.figures import sensitivity_figure
    from recoursesim.policy.sensitivity import design, run_sensitivity
    from recoursesim.policy.space import parse_metric, parse_ranges

    scenario = load_scenario(args.scenario, allow_imports=args.allow_imports)
    ranges = parse_ranges(args.param)
    if not ranges:
        raise ConfigError("--param", "no field to vary", "give at least one --param KEY=LO:HI")
    metric = parse_metric(args.metric)
    seed = scenario.seed if args.root_seed is None else args.root_seed
    the_design = design(ranges, args.method, args.samples, seed=seed, levels=args.levels)
    plan = the_design.plan(scenario, args.seeds, seed)
    choice = check_executor(args, plan.n_runs, [p.scenario for p in plan.points])
    out = study_out(args, "sensitivity", scenario.name, "analysis")
    if args.resume:
        if not (out / "sweep" / "manifest.json").is_file():
            raise ConfigError("--resume", f"{out} holds no analysis to continue", "drop --resume to start one")
        SweepStore(out / "sweep").check(plan, resume=True)
    with study_directory(args, out) as directory:
        directory.mkdir(parents=True, exist_ok=True)
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
        write_parquet(result.samples, directory / "samples.parquet")
        write_parquet(result.indices, directory / "indices.parquet")
        figure = sensitivity_figure(result)
        figure.savefig(directory / "sensitivity.png", dpi=110)
        report = result.report
        meta = {
            "scenario": scenario.name,
            "method": args.method,
            "samples": args.samples,
            "n_samples": len(the_design.params),
            "n_points": the_design.n_points,
            "seeds": args.seeds,
            "root_seed": seed,
            "metric": metric.label,
            "ranges": [{"key": r.key, "low": r.low, "high": r.high, "integer": r.integer} for r in ranges],
            "seed_noise_share": result.noise_share if math.isfinite(result.noise_share) else None,
            "runs": report.n_runs,
            "runs_this_session": report.succeeded,
            "seconds_this_session": round(report.seconds, 3),
            "files": SENSITIVITY_FILES,
        }
        (directory / "sensitivity.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    if not args.quiet:
        print(result.indices.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        share = "n/a" if not math.isfinite(result.noise_share) else f"{result.noise_share:.1%}"
        print(
            f"{report.n_runs} runs ({report.succeeded} now, {report.skipped} before) in {report.seconds:.1f} s; "
            f"seed-noise share of the variance of the sample means: {share}"
        )
        print(f"wrote {out}/ ({', '.join(SENSITIVITY_FILES)})")
    return 0
