"""Shared command-line plumbing: argument types, the options that grant trust, one-line errors, a user table's columns.

The options by which the person running grants trust, ``--allow-import MODULE`` and ``--trust TYPE``, are
taken by every command that loads a scenario (see :mod:`recoursesim.trust` and
:mod:`recoursesim.scoring.model_trust`); a scenario file never grants either.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from recoursesim.errors import ConfigError, DataError, os_cause, quote_path

if TYPE_CHECKING:
    import pandas as pd


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``prog: error: message; see --help`` and exit 2."""
        self.exit(2, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")


class FilesHelpFormatter(argparse.HelpFormatter):
    """Help that wraps a description's paragraphs to the terminal but keeps a table of files as written.

    A paragraph (text between blank lines) with an indented line is a table (see
    :func:`with_files`); every other paragraph is filled as argparse fills a description.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for block in text.split("\n\n"):
            table = "\n  " in block
            blocks.append(textwrap.indent(block, indent) if table else super()._fill_text(block, width, indent))
        return "\n\n".join(blocks)


def with_files(description: str, files: Mapping[str, str], heading: str) -> str:
    """A command's description followed by the files it writes and what each holds, for its ``--help``.

    Args:
        description: What the command does.
        files: File (or folder) name -> what it holds.
        heading: What the table is, e.g. ``"Files written with --out"``.

    Returns:
        The description, a blank line, the heading and one indented, aligned line per file; give
        the parser :class:`FilesHelpFormatter` to keep the table's lines as they are.
    """
    width = max(map(len, files))
    table = "\n".join(f"  {name:{width}s}  {what}" for name, what in files.items())
    return f"{description}\n\n{heading}:\n{table}"


def add_allow_import_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-import MODULE`` (repeatable): modules a scenario may name components from by import path."""
    parser.add_argument(
        "--allow-import",
        action="append",
        default=[],
        metavar="MODULE",
        dest="allow_imports",
        help=(
            "allow the scenario to import MODULE (and its submodules) for a component named "
            '"MODULE:Class"; repeat for several; without it such names are refused (see the security page)'
        ),
    )


def add_trust_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-import MODULE`` and ``--trust TYPE`` (both repeatable) to a command that loads scenarios."""
    add_allow_import_argument(parser)
    parser.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="TYPE",
        dest="trusted",
        help=(
            "let a model file (scorer model_file) hold TYPE (package.module.Class) beyond the allow-list of "
            "scikit-learn, NumPy and SciPy classes; repeat for several; only for a file whose author you trust "
            "(see the security page)"
        ),
    )


def add_force_argument(parser: argparse.ArgumentParser, verb: str = "run") -> None:
    """Add ``--force``: go on although the estimated memory exceeds what is available (``verb``: what goes on)."""
    parser.add_argument(
        "--force", action="store_true", help=f"{verb} even if the estimated memory exceeds what is available"
    )


def add_scenario_argument(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    """Add the positional ``scenario``: a scenario TOML file or a bundled scenario name (listed in its help).

    Args:
        parser: The command's parser.
        optional: The argument may be left out (it is then ``None``: the bundled ``default``).
    """
    from recoursesim.scenario import bundled_names

    described = f"a scenario TOML file or a bundled scenario name ({', '.join(bundled_names())})"
    if optional:
        parser.add_argument("scenario", nargs="?", default=None, help=f"{described}; default: default")
    else:
        parser.add_argument("scenario", help=described)


def positive_int(text: str) -> int:
    """Argparse type: an integer >= 1."""
    return _at_least(text, 1, "must be a positive integer")


def seed_count(text: str) -> int:
    """Argparse type of ``--seeds``: from 1 to the most runs a sweep may hold (checked before any run)."""
    return _seeds(text, 1)


def two_or_more(text: str) -> int:
    """Argparse type of ``--seeds`` where an interval across seeds is computed: at least 2."""
    return _seeds(text, 2)


def sweep_seed_count(text: str) -> int:
    """Argparse type of a sweep's ``--seeds``: at least 1 (its plan bounds points × seeds, naming the runs)."""
    return _seeds(text, 1, bounded=False)


def _seeds(text: str, minimum: int, *, bounded: bool = True) -> int:
    """``text`` as a number of seeds, checked by :func:`~recoursesim.sweep.plan.check_seeds`."""
    from recoursesim.resources import MAX_SWEEP_RUNS
    from recoursesim.sweep.plan import check_seeds

    try:
        return check_seeds(_integer(text), minimum, MAX_SWEEP_RUNS if bounded else None)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(error.problem) from None


def non_negative_int(text: str) -> int:
    """Argparse type: an integer >= 0."""
    return _at_least(text, 0, "must be a non-negative integer")


def _at_least(text: str, minimum: int, problem: str) -> int:
    value = _integer(text)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{problem}, got {text}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


#: Control characters (a newline, a NUL, an escape sequence) that a user's text may carry into a message.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def status(quiet: bool) -> Callable[[str], None] | None:
    """Where a command says what it is doing: a line on stderr each time, if it is a terminal and not ``--quiet``.

    Like the progress bars, status lines go to a terminal only, so piped stderr keeps an error to one line.
    """
    if quiet or not sys.stderr.isatty():
        return None
    return lambda line: print(line, file=sys.stderr, flush=True)


def fail(message: str) -> int:
    r"""Print a one-line error to stderr and return exit status 2.

    Control characters the user typed (``show 'default\n'``) are shown escaped, as Python writes
    them (``default\n``), so the message stays on one line and says what was given.
    """
    print(f"error: {_CONTROL.sub(lambda found: repr(found.group())[1:-1], message)}", file=sys.stderr)
    return 2


@contextmanager
def writing(path: Path, option: str, what: str) -> Iterator[None]:
    """Report an operating-system error while writing ``path`` as one line naming ``option`` and ``path``.

    Libraries write through temporary files next to ``path`` (``.report_figures.tmp-…``); an
    error there is the user's ``option``, not the temporary name. An error about a file elsewhere
    (an input) is passed on unchanged.

    Raises:
        ConfigError: ``option: path: writing <what> failed (cause); fix: ...``.
    """
    try:
        yield
    except OSError as error:
        where = error.filename if error.filename is not None else error.filename2
        folder = str(path.resolve().parent)
        if where is not None and not str(Path(str(where)).resolve()).startswith(folder):
            raise
        cause, fix = os_cause(error)
        raise ConfigError(option, f"{quote_path(path)}: writing {what} failed ({cause})", fix) from None


@contextmanager
def options_named(options: Mapping[str, str]) -> Iterator[None]:
    """Report a library's error about one of its parameters under the option the user typed.

    The library names its parameters (``n_splits``); the command line's user typed ``--folds``.

    Args:
        options: Parameter name -> option (``{"n_splits": "--folds"}``).

    Raises:
        ConfigError: The same error (same class) with the option as its field.
    """
    try:
        yield
    except ConfigError as error:
        option = options.get(error.field)
        if option is None:
            raise
        named = re.compile(rf"(?<![\w.-]){re.escape(error.field)}(?![\w-])")  # "set n_splits to 2" too
        problem, fix = (named.sub(option, text) for text in (error.problem, error.fix))
        raise type(error)(option, problem, fix) from None


@contextmanager
def relabelled(old: str, new: str) -> Iterator[None]:
    """Report a shared helper's error about option ``old`` (a field starting with it) under this command's ``new``.

    Raises:
        ConfigError: The same problem, with ``old`` replaced by ``new`` in the field and the fix.
    """
    try:
        yield
    except ConfigError as error:
        if not error.field.startswith(old):
            raise
        raise ConfigError(error.field.replace(old, new), error.problem, error.fix.replace(old, new)) from None


def require_columns(frame: pd.DataFrame, option: str, names: Sequence[str | None] | None) -> None:
    """Raise :class:`DataError` naming ``option`` unless every name it gave is a column of ``frame``."""
    for name in names or ():
        if name is not None and name not in frame.columns:
            listed = ", ".join(map(str, frame.columns))
            raise DataError(option, f"{name!r} is not a column of the CSV file", f"use one of {listed}")
