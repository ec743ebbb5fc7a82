"""``recoursesim optimise``: search selectors, mitigations and their parameters for the best policy (Optuna).

Search scenario fields with Optuna's TPE sampler for the policy that best meets the objectives
(several objectives: the Pareto front). Each trial runs --seeds seeds on the sweep engine;
objectives use the mean over seeds and report its standard error. The study is stored in
OUT/study.db: rerun with --resume and a larger --trials to continue.

With --uncertainty KEY=LO:HI (and --scenarios N, default 8), every trial runs in the same N
settings of the uncertain fields (a Latin hypercube drawn from the seed, the same seeds in each);
an objective may then be robust: 'regret min |dTTR:female|' (minimise the maximum regret over the
settings, against the other trials) or 'satisficing |dTTR:female| <= 1' (maximise the share of
settings that meet the bound). A plain objective is the mean over all settings and seeds.
"""

from __future__ import annotations

import argparse
import sys
import time

from recoursesim.cli._common import positive_int, relabelled, sweep_seed_count
from recoursesim.cli._executor_options import check_executor
from recoursesim.cli._study import add_study_arguments, add_study_parser, study_directory, study_out
from recoursesim.errors import ConfigError
from recoursesim.policy.optimise import PolicySearch, PolicySpace
from recoursesim.policy.search_files import OPTIMISE_FILES
from recoursesim.scenario import load_scenario
from recoursesim.sweep.plan import PointsOption, check_sweep_size
from recoursesim.sweep.runner import SweepAbortedError


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``optimise`` command."""
    parser = add_study_parser(commands, "optimise", __doc__, files=OPTIMISE_FILES)
    parser.add_argument(
        "--param", action="append", default=[], metavar="KEY=LO:HI[:log]", help="a numeric field and its range; repeat"
    )
    parser.add_argument(
        "--choice",
        action="append",
        default=[],
        metavar="KEY=A,B",
        help="a field and its candidate TOML values, e.g. selection.name=top_k,circumstance_normalised; repeat",
    )
    parser.add_argument(
        "--objective",
        action="append",
        default=[],
        metavar="EXPR",
        help="'min |dTTR:female|', 'min |rETR:female - 1|', 'max selected:all', with --uncertainty"
        " 'regret min |dTTR:female|' or 'satisficing |dTTR:female| <= 1'; repeat for several",
    )
    parser.add_argument(
        "--uncertainty",
        action="append",
        default=[],
        metavar="KEY=LO:HI[:log]",
        help="a field the policy does not control and its range; every trial runs over --scenarios settings; repeat",
    )
    parser.add_argument(
        "--scenarios",
        type=positive_int,
        default=None,
        help="settings of the uncertainties each trial runs in (default 8 with --uncertainty)",
    )
    parser.add_argument(
        "--constraint", action="append", default=[], metavar="EXPR", help="e.g. 'selected:all >= 900'; repeat"
    )
    parser.add_argument("--trials", type=positive_int, default=40, help="trials in total (default 40)")
    parser.add_argument("--seeds", type=sweep_seed_count, default=4, help="seeds per trial (default 4)")
    parser.add_argument(
        "--batch", type=positive_int, default=None, help="trials run together (default: --workers or --dask-local)"
    )
    parser.add_argument("--startup-trials", type=positive_int, default=10, help="random trials before TPE (default 10)")
    add_study_arguments(parser, command="optimise", seeded="the sampler", study="study")
    parser.set_defaults(func=optimise)


#: A search's points: its trials, set by ``--trials``.
TRIALS = PointsOption("--trials", "trials", "give fewer --trials (continue later with --resume and more)")


def optimise(args: argparse.Namespace) -> int:
    """Execute ``recoursesim optimise``."""
    from recoursesim.policy._deps import require
    from recoursesim.policy.objectives import parse_constraint, parse_objective
    from recoursesim.policy.space import check_disjoint, check_metrics, parse_choices, parse_ranges

    require("optuna")
    scenario = load_scenario(args.scenario, allow_imports=args.allow_imports, trusted=args.trusted)
    ranges, choices = parse_ranges(args.param), parse_choices(args.choice)
    check_disjoint(ranges, choices)
    with relabelled("--param", "--uncertainty"):  # the same grammar as --param
        uncertainties = parse_ranges(args.uncertainty)
    n_scenarios = args.scenarios if args.scenarios is not None else 8 if uncertainties else 0
    objectives = [parse_objective(text) for text in args.objective]
    constraints = [parse_constraint(text) for text in args.constraint]
    check_sweep_size(args.trials, args.seeds, TRIALS)
    check_metrics(scenario, [o.metric for o in objectives] + [c.metric for c in constraints])
    batch = args.batch or args.dask_local or args.workers
    choice = check_executor(args, batch * args.seeds * max(n_scenarios, 1), [scenario])
    out = study_out(args, "optimise", scenario.name, "search")
    start = time.perf_counter()
    with study_directory(args, out, scenario.spec) as directory:
        search = PolicySearch(
            scenario,
            PolicySpace(tuple(ranges), tuple(choices)),
            objectives,
            directory,
            constraints,
            n_seeds=args.seeds,
            root_seed=args.root_seed,
            batch=batch,
            startup_trials=args.startup_trials,
            uncertainties=tuple(uncertainties),
            n_scenarios=n_scenarios,
        )
        search.open(resume=args.resume)
        say = None if args.quiet else (lambda line: print(line, file=sys.stderr))
        try:
            with choice.open() as executor:
                ran = search.run(args.trials, executor=executor, progress=say)
        except SweepAbortedError as error:
            raise ConfigError("optimise", str(error), "rerun with --resume") from None
        seconds = round(time.perf_counter() - start, 3)
        best = search.write({"trials": args.trials, "trials_this_session": ran, "seconds_this_session": seconds})
    if not args.quiet:
        frame = search.trials_frame()
        columns = [c for c in frame.columns if c not in ("state", "error", "feasible")]
        print(frame[frame["pareto"]][columns].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        chosen = "no feasible trial" if best is None else f"trial {int(best['number'])}"
        print(f"{ran} trials now; chosen policy: {chosen}; wrote {out}/ ({', '.join(OPTIMISE_FILES)})")
    return 0
