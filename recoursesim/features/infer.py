"""Guess the feature types of a user's table from its column dtypes, and say what was guessed.

The rules are deliberately plain, so that a user can predict them and override any guess in
``[population.feature_types]``:

- a boolean column is ``categorical``;
- an integer column is ``integer``;
- any other numeric column is ``numeric``;
- an ordered pandas ``Categorical`` is ``ordinal``, with its categories' order;
- anything else (text, unordered categories) is ``categorical``.

A text column with more than :data:`MAX_CATEGORIES` distinct values (an identifier, free text)
cannot be a sensible categorical feature: it is refused with a fix rather than guessed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import pandas as pd

from recoursesim.errors import ConfigError

#: Most distinct values of a column whose type is guessed as categorical.
MAX_CATEGORIES = 50

log = logging.getLogger("recoursesim.data")
_said: set[str] = set()


def infer_feature_types(frame: pd.DataFrame, columns: Sequence[str], field: str = "feature_types") -> dict[str, Any]:
    """Return a ``feature_types`` table (as a scenario writes it) for ``columns`` of ``frame``.

    Args:
        frame: The data.
        columns: The columns to type.
        field: The scenario table overrides go into (for error messages).

    Raises:
        ConfigError: a column that is not in the frame, or a text column with too many values.
    """
    table: dict[str, Any] = {}
    for name in columns:
        if name not in frame.columns:
            raise ConfigError(
                f"features.{name}", "is not a column of the data", f"use one of {', '.join(map(str, frame))}"
            )
        column = frame[name]
        dtype = column.dtype
        if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
            table[name] = {"kind": "ordinal", "order": list(dtype.categories)}
        elif pd.api.types.is_bool_dtype(dtype):
            table[name] = "categorical"
        elif pd.api.types.is_integer_dtype(dtype):
            table[name] = "integer"
        elif pd.api.types.is_numeric_dtype(dtype):
            table[name] = "numeric"
        else:
            distinct = column.nunique(dropna=True)
            if distinct > MAX_CATEGORIES:
                raise ConfigError(
                    f"{field}.{name}",
                    f"holds {distinct} distinct text values, too many for a categorical feature",
                    f"leave it out with features = [...], or declare it in [population.{field}]",
                )
            table[name] = "categorical"
    return table


def report_inferred(source: str, table: dict[str, Any], field: str = "population.feature_types") -> None:
    """Log the inferred types once per process (the command line prints them on stderr).

    The types read ``income numeric, children integer, education ordinal (primary < secondary)``.
    """
    if not table:
        return
    types = ", ".join(
        f"{name} ordinal ({' < '.join(map(str, entry['order']))})" if isinstance(entry, dict) else f"{name} {entry}"
        for name, entry in table.items()
    )
    message = f"{source}: inferred feature types: {types} (override any in [{field}])"
    if message not in _said:
        _said.add(message)
        log.info(message)
