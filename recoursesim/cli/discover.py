"""``recoursesim discover``: scenario discovery on a sweep or a study (PRIM, through the EMA Workbench).

Read the runs of a sweep, or of the sweeps of a sensitivity or optimise study, as data; mark the
runs where --where holds; run PRIM over the parameters the sweep varied and print each box with its
coverage, density and the parameters it restricts. With --out, also write the tables and figures.
"""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path

from recoursesim.cli import COMMANDS
from recoursesim.cli._common import FilesHelpFormatter, positive_int, with_files
from recoursesim.output import add_out_arguments, atomic_output_dir, check_out
from recoursesim.policy._deps import EMA_INSTALL, require_prim
from recoursesim.policy.discover import DISCOVER_FILES, discover, parse_condition, read_cases


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``discover`` command."""
    description = f"{inspect.cleandoc(__doc__ or '').partition(chr(10) * 2)[2]} Needs the ema extra: {EMA_INSTALL}."
    parser = commands.add_parser(
        "discover",
        help=COMMANDS["discover"],
        description=with_files(description, DISCOVER_FILES, "Files written into --out"),
        formatter_class=FilesHelpFormatter,
    )
    parser.add_argument("results", type=Path, metavar="RESULTS", help="a sweep's or a study's --out directory")
    parser.add_argument(
        "--where", required=True, metavar="EXPR", help="the runs of interest, e.g. 'dTTR:disadvantaged > 2'"
    )
    parser.add_argument(
        "--threshold", type=float, default=0.8, help="density a box must reach, in (0, 1] (default 0.8)"
    )
    parser.add_argument("--boxes", type=positive_int, default=3, help="boxes to seek at most (default 3)")
    parser.add_argument("--peel-alpha", type=float, default=0.05, help="share peeled per step (default 0.05)")
    parser.add_argument("--mass-min", type=float, default=0.05, help="smallest share of runs in a box (default 0.05)")
    add_out_arguments(parser, "also write the boxes, trajectories and figures here")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``recoursesim discover``."""
    require_prim()  # PRIM alone, not the whole workbench; a missing extra fails before any reading
    condition = parse_condition(args.where)
    if args.out is not None:
        check_out(args.out, overwrite=args.overwrite)  # an unusable --out fails before any reading
    found = discover(
        read_cases(args.results, condition),
        threshold=args.threshold,
        max_boxes=args.boxes,
        peel_alpha=args.peel_alpha,
        mass_min=args.mass_min,
    )
    if args.out is not None:
        with atomic_output_dir(args.out, overwrite=args.overwrite) as directory:
            found.write(directory)
    print(found.format())
    if args.out is not None:
        print(f"wrote {args.out}/ ({', '.join(DISCOVER_FILES)})")
    return 0
