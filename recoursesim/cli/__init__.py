"""The ``recoursesim`` command line.

:func:`main` is the one error boundary: every problem a user can cause (a bad scenario field, an
unusable path, a full disk, too little memory) ends as one line ``error: <what>: <cause>; fix: <how>``
on stderr with exit status 2; an unexpected failure shows its traceback and asks to report it
(exit 1). ``--debug`` shows the traceback in both cases.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence

from recoursesim._version import __version__
from recoursesim.cli import audit, compare, dashboard, report, run, summarise, sweep
from recoursesim.cli._common import Parser, describe_os_error, fail
from recoursesim.errors import RecourseSimError
from recoursesim.plugins import load_plugins

#: Top-level commands, each a module with ``add_parser(subparsers)``.
COMMANDS = (run, audit, sweep, summarise, compare, report, dashboard)

#: Whom to tell about a bug.
ISSUES_URL = "the recoursesim maintainers"


def build_parser() -> Parser:
    """Return the argument parser of the ``recoursesim`` command."""
    parser = Parser(
        prog="recoursesim",
        description="Simulate algorithmic recourse over time and audit its fairness.",
    )
    parser.add_argument("--version", action="version", version=f"recoursesim {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of every error")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for module in COMMANDS:
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input, 1 failure)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    try:
        load_plugins()
        return int(args.func(args) or 0)
    except RecourseSimError as error:
        return _user_error(str(error), debug)
    except OSError as error:
        return _user_error(describe_os_error(error), debug)
    except MemoryError:
        return _user_error(
            "out of memory; fix: make the run smaller (run.steps, population sizes) or use fewer --workers", debug
        )
    except KeyboardInterrupt:
        return fail("interrupted")
    except Exception:
        traceback.print_exc()
        print(
            f"error: unexpected failure (a bug in recoursesim or in a plug-in); please report it to {ISSUES_URL} "
            "with the command and the traceback above",
            file=sys.stderr,
        )
        return 1


def _user_error(message: str, debug: bool) -> int:
    if debug:
        traceback.print_exc()
    return fail(message)
