"""``recoursesim lesson``: a sweep over a few settings, written as one self-contained, explorable HTML page."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from recoursesim.cli._common import add_allow_import_argument, non_negative_int, relabelled, sweep_seed_count, writing
from recoursesim.cli._executor_options import add_executor_arguments, check_executor
from recoursesim.cli.sweep import format_failures
from recoursesim.errors import ConfigError, quote_path
from recoursesim.output import check_replaceable_file, out_path, slug, write_atomic
from recoursesim.registry import build
from recoursesim.scenario import bundled_names, load_scenario
from recoursesim.sweep import Point, SweepPlan, SweepStore, parse_grid, run_sweep

#: Most grid cells (points) a lesson may have: every cell is one position of the page's controls.
MAX_CELLS = 500


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``lesson`` command."""
    parser = commands.add_parser(
        "lesson",
        help="run a small grid of settings and write one self-contained, explorable HTML page for a class",
        description=(
            "Run SCENARIO for N seeds at every combination of the --vary values (on the sweep engine: "
            "resumable, local workers or Dask), then write one HTML file holding the results, interactive "
            "charts bound to sliders and drop-downs, and a short explanation beside each chart. Several "
            "scenarios become one more control, 'policy', whose values are the whole scenarios (labelled by "
            "their names or --label), run on the same seeds as `recoursesim compare` does; they must have the "
            "same groups, reference group, effort measure and number of steps. The page "
            "loads nothing from the network: it opens from a USB stick or any static site. The runs are "
            "kept in --runs; with --resume a finished grid is rebuilt into a page without new simulation. "
            "Needs the lesson extra: pip install 'recoursesim[lesson]'."
        ),
    )
    parser.add_argument(
        "scenarios",
        nargs="+",
        metavar="SCENARIO",
        help=f"a scenario TOML file or a bundled scenario name ({', '.join(bundled_names())}); several: a "
        "'policy' control choosing between them",
    )
    parser.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="a dotted scenario key and its values, e.g. population.q=0,1,2 (repeat: one control per key); "
        "applied to every scenario",
    )
    parser.add_argument(
        "--label",
        action="append",
        default=None,
        metavar="NAME",
        help="the policy control's name for each scenario, in order (default: the scenarios' names)",
    )
    parser.add_argument("--seeds", type=sweep_seed_count, required=True, help="runs per combination of values")
    parser.add_argument("--out", type=out_path, default=Path("lesson.html"), help="the page (default lesson.html)")
    parser.add_argument(
        "--runs", type=out_path, default=None, help="where the runs are kept (default: results/lesson-<scenario names>)"
    )
    parser.add_argument("--resume", action="store_true", help="continue (or reuse) the same runs in --runs")
    parser.add_argument(
        "--lever", default=None, metavar="KEY", help="the --vary key on the x axis of the disparity chart"
    )
    parser.add_argument("--title", default=None, help="the page's title (default: from the scenario's name)")
    parser.add_argument(
        "--intro", default=None, help="a paragraph under the title (default: the scenario's description)"
    )
    add_executor_arguments(parser)
    parser.add_argument(
        "--root-seed", type=non_negative_int, default=None, help="root entropy (default: the scenario's run.seed)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar, only errors")
    add_allow_import_argument(parser)
    parser.set_defaults(func=lesson)


def lesson(args: argparse.Namespace) -> int:
    """Execute ``recoursesim lesson``: check everything, run the grid, write the page."""
    from recoursesim.compare import POLICY_PARAM
    from recoursesim.report.lesson_page import require_extra

    out = check_page_path(args.out)
    require_extra()
    if not args.vary and len(args.scenarios) == 1:
        raise ConfigError("--vary", "is missing: a page over one scenario needs a setting to vary",
                          "add --vary KEY=V1,V2 (e.g. population.q=0,1,2), or give several scenarios")  # fmt: skip
    scenarios = policies_of(
        [load_scenario(name, allow_imports=args.allow_imports) for name in args.scenarios], args.label
    )
    grid = parse_vary(args.vary, policies=len(scenarios))
    controls = {POLICY_PARAM: list(scenarios), **grid} if len(scenarios) > 1 else grid
    if args.lever is not None and args.lever not in controls:
        raise ConfigError("--lever", f"{args.lever!r} is not a control", f"use one of {', '.join(controls)}")
    plan = plan_of(scenarios, grid, args.seeds, args.root_seed)
    executor_choice = check_executor(args, plan.n_runs, [p.scenario for p in plan.points])
    runs = args.runs or Path("results") / f"lesson-{slug('-'.join(s.name for s in scenarios.values()))}"
    check_runs(runs, plan, resume=args.resume, default=args.runs is None)
    if args.runs is None:
        runs.parent.mkdir(parents=True, exist_ok=True)
    with executor_choice.open() as executor:
        report = run_sweep(plan, runs, executor=executor, resume=args.resume, progress=not args.quiet)
    if report.failures:
        print(format_failures(report), file=sys.stderr)
        print(f"error: no page written; fix the failing runs, then run again with --runs {runs} --resume",
              file=sys.stderr)  # fmt: skip
        return 1
    size = write_page(out, runs, scenarios if len(scenarios) > 1 else next(iter(scenarios.values())), controls, args)
    if not args.quiet:
        print(f"wrote {out} ({size / 1e6:.2f} MB: {len(plan.points)} settings x {args.seeds} seeds; runs in {runs}/)")
    return 0


