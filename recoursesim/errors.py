"""User-facing errors: each names what is wrong and how to fix it, in one line."""

from __future__ import annotations

import errno
import os
import re
from typing import Any

#: Exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130
#: What a command stopped by Ctrl-C says, on one line after ``error: ``.
INTERRUPTED_MESSAGE = "interrupted (Ctrl-C); nothing was left half-written (sweeps and studies continue with --resume)"


class RecourseSimError(Exception):
    """Base class of every error recoursesim raises on purpose.

    The command line prints ``str(error)`` on one line and exits with status 2.
    """


class ConfigError(RecourseSimError, ValueError):
    """A parameter, scenario field or input that cannot be used as given.

    Args:
        field: Dotted name of the offending field (``"selection.k"``), or a short label.
        problem: What is wrong with the value.
        fix: What the user should do instead.
    """

    def __init__(self, field: str, problem: str, fix: str) -> None:
        self.field = field
        self.problem = problem
        self.fix = fix
        super().__init__(f"{field}: {problem}; fix: {fix}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle by the three parts, so the error crosses process boundaries (workers, Dask)."""
        return (type(self), (self.field, self.problem, self.fix), self.__dict__)

    def under(self, prefix: str) -> ConfigError:
        """Return the same error with ``prefix`` prepended to the field name.

        A field already under ``prefix`` (a component that names its own section, such as
        ``recourse.name``) is kept as it is, so no field reads ``recourse.recourse.name``.
        """
        if not self.field:
            field = prefix
        elif self.field == prefix or self.field.startswith(f"{prefix}."):
            field = self.field
        else:
            field = f"{prefix}.{self.field}"
        return ConfigError(field, self.problem, self.fix)


class DataError(ConfigError):
    """Input data that cannot be used: a missing column, NaN features, a single class."""


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


def os_cause(error: OSError) -> tuple[str, str]:
    """Return the cause (``strerror``) and the fix for an operating-system error.

    Errors raised by libraries that only put ``[Errno N]`` in the message (pyarrow) are recognised too.
    """
    number = error.errno
    if number is None:
        found = re.search(r"\[Errno (\d+)\]", str(error), re.IGNORECASE)
        number = int(found.group(1)) if found else None
    cause = error.strerror or (os.strerror(number) if number is not None else "") or first_line(error)
    return cause, _OS_FIXES.get(number or -1, "check that the path exists and is readable or writable")


def first_line(error: BaseException) -> str:
    """The first line of an exception's message (its type's name when the message is empty)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


#: Longest path quoted in an error message (a 5,000-character name would flood the terminal).
_MAX_QUOTED = 120


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
