"""Shared command-line plumbing: argument types, one-line errors, reading user tables."""

from __future__ import annotations

import argparse
import errno
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from recoursesim.errors import DataError

if TYPE_CHECKING:
    import pandas as pd


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``prog: error: message; see --help`` and exit 2."""
        self.exit(2, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")


def positive_int(text: str) -> int:
    """Argparse type: an integer >= 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """Argparse type: an integer >= 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def fail(message: str) -> int:
    """Print a one-line error to stderr and return exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2


#: What to do about the operating-system errors a user can cause, by errno.
_OS_FIXES: dict[int, str] = {
    errno.EACCES: "check the permissions, or choose another path",
    errno.EPERM: "check the permissions, or choose another path",
    errno.EROFS: "the file system is read-only; choose a writable location",
    errno.ENOSPC: "free some disk space, or write to another disk",
    errno.EDQUOT: "free some space within your disk quota, or write elsewhere",
    errno.ENAMETOOLONG: "use a shorter name or path",
    errno.ENOENT: "check that the path exists",
    errno.ENOTDIR: "a part of the path is a file, not a directory; correct the path",
    errno.EISDIR: "give a file path, not a directory",
    errno.EEXIST: "choose another path",
    errno.ENOTEMPTY: "choose an empty or new directory",
    errno.EMFILE: "too many open files; raise the limit (ulimit -n) or use fewer --workers",
    errno.ENOMEM: "not enough memory; make the run smaller or use fewer --workers",
    errno.EXDEV: "keep the output on the same disk as its parent directory",
}

#: Longest path quoted in an error message (a 5,000-character name would flood the terminal).
_MAX_QUOTED = 120


def os_cause(error: OSError) -> tuple[str, str]:
    """Return the cause (``strerror``) and the fix for an operating-system error.

    Errors raised by libraries that only put ``[Errno N]`` in the message (pyarrow) are recognised too.
    """
    number = error.errno
    if number is None:
        found = re.search(r"\[Errno (\d+)\]", str(error))
        number = int(found.group(1)) if found else None
    cause = error.strerror or (os.strerror(number) if number is not None else "") or _first_line(error)
    return cause, _OS_FIXES.get(number if number is not None else -1, "check the path and try again")


def quote_path(path: object) -> str:
    """A path for an error message, shortened in the middle when very long."""
    text = str(path)
    if len(text) > _MAX_QUOTED:
        return f"{text[: _MAX_QUOTED // 2]}…{text[-_MAX_QUOTED // 2 :]} ({len(text)} characters)"
    return text


def describe_os_error(error: OSError) -> str:
    """Return ``path: cause; fix: ...`` for an operating-system error, on one line."""
    cause, fix = os_cause(error)
    where = error.filename if error.filename is not None else error.filename2
    if where is None:
        return f"{cause}; fix: {fix}"
    return f"{quote_path(where)}: {cause}; fix: {fix}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def read_csv_table(path: Path, field: str = "--csv") -> pd.DataFrame:
    """Read a user's CSV file; an unreadable, empty or malformed file raises :class:`DataError` naming ``field``."""
    import pandas as pd

    if not path.is_file():
        raise DataError(field, f"{path} is not a file", "give the path of a CSV file")
    try:
        frame = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise DataError(field, f"{path} is empty", "give a CSV file with a header row and data rows") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as error:
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        problem = f"{path} is not a readable CSV file ({detail})"
        raise DataError(field, problem, "give a comma-separated UTF-8 file") from None
    if frame.empty:
        raise DataError(field, f"{path} has a header but no data rows", "give a CSV file with data rows")
    return frame
