"""A scenario's resolved configuration as a two-column table (setting, value) for reports."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pandas as pd


def scenario_table(spec: Mapping[str, Any]) -> pd.DataFrame:
    """One row per scalar setting of ``spec``, keyed by its dotted path.

    Tables nest with dots (``selection.k``), lists of tables with an index
    (``population.groups[0].share``); a list of plain values stays one row (``[0.5, 0.5]``).

    Args:
        spec: A scenario's resolved configuration (:attr:`~recoursesim.scenario.Scenario.spec`).

    Returns:
        Columns ``setting`` and ``value`` (text), in the file's order.
    """
    rows = list(_leaves(spec, ""))
    return pd.DataFrame(rows, columns=["setting", "value"])


def _leaves(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, _text(value)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, default=str)
