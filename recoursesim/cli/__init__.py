"""The ``recoursesim`` command line.

:func:`main`, through :func:`guarded` (which the experiment scripts use too), is the one error
boundary: every problem a user can cause (a bad scenario field, an unusable path, a full disk, too
little memory) ends as one line ``error: <what>: <cause>; fix: <how>``
on stderr with exit status 2; Ctrl-C ends as one line with exit status 130; an unexpected failure
shows its traceback and asks to report it (exit 1). ``--debug`` shows the traceback in both cases.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence

from recoursesim._version import __version__
from recoursesim.cli._common import Parser, fail
from recoursesim.errors import INTERRUPTED, INTERRUPTED_MESSAGE, RecourseSimError, describe_os_error

#: Top-level commands: name -> one-line help. Each is the module ``recoursesim.cli.<name>`` with
#: ``add_parser(subparsers)``, imported only when its command is run (or its help asked for), so
#: that ``recoursesim --help`` starts without NumPy, pandas or scikit-learn.
COMMANDS: dict[str, str] = {
    "run": "run a scenario and print its per-group summary",
    "audit": "audit a model on a dataset for recourse fairness",
    "sweep": "run a scenario over seeds × a parameter grid (local processes or Dask)",
    "summarise": "aggregate a sweep: mean, SEM, 95%% CI per (parameters, step, group, metric)",
    "compare": "compare policies (scenarios) over seeds, with confidence intervals",
    "report": "write a time-resolved fairness report (HTML or Markdown) from run results",
    "dashboard": "serve the interactive Game-of-Recourse dashboard in the browser",
    "lesson": "run a small grid of settings and write one self-contained, explorable HTML page for a class",
    "list": "list the bundled scenarios, the components a scenario can name, or the bundled data sets",
    "show": "print a scenario fully resolved (bases merged in) as a TOML scenario",
    "sensitivity": "global sensitivity analysis of a metric over numeric scenario fields (SALib)",
    "optimise": "search policies (selector, mitigation, parameters) for one or more objectives (Optuna)",
    "discover": "scenario discovery on a sweep or study: the parameter boxes where a condition holds (PRIM)",
    "calibrate": "fit scenario parameters to observed per-step, per-group aggregates (ABC-SMC, pyabc)",
}

#: Commands whose module is not named after them (``list`` would shadow the built-in).
_MODULES: dict[str, str] = {"list": "listing"}


#: Whom to tell about a bug.
ISSUES_URL = "the recoursesim maintainers"


def build_parser(command: str | None = None) -> Parser:
    """Return the argument parser of the ``recoursesim`` command.

    Args:
        command: The command whose full parser is built (its module imported); the others are
            listed with their one-line help only. ``None`` builds every command in full.
    """
    parser = Parser(
        prog="recoursesim",
        description="Simulate algorithmic recourse over time and audit its fairness.",
    )
    parser.add_argument("--version", action="version", version=f"recoursesim {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of every error")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for name, help_text in COMMANDS.items():
        if command is None or name == command:
            importlib.import_module(f"recoursesim.cli.{_MODULES.get(name, name)}").add_parser(commands)
        else:
            commands.add_parser(name, help=help_text, add_help=False)
    return parser


def command_of(argv: Sequence[str]) -> str:
    """The command named in ``argv`` (the first argument that is not an option), or ``""``."""
    return next((arg for arg in argv if not arg.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input, 1 failure, 130 Ctrl-C)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(command_of(arguments)).parse_args(arguments)
    debug = bool(getattr(args, "debug", False))

    def command() -> int | None:
        from recoursesim.plugins import load_plugins

        load_plugins()
        return args.func(args)

    return guarded(command, debug)


def guarded(action: Callable[[], int | None], debug: bool = False) -> int:
    """Run ``action`` behind the command line's error boundary; return its exit status.

    The ``recoursesim`` command and the scripts in ``experiments/`` run through it: a user's
    error is one line on stderr and exit status 2, Ctrl-C one line and 130, anything else its
    traceback and 1 (see the module docstring).

    Args:
        action: The work; returns an exit status (``None`` is 0).
        debug: Show the traceback of a user's error too.
    """
    try:
        with _notes_on_stderr():
            return int(action() or 0)
    except RecourseSimError as error:
        return _user_error(str(error), debug)
    except OSError as error:
        return _user_error(describe_os_error(error), debug)
    except MemoryError:
        return _user_error(
            "out of memory; fix: make the run smaller (run.steps, population sizes) or use fewer --workers", debug
        )
    except KeyboardInterrupt:
        fail(INTERRUPTED_MESSAGE)
        return INTERRUPTED
    except Exception:
        traceback.print_exc()
        print(
            f"error: unexpected failure (a bug in recoursesim or in a plug-in); please report it to {ISSUES_URL} "
            "with the command and the traceback above",
            file=sys.stderr,
        )
        return 1


@contextlib.contextmanager
def _notes_on_stderr() -> Iterator[None]:
    """Print the library's notes (such as inferred feature types) as ``note: ...`` lines on stderr."""
    logger = logging.getLogger("recoursesim.data")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("note: %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _user_error(message: str, debug: bool) -> int:
    if debug:
        traceback.print_exc()
    return fail(message)
