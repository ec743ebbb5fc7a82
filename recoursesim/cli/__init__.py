"""The ``recoursesim`` command line."""

from __future__ import annotations

from collections.abc import Sequence

from recoursesim._version import __version__
from recoursesim.cli import audit, compare, dashboard, report, run, summarise, sweep
from recoursesim.cli._common import Parser, fail
from recoursesim.errors import RecourseSimError

#: Top-level commands, each a module with ``add_parser(subparsers)``.
COMMANDS = (run, audit, sweep, summarise, compare, report, dashboard)


def build_parser() -> Parser:
    """Return the argument parser of the ``recoursesim`` command."""
    parser = Parser(
        prog="recoursesim",
        description="Simulate algorithmic recourse over time and audit its fairness.",
    )
    parser.add_argument("--version", action="version", version=f"recoursesim {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for module in COMMANDS:
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input, 1 failure)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RecourseSimError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return fail("interrupted")