def policies_of(scenarios: Sequence[Any], labels: Sequence[str] | None) -> dict[str, Any]:
    """The scenarios by their policy label, refusing scenarios one page cannot show side by side.

    Two scenarios share a page when they have the same groups (names, in order), reference group,
    effort measure and number of steps: the charts' colours, disparities, effort axis and step
    axis are the page's, not a scenario's.

    Raises:
        ConfigError: labels that do not match the scenarios or repeat, or scenarios that differ as above.
    """
    if labels is not None and len(labels) != len(scenarios):
        raise ConfigError("--label", f"gives {len(labels)} name(s) for {len(scenarios)} scenario(s)",
                          "give one --label per scenario, in the same order")  # fmt: skip
    names = list(labels) if labels is not None else [s.name for s in scenarios]
    if len(set(names)) != len(names):
        field = "--label" if labels is not None else "scenarios"
        raise ConfigError(field, f"the policy labels are not distinct: {', '.join(names)}",
                          "give each scenario its own --label")  # fmt: skip
    first, label = scenarios[0], names[0]
    expected = _shared(first)
    for scenario, name in zip(scenarios[1:], names[1:], strict=True):
        for what, value in _shared(scenario).items():
            if value != expected[what]:
                raise ConfigError(
                    "scenarios",
                    f"{name} has {what} {_show(value)} but {label} has {_show(expected[what])}; "
                    "one lesson page shows scenarios with the same groups, reference group, effort measure and steps",
                    f"give {name} the same {what}, or make a page per scenario",
                )
    return dict(zip(names, scenarios, strict=True))


def _shared(scenario: Any) -> dict[str, Any]:
    """What the scenarios of one page must share: their groups, reference group, effort measure and steps."""
    spec = {k: v for k, v in scenario.spec["population"].items() if k not in ("initial", "entrants")}
    population = build("population", spec, data=scenario.inputs.get("data"), allow_imports=scenario.allow_imports)
    groups = tuple(str(g) for g in population.group_names)
    return {
        "groups": groups,
        "reference group": scenario.reference_group or groups[0],
        "effort measure": scenario.effort_measure,
        "steps": scenario.steps,
    }


def _show(value: Any) -> str:
    return ", ".join(value) if isinstance(value, tuple) else str(value)


def check_page_path(path: Path) -> Path:
    """``--out`` must be a new ``.html`` file, or a page recoursesim wrote (never a user's file)."""
    if path.suffix.lower() not in (".html", ".htm"):
        raise ConfigError("--out", f"{quote_path(path)} is not an .html file", "give a path ending in .html")
    return check_replaceable_file(path, "--out")


def parse_vary(items: Sequence[str], policies: int = 1) -> dict[str, list[Any]]:
    """The ``--vary`` items as a grid, refusing more than :data:`MAX_CELLS` cells (``policies`` scenarios each)."""
    with relabelled("--grid", "--vary"):
        grid = parse_grid(items)
    sizes = [len(values) for values in grid.values()] + ([policies] if policies > 1 else [])
    cells = math.prod(sizes)
    if cells > MAX_CELLS:
        counts = " x ".join(str(n) for n in sizes)
        raise ConfigError(
            "--vary",
            f"makes {cells:,} settings ({counts}); a lesson page holds at most {MAX_CELLS}",
            "give fewer values: a class explores a handful per control",
        )
    return grid


def plan_of(scenarios: Mapping[str, Any], grid: dict[str, list[Any]], seeds: int, root_seed: int | None) -> Any:
    """The sweep plan of the lesson (its errors name ``--vary``).

    One scenario: the grid over it. Several: the grid over each, every point labelled by its
    scenario's policy label too (``{"policy": "bell2024-cda", "population.q": 2}``), all on the
    same spawned seeds (the first scenario's ``run.seed`` by default), as ``recoursesim compare`` runs them.
    """
    from recoursesim.compare import POLICY_PARAM

    first = next(iter(scenarios.values()))
    root = first.seed if root_seed is None else root_seed
    with relabelled("--grid", "--vary"):
        plans = {
            label: SweepPlan.from_grid(scenario, grid, n_seeds=seeds, root_seed=root, durability=True)
            for label, scenario in scenarios.items()
        }
    if len(plans) == 1:
        return next(iter(plans.values()))
    points = tuple(
        Point({POLICY_PARAM: label, **point.params}, point.scenario)
        for label, plan in plans.items()
        for point in plan.points
    )
    return SweepPlan(points, n_seeds=seeds, root_seed=root, durability=True)


def check_runs(runs: Path, plan: Any, *, resume: bool, default: bool) -> None:
    """The sweep store's checks of the runs directory, naming ``--runs``."""
    with relabelled("--out", "--runs"):
        SweepStore(runs).check(plan, resume=resume, missing_parent_ok=default)


def write_page(out: Path, runs: Path, scenario: Any, grid: dict[str, list[Any]], args: argparse.Namespace) -> int:
    """Build the page from the finished runs and write it atomically; return its size in bytes.

    ``scenario`` is the scenario, or the scenarios by policy label; ``grid`` every control's values.
    """
    from recoursesim.report.lesson_page import build_lesson

    page = build_lesson(runs, scenario, grid, lever=args.lever, title=args.title, intro=args.intro).encode()
    with writing(out, "--out", "the lesson"):
        out.parent.mkdir(parents=True, exist_ok=True)  # check_page_path found a directory can be made there
        write_atomic(out, page)
    return len(page)
