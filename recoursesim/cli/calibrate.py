"""``recoursesim calibrate``: fit scenario parameters to an observed panel (ABC-SMC with pyabc).

Give the observed per-step, per-group aggregates (--data, a CSV of step, group and statistics such
as applicants, approvals, reapplicants, mean_score) and the free parameters with their prior ranges
(--param KEY=LO:HI, as in sensitivity and optimise). ABC-SMC draws parameters, runs the scenario,
summarises each run's ledger as the observed panel is summarised and keeps the particles closest to
the data, generation by generation. The history is saved after each generation: rerun with --resume
(and a larger --generations) to continue.
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from recoursesim import output
from recoursesim.calibration.result import CALIBRATION_FILES, HISTORY_FILE, REWRITTEN
from recoursesim.calibration.smc import CALIBRATE_INSTALL, require_pyabc
from recoursesim.cli._common import positive_int, seed_count
from recoursesim.cli._executor_options import check_executor
from recoursesim.cli._study import add_study_arguments, add_study_parser, study_directory, study_out
from recoursesim.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``calibrate`` command."""
    parser = add_study_parser(
        commands, "calibrate", __doc__, files=CALIBRATION_FILES, extra=("calibrate", CALIBRATE_INSTALL)
    )
    parser.add_argument("--data", required=True, metavar="CSV", help="the observed panel (docs: Calibration)")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=LO:HI[:log]",
        help="a free numeric field and its prior range, e.g. population.adaptation=0:1; repeat",
    )
    parser.add_argument("--particles", type=positive_int, default=200, help="accepted particles per generation (200)")
    parser.add_argument("--generations", type=positive_int, default=6, help="ABC-SMC generations in all (default 6)")
    parser.add_argument("--seeds", type=seed_count, default=1, help="runs per particle, averaged (default 1)")
    parser.add_argument(
        "--draws", type=positive_int, default=40, help="posterior draws for the predictive check (default 40)"
    )
    add_study_arguments(parser, command="calibrate", seeded="the ABC-SMC draws", study="calibration")
    parser.set_defaults(func=calibrate)


def calibrate(args: argparse.Namespace) -> int:
    """Execute ``recoursesim calibrate``."""
    from recoursesim.calibration.calibrate import calibrate as run_calibration
    from recoursesim.calibration.calibrate import panel_simulator
    from recoursesim.calibration.panel import read_panel
    from recoursesim.policy.space import check_disjoint, parse_ranges
    from recoursesim.scenario import load_scenario
    from recoursesim.simulate import simulate

    scenario = load_scenario(args.scenario, allow_imports=args.allow_imports)
    ranges = parse_ranges(args.param)
    check_disjoint(ranges)
    groups = list(simulate(scenario, steps=0).model.group_names)
    observed = read_panel(args.data, groups, scenario.steps)
    panel_simulator(scenario, observed, ranges, args.seeds)  # every --param key checked before any output
    require_pyabc()
    choice = check_executor(args, args.particles * args.seeds, [scenario])
    out = study_out(args, "calibrate", scenario.name, "calibration")
    if args.resume:
        if not (out / HISTORY_FILE).is_file():
            fix = "drop --resume to start one (with --overwrite if --out holds files)"
            raise ConfigError("--resume", f"{out} holds no calibration to continue ({HISTORY_FILE})", fix)
        output.check_own_files(out, REWRITTEN)  # refused now, not after the runs
    with study_directory(args, out, scenario.spec) as directory:
        directory.mkdir(parents=True, exist_ok=True)
        if not args.resume:
            output.record_mutable(directory, directory / HISTORY_FILE, "sqlite")
        with _client(choice) as client:
            result = run_calibration(
                scenario,
                observed,
                ranges,
                directory,
                particles=args.particles,
                generations=args.generations,
                seeds=args.seeds,
                workers=choice.workers,
                client=client,
                resume=args.resume,
                progress=not args.quiet,
                seed=scenario.seed if args.root_seed is None else args.root_seed,
                predictive_draws=args.draws,
            )
        result.write(directory)
    if not args.quiet:
        print(result.estimates.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print(f"wrote {out}/ (best.toml, posterior.parquet, report.html, …)")
    return 0


@contextlib.contextmanager
def _client(choice: Any) -> Any:
    """A Dask client when --scheduler or --dask-local is given, else ``None`` (local processes)."""
    if choice.scheduler is None and choice.dask_local is None:
        yield None
        return
    with choice.open() as executor:
        yield executor.client
