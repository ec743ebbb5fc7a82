"""``recoursesim optimise``: search selectors, mitigations and their parameters for the best policy (Optuna)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from recoursesim.cli._common import positive_int
from recoursesim.cli._executor_options import check_executor
from recoursesim.cli._study import add_study_arguments, add_study_parser, study_directory, study_out
from recoursesim.errors import ConfigError
from recoursesim.ledger import write_parquet
from recoursesim.policy.optimise import PolicySearch, PolicySpace, policy_toml
from recoursesim.scenario import load_scenario
from recoursesim.sweep.runner import SweepAbortedError

#: Files the command writes into ``--out``, and what each holds.
OPTIMISE_FILES = {
    "study.db": "the Optuna study (SQLite); --resume continues it",
    "runs/": "one sweep directory per batch of trials (one Parquet shard per run)",
    "trials.parquet": "one row per trial: parameters, objectives with standard errors, constraints, Pareto flag",
    "pareto.parquet": "the Pareto-optimal feasible trials",
    "pareto.png": "objectives of every trial, the Pareto front with ±1 SE (one objective: the search history)",
    "best-policy.toml": "the chosen policy as a runnable scenario file",
    "front/": "every Pareto-optimal policy as a runnable scenario file",
    "optimise.json": "the search options, the chosen trial and timing",
}


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``optimise`` command."""
    parser = add_study_parser(
        commands,
        "optimise",
        help="search policies (selector, mitigation, parameters) for one or more objectives (Optuna)",
        description=(
            "Search scenario fields with Optuna's TPE sampler for the policy that best meets the "
            "objectives (several objectives: the Pareto front). Each trial runs --seeds seeds on the "
            "sweep engine; objectives use the mean over seeds and report its standard error. The "
            "study is stored in OUT/study.db: rerun with --resume and a larger --trials to continue. "
            "Needs the policy extra: pip install 'recoursesim[policy]'."
        ),
        files=OPTIMISE_FILES,
    )
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
        help="'min |dTTR:female|', 'min |rETR:female - 1|', 'max selected:all'; repeat for several",
    )
    parser.add_argument(
        "--constraint", action="append", default=[], metavar="EXPR", help="e.g. 'selected:all >= 900'; repeat"
    )
    parser.add_argument("--trials", type=positive_int, default=40, help="trials in total (default 40)")
    parser.add_argument("--seeds", type=positive_int, default=4, help="seeds per trial (default 4)")
    parser.add_argument(
        "--batch", type=positive_int, default=None, help="trials run together (default: --workers or --dask-local)"
    )
    parser.add_argument("--startup-trials", type=positive_int, default=10, help="random trials before TPE (default 10)")
    add_study_arguments(parser, command="optimise", seeded="the sampler", study="study")
    parser.set_defaults(func=optimise)


def optimise(args: argparse.Namespace) -> int:
    """Execute ``recoursesim optimise``."""
    from recoursesim.policy._deps import require
    from recoursesim.policy.objectives import parse_constraint, parse_objective
    from recoursesim.policy.space import check_disjoint, parse_choices, parse_ranges

    require("optuna")
    scenario = load_scenario(args.scenario, allow_imports=args.allow_imports)
    ranges, choices = parse_ranges(args.param), parse_choices(args.choice)
    check_disjoint(ranges, choices)
    objectives = [parse_objective(text) for text in args.objective]
    constraints = [parse_constraint(text) for text in args.constraint]
    batch = args.batch or args.dask_local or args.workers
    choice = check_executor(args, batch * args.seeds, [scenario])
    out = study_out(args, "optimise", scenario.name, "search")
    start = time.perf_counter()
    with study_directory(args, out) as directory:
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
        )
        search.open(resume=args.resume)
        say = None if args.quiet else (lambda line: print(line, file=sys.stderr))
        try:
            with choice.open() as executor:
                ran = search.run(args.trials, executor=executor, progress=say)
        except SweepAbortedError as error:
            raise ConfigError("optimise", str(error), "rerun with --resume") from None
        best = write_results(search, directory, scenario.name)
        meta = {
            "scenario": scenario.name,
            "objectives": [o.label for o in objectives],
            "constraints": [c.label for c in constraints],
            "trials": args.trials,
            "trials_this_session": ran,
            "seeds": args.seeds,
            "batch": batch,
            "root_seed": search.seed,
            "best_trial": None if best is None else int(best["number"]),
            "seconds_this_session": round(time.perf_counter() - start, 3),
            "files": OPTIMISE_FILES,
        }
        (directory / "optimise.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    if not args.quiet:
        frame = search.trials_frame()
        columns = [c for c in frame.columns if c not in ("state", "error", "feasible")]
        print(frame[frame["pareto"]][columns].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        chosen = "no feasible trial" if best is None else f"trial {int(best['number'])}"
        print(f"{ran} trials now; chosen policy: {chosen}; wrote {out}/ ({', '.join(OPTIMISE_FILES)})")
    return 0


def write_results(search: PolicySearch, directory: Path, name: str) -> pd.Series | None:
    """Write the trials, the Pareto front, its figure and the chosen policies; return the chosen trial row."""
    from recoursesim.policy.figures import pareto_figure

    frame = search.trials_frame()
    write_parquet(frame, directory / "trials.parquet")
    front = frame[frame["pareto"]]
    write_parquet(front, directory / "pareto.parquet")
    labels = [o.label for o in search.objectives]
    complete = frame[frame["state"] == "COMPLETE"]
    title = f"{name}: {len(complete)} trials × {search.n_seeds} seeds; " + (
        f"{labels[0]} per trial" if len(labels) == 1 else f"Pareto front of {labels[0]} and {labels[1]}"
    )
    pareto_figure(complete, labels, title=title).savefig(directory / "pareto.png", dpi=110)
    (directory / "front").mkdir(exist_ok=True)
    for written in (directory / "front").glob("trial-*.toml"):  # only the files an earlier write left
        if written.stem.removeprefix("trial-").isdigit():
            written.unlink()
    for _, row in front.iterrows():
        number = int(row["number"])
        note = f"Pareto-optimal policy: trial {number} of the search in {directory.name}"
        toml = policy_toml(search.scenario, search.params_of(number), note)
        (directory / "front" / f"trial-{number}.toml").write_text(toml, encoding="utf-8")
    best = search.best(frame)
    (directory / "best-policy.toml").unlink(missing_ok=True)
    if best is not None:
        number = int(best["number"])
        values = ", ".join(f"{label} = {best[label]:.4g} ± {best[f'{label}_se']:.2g} (SE)" for label in labels)
        note = f"Chosen policy: trial {number} of the search in {directory.name}\n{values}"
        toml = policy_toml(search.scenario, search.params_of(number), note)
        (directory / "best-policy.toml").write_text(toml, encoding="utf-8")
    return best
