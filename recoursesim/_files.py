"""Checking a path a user gives as an input file (standard library only, cheap to import)."""

from __future__ import annotations

import stat
from pathlib import Path

from recoursesim.errors import DataError


def check_input_file(path: str | Path, field: str, what: str = "file") -> Path:
    """Return ``path`` if it is an existing regular file, else raise saying what it is instead.

    Args:
        path: The file.
        field: The scenario field or option that named it.
        what: What the file should be, for the fix (``"CSV or Parquet file"``).

    Raises:
        DataError: the path does not exist, is a directory, or is a FIFO, socket or device.
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise DataError(
            field,
            f"file {path} not found",
            "check the path (in a scenario file a relative path starts at that file's folder)",
        ) from None
    except OSError as error:
        raise DataError(field, f"cannot open {path} ({error.strerror or error})", f"give a readable {what}") from None
    if stat.S_ISDIR(mode):
        raise DataError(field, f"{path} is a directory", f"give the path of a {what} inside it")
    if not stat.S_ISREG(mode):
        raise DataError(field, f"{path} is not a regular file (a FIFO, socket or device)", f"give the path of a {what}")
    return path
