"""Read a user's file (a CSV or Parquet table, a results Parquet file) with errors naming the field and the fix.

This is the one place where recoursesim opens a file a user names as input data: the scenario's
``population.path``, the ``--csv`` of the audits, and the Parquet files ``report`` and ``summarise``
read back. Every problem becomes a one-line :class:`~recoursesim.errors.DataError`.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from recoursesim._files import check_input_file
from recoursesim.errors import ConfigError, DataError, first_line
from recoursesim.resources import MAX_HEADER_BYTES, MAX_TABLE_COLUMNS, check_memory, format_bytes

#: File endings :func:`read_table` understands; compressed CSV is read through pandas' decompression.
CSV_SUFFIXES: tuple[str, ...] = (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".csv.zip")
PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")
SUFFIXES: tuple[str, ...] = CSV_SUFFIXES + PARQUET_SUFFIXES


def table_kind(path: Path) -> str | None:
    """``"csv"``, ``"parquet"`` or ``None`` (an ending :func:`read_table` does not read)."""
    name = path.name.lower()
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    return None


def read_table(path: str | Path, field: str = "path") -> pd.DataFrame:
    """Read a CSV (plain or compressed) or Parquet file into a DataFrame.

    CSV is read as UTF-8 (a byte-order mark is skipped); ``.csv.gz``, ``.csv.bz2``, ``.csv.xz`` and
    ``.csv.zip`` are decompressed. Column names must be distinct: pandas would rename a second
    ``income`` to ``income.1`` and a scenario naming ``income`` would silently use the first.

    Args:
        path: The file.
        field: The scenario field or option that named the file (for error messages).

    Raises:
        DataError: a missing, special or unreadable file, an unknown ending, duplicate column
            names, or a table with no rows.
    """
    path = Path(path)
    kind = table_kind(path)
    if kind is None:
        raise DataError(
            field, f"{path.name} is neither CSV nor Parquet", f"give a file ending in {', '.join(SUFFIXES)}"
        )
    check_input_file(path, field, "CSV or Parquet file")
    header = _csv_header(path, field) if kind == "csv" else _parquet_header(path, field)
    _check_size(path, field, len(header))
    frame = _read_csv(path, field) if kind == "csv" else read_parquet_file(path, field)
    repeated = [name for name, count in Counter(header).items() if count > 1]
    if repeated:
        raise DataError(
            field,
            f"{path.name} has the column {repeated[0]!r} {Counter(header)[repeated[0]]} times",
            "rename or drop the repeated columns so that every column name is distinct",
        )
    if frame.empty:
        raise DataError(field, f"{path.name} has a header but no data rows", "give a file with data rows")
    _refuse_nul(frame, path, field)
    return frame


#: Peak memory of reading a CSV file, per byte of the file: measured 2.1 for a numeric table and
#: 8.6 for a table of one-to-three-letter words (pandas 3, 200,000 rows x 10 columns); text cells
#: cost the most, so this bounds both.
BYTES_PER_CSV_BYTE = 10


def _check_size(path: Path, field: str, columns: int) -> None:
    """Refuse, before parsing, a table too wide, or too large to read into the memory available.

    Too wide: more than :data:`~recoursesim.resources.MAX_TABLE_COLUMNS` columns; too large (plain
    CSV, from its size on disk): :data:`BYTES_PER_CSV_BYTE` per byte exceeds the available memory.
    """
    if columns > MAX_TABLE_COLUMNS:
        raise DataError(
            field,
            f"{path.name} has {columns:,} columns; at most {MAX_TABLE_COLUMNS:,} are read",
            "keep the columns the audit or scenario uses (features, group, target) and drop the rest",
        )
    if path.name.lower().endswith(".csv"):
        size = path.stat().st_size
        check_memory(
            size * BYTES_PER_CSV_BYTE,
            f"reading {format_bytes(size)} of CSV",
            "give a sample of the rows, or drop the columns that are not used",
            field=field,
        )


def _refuse_nul(frame: pd.DataFrame, path: Path, field: str) -> None:
    """Refuse a NUL byte in a column name or a text cell: it ends a string in C code and in many files written later."""
    for number, name in enumerate(frame.columns, start=1):
        if "\x00" in str(name):
            raise DataError(field, f"{path.name}: the name of column {number} holds a NUL byte", _NUL_FIX)
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            continue
        holds = series.astype(str).str.contains("\x00", regex=False).to_numpy(dtype=bool)
        if holds.any():
            row = int(np.argmax(holds)) + 1
            raise DataError(field, f"{path.name}: column {column!r} holds a NUL byte in data row {row}", _NUL_FIX)


_NUL_FIX = "remove the NUL bytes (\\0) from the file; they are usually left by a binary export or a broken copy"


def _read_csv(path: Path, field: str) -> pd.DataFrame:
    try:
        return pd.read_csv(path, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        raise DataError(field, f"{path.name} is empty", "give a CSV file with a header row and data rows") from None
    except (OSError, ValueError, UnicodeDecodeError, EOFError) as error:
        raise DataError(
            field, f"cannot read {path.name} as CSV ({first_line(error)})", "give a comma-separated UTF-8 file"
        ) from None


def _csv_header(path: Path, field: str) -> list[str]:
    """The raw column names of a CSV file's first row (before pandas renames repeated ones).

    At most :data:`~recoursesim.resources.MAX_HEADER_BYTES` are read: a longer header (a
    million-column file) is refused without reading the rest.
    """
    try:
        with _open_csv(path) as handle:
            line = handle.readline(MAX_HEADER_BYTES + 1)
    except (OSError, EOFError, UnicodeDecodeError, ValueError, zipfile.BadZipFile) as error:
        raise DataError(
            field, f"cannot read {path.name} as CSV ({first_line(error)})", "give a comma-separated UTF-8 file"
        ) from None
    if len(line) > MAX_HEADER_BYTES:
        raise DataError(
            field,
            f"{path.name}: the header line is longer than {format_bytes(MAX_HEADER_BYTES)} (more columns than "
            f"the {MAX_TABLE_COLUMNS:,} read)",
            "keep the columns the audit or scenario uses (features, group, target) and drop the rest",
        )
    return next(csv.reader([line.removeprefix("\ufeff")]), [])


def _open_csv(path: Path) -> IO[str]:
    """Open a plain or compressed CSV file as UTF-8 text (``.zip``: its only member, as pandas reads it)."""
    name = path.name.lower()
    openers: dict[str, Callable[..., IO[str]]] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
    for ending, opener in openers.items():
        if name.endswith(ending):
            return opener(path, "rt", encoding="utf-8", newline="")
    if name.endswith(".zip"):
        archive = zipfile.ZipFile(path)
        members = archive.namelist()
        if len(members) != 1:
            raise ValueError(f"the archive holds {len(members)} files, not one CSV file")
        return io.TextIOWrapper(archive.open(members[0]), encoding="utf-8", newline="")
    return path.open(encoding="utf-8", newline="")


def _parquet_header(path: Path, field: str) -> list[str]:
    """The column names of a Parquet file, from its footer (no data read)."""
    import pyarrow.parquet as pq

    try:
        return [str(name) for name in pq.read_schema(path).names]
    except (OSError, ValueError, TypeError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise DataError(
            field, f"cannot read {path} as Parquet ({first_line(error)})", "give a readable Parquet file"
        ) from None


def read_parquet_file(path: str | Path, field: str, fix: str = "give a readable Parquet file") -> pd.DataFrame:
    """Read a Parquet file; a missing, special, truncated or corrupt file raises :class:`DataError`.

    Args:
        path: The file.
        field: What named it (a scenario field, an option, a results directory).
        fix: What to do about a file that cannot be read.
    """
    path = check_input_file(path, field, "Parquet file")
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError, TypeError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise DataError(field, f"cannot read {path} as Parquet ({first_line(error)})", fix) from None


def first_bad_cell(frame: pd.DataFrame, columns: list[str] | None = None) -> tuple[str, str, int, int] | None:
    """The first column (in order) holding a missing (NaN) or infinite value, or ``None``.

    Returns:
        ``(column, what, count, row)``: ``what`` is ``"missing (NaN)"`` or ``"infinite"``, ``count``
        how many such cells the column has and ``row`` the first one's data row (1 = the first row
        after the header).
    """
    for column in frame.columns if columns is None else columns:
        series = frame[column]
        bad = series.isna().to_numpy()
        what = "missing (NaN)"
        if not bad.any() and pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            bad = np.isinf(series.to_numpy(dtype=float))
            what = "infinite"
        if bad.any():
            return str(column), what, int(bad.sum()), int(np.argmax(bad)) + 1
    return None


def require_complete(
    frame: pd.DataFrame, columns: list[str] | None = None, *, field: str, source: str | None = None, fix: str
) -> None:
    """Raise a one-line :class:`DataError` for the first of ``columns`` holding a missing or infinite value.

    Args:
        frame: The table.
        columns: The columns to check, in order (default: all).
        field: The field the error names; ``{column}`` in it becomes the column's name.
        source: Where the table came from (a file), said in the message when given.
        fix: What the user should do.
    """
    bad = first_bad_cell(frame, columns)
    if bad is None:
        return
    column, what, count, row = bad
    where = f" in {source}" if source else ""
    raise DataError(
        field.format(column=column), f"column has {count} {what} value(s){where}, first in data row {row}", fix
    )


def favourable_labels(column: pd.Series, favourable: object, *, field: str, favourable_field: str) -> np.ndarray:
    """Return the 0/1 labels of a two-valued outcome column (1 = favourable).

    Which value is favourable must be said (``favourable``) unless the labels are 0 and 1 or
    ``False`` and ``True``: for two words such as ``"approved"`` and ``"denied"`` no rule (the
    larger, the later in the alphabet) can be trusted to pick the right one.

    Args:
        column: The outcome column.
        favourable: The favourable value, or ``None`` for 0/1 or boolean labels.
        field: The field naming the column (for errors about the column).
        favourable_field: The field or option that gives ``favourable`` (for the fix).

    Raises:
        DataError: the column has a missing value or not exactly two distinct values.
        ConfigError: ``favourable`` is not one of the two values, or is needed and not given.
    """
    name = str(column.name)
    if column.isna().any():
        row = int(np.argmax(column.isna().to_numpy())) + 1
        raise DataError(field, f"{name!r} has a missing value in data row {row}", "fill or drop those rows")
    values = sorted(column.unique().tolist(), key=str)
    if len(values) != 2:
        shown = ", ".join(repr(v) for v in values[:5]) + (", ..." if len(values) > 5 else "")
        raise DataError(
            field, f"{name!r} has {len(values)} distinct values ({shown})", "give a two-valued outcome column"
        )
    if favourable is None:
        if all(isinstance(v, bool | np.bool_ | int | np.integer | float | np.floating) for v in values) and {
            float(v) for v in values
        } == {0.0, 1.0}:
            favourable = 1
        else:
            raise ConfigError(
                favourable_field,
                f"is needed: the outcome {name!r} has the labels {values[0]!r} and {values[1]!r}, "
                "and which of them is favourable cannot be guessed",
                f"name the favourable label: {' or '.join(_setting(favourable_field, v) for v in values)}",
            )
    matches = [v for v in values if v == favourable or str(v) == str(favourable)]
    if not matches:
        raise ConfigError(
            favourable_field,
            f"{favourable!r} is not a value of {name!r}",
            f"use {_setting(favourable_field, values[0])} or {_setting(favourable_field, values[1])}",
        )
    return (column.to_numpy() == matches[0]).astype(np.int64)


def _setting(field: str, value: object) -> str:
    """``favourable = "yes"`` for a scenario field, ``--favourable yes`` for an option."""
    if field.startswith("--"):
        return f"{field} {value}"
    if isinstance(value, bool | np.bool_):
        return f"{field} = {'true' if value else 'false'}"
    return f'{field} = "{value}"' if isinstance(value, str) else f"{field} = {value}"
