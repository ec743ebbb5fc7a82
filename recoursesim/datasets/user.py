"""Read a user's file (a CSV or Parquet table, a results Parquet file) with errors naming the field and the fix.

This is the one place where recoursesim opens a file a user names as input data: the scenario's
``population.path``, the ``--csv`` of the audits, and the Parquet files ``report`` and ``summarise``
read back. Every problem becomes a one-line :class:`~recoursesim.errors.DataError`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim._files import check_input_file
from recoursesim.errors import ConfigError, DataError, first_line

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
    if kind == "csv":
        frame = _read_csv(path, field)
        header = _csv_header(path)
    else:
        frame = read_parquet_file(path, field)
        header = [str(name) for name in frame.columns]
    repeated = [name for name, count in Counter(header).items() if count > 1]
    if repeated:
        raise DataError(
            field,
            f"{path.name} has the column {repeated[0]!r} {Counter(header)[repeated[0]]} times",
            "rename or drop the repeated columns so that every column name is distinct",
        )
    if frame.empty:
        raise DataError(field, f"{path.name} has a header but no data rows", "give a file with data rows")
    return frame


def _read_csv(path: Path, field: str) -> pd.DataFrame:
    try:
        return pd.read_csv(path, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        raise DataError(field, f"{path.name} is empty", "give a CSV file with a header row and data rows") from None
    except (OSError, ValueError, UnicodeDecodeError, EOFError) as error:
        raise DataError(
            field, f"cannot read {path.name} as CSV ({first_line(error)})", "give a comma-separated UTF-8 file"
        ) from None


def _csv_header(path: Path) -> list[str]:
    """The raw column names of a CSV file's first row (before pandas renames repeated ones)."""
    frame = pd.read_csv(path, encoding="utf-8-sig", header=None, nrows=1, dtype=str, keep_default_na=False)
    return [str(name) for name in frame.iloc[0].tolist()] if len(frame) else []


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
