"""Read a user's tabular file (CSV or Parquet) with errors that name the field and the fix."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from recoursesim.errors import DataError

#: File endings :func:`read_table` understands.
SUFFIXES: tuple[str, ...] = (".csv", ".parquet", ".pq")


def read_table(path: str | Path, field: str = "path") -> pd.DataFrame:
    """Read a CSV or Parquet file into a DataFrame.

    Args:
        path: The file; ``.csv`` is read as comma-separated text, ``.parquet``/``.pq`` as Parquet.
        field: The scenario field that named the file (for error messages).

    Raises:
        DataError: a missing or unreadable file, an unknown ending, or an empty table.
    """
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        raise DataError(
            field, f"{path.name} is neither CSV nor Parquet", f"give a file ending in {', '.join(SUFFIXES)}"
        )
    if not path.is_file():
        raise DataError(
            field, f"file {path} not found", "check the path (relative paths start at the working directory)"
        )
    try:
        frame = pd.read_csv(path) if path.suffix.lower() == ".csv" else pd.read_parquet(path)
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise DataError(field, f"cannot read {path.name} ({first})", "give a readable CSV or Parquet file") from None
    if frame.empty:
        raise DataError(field, f"{path.name} has no rows", "give a file with data")
    return frame
