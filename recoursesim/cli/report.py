"""``recoursesim report``: one self-contained HTML (or Markdown) report from a results directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from recoursesim.cli._common import non_negative_int, status, writing
from recoursesim.output import check_replaceable_file
from recoursesim.report import write_report


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``report`` command."""
    parser = commands.add_parser(
        "report",
        help="write a time-resolved fairness report (HTML or Markdown) from run results",
        description=(
            "Write one self-contained HTML report (figures embedded) from RESULTS: a directory written by "
            "`recoursesim run --out DIR`, or a directory of such run directories of one scenario, one per seed "
            "(results/<scenario>/seed-<N>, as `recoursesim run SCENARIO --seed N` writes them), or a sweep directory "
            "written by `recoursesim sweep` (every time series as a mean and a 95% band across its seeds; a sweep "
            "keeps no per-agent histories, so the sections drawn from them are left out). The figures are "
            "also saved as PNG and SVG in <report>_figures/ next to the report."
        ),
    )
    parser.add_argument("results", type=Path, help="a run directory or a directory of run directories (one per seed)")
    parser.add_argument(
        "--html", type=Path, default=Path("report.html"), help="the report file to write (default report.html)"
    )
    parser.add_argument(
        "--format", choices=["html", "md"], default="html", help="html (self-contained) or md (links the PNGs)"
    )
    parser.add_argument(
        "--point", type=non_negative_int, default=None, help="for a sweep over a grid: the grid point to report on"
    )
    parser.add_argument("--quiet", action="store_true", help="no status lines on stderr, only errors")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``recoursesim report``."""
    check_replaceable_file(args.html, "--html")
    with writing(args.html, "--html", "the report"):
        output, figures_dir, report = write_report(
            args.results, args.html, args.format, args.point, progress=status(args.quiet)
        )
    n_figures = len(report.figures)
    print(f"wrote {output} ({len(report.sections)} sections, {n_figures} figures; PNG and SVG in {figures_dir})")
    for paragraph in report.sections[0].paragraphs:
        print(f"  {paragraph}")
    return 0
