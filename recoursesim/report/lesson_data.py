"""The data inside a lesson page: a sweep's summary, cut to what the panels draw, with one index per setting.

A lesson page draws from the tidy summary of a sweep (:func:`recoursesim.sweep.summarise`: mean
and Student-t interval across seeds per grid point, step, group and metric); nothing is
aggregated here. Each varied field becomes a *control*; every row carries the position of its
grid value in each control (``v0``, ``v1``, …), so a slider over positions selects rows exactly,
whatever the values are (``0.1`` and ``0.30000000000000004`` never meet).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.worker import DURABILITY_METRICS

#: Per-step metrics the panels draw (step ``t`` on the x axis).
STEP_METRICS = ("etr", "ttr", "selection_rate")
#: Whole-run (pooled) metrics the panels draw.
POOLED_METRICS = ("retr", "dttr", *DURABILITY_METRICS)
#: Shares: their interval is clipped to [0, 1], the range of the quantity.
SHARES = frozenset({"selection_rate", *DURABILITY_METRICS})
#: Quantities that cannot be negative (effort, waiting time and their ratio): their interval stops at 0.
NON_NEGATIVE = frozenset({"etr", "ttr", "retr"})
#: Significant digits kept in the page (the intervals across seeds are far wider than this).
DIGITS = 4


@dataclass(frozen=True)
class Control:
    """One varied scenario field, as the page shows it.

    Attributes:
        field: The dotted scenario key (``"population.q"``).
        column: The data column holding each row's position in ``values`` (``"v0"``).
        values: The grid values, in the order given.
    """

    field: str
    column: str
    values: tuple[Any, ...]

    @property
    def numeric(self) -> bool:
        """Whether every value is a number (then the page shows a slider, else a drop-down)."""
        return all(isinstance(v, int | float) and not isinstance(v, bool) for v in self.values)

    @property
    def labels(self) -> list[str]:
        """The values as the page prints them."""
        return [_label(v) for v in self.values]


def controls_of(grid: Mapping[str, Sequence[Any]]) -> list[Control]:
    """One :class:`Control` per varied field, in the order the fields were given."""
    return [Control(field, f"v{i}", tuple(values)) for i, (field, values) in enumerate(grid.items())]


def lesson_rows(summary: pd.DataFrame, controls: Sequence[Control]) -> list[dict[str, Any]]:
    """The page's data: one record per (grid point, step or pooled, group, metric) the panels draw.

    Args:
        summary: :func:`recoursesim.sweep.summarise`'s table of the lesson's sweep.
        controls: The varied fields (:func:`controls_of`).

    Returns:
        Records with ``v0``, ``v1``, … (positions of the grid values), ``step`` (``None`` on
        pooled rows), ``group``, ``metric``, ``n`` (seeds with a finite value), ``mean``,
        ``low`` and ``high`` (the interval; ``None`` where undefined). Bounds are clipped to the
        quantity's range: [0, 1] for shares, [0, ∞) for effort and time. Numbers keep :data:`DIGITS` significant digits.
    """
    per_step = summary["step"].notna() & summary["metric"].isin(STEP_METRICS)
    pooled = summary["step"].isna() & summary["metric"].isin(POOLED_METRICS)
    frame = summary.loc[per_step | pooled]
    positions = {c.column: _positions(frame[c.field], c.values) for c in controls}
    records = []
    for i, row in enumerate(frame.itertuples(index=False)):
        metric = str(row.metric)
        low, high = float(row.ci_low), float(row.ci_high)
        if metric in SHARES or metric in NON_NEGATIVE:
            low = max(low, 0.0)
        if metric in SHARES:
            high = min(high, 1.0)
        record: dict[str, Any] = {column: int(index[i]) for column, index in positions.items()}
        record.update(
            step=None if pd.isna(row.step) else int(row.step),
            group=str(row.group),
            metric=metric,
            n=int(row.n),
            mean=_rounded(float(row.mean)),
            low=_rounded(low),
            high=_rounded(high),
        )
        records.append(record)
    return records


def _positions(column: pd.Series, values: Sequence[Any]) -> list[int]:
    """Each row's position among ``values`` (matched as the summary stores them: numbers, booleans or text)."""
    keys = {_key(v): i for i, v in enumerate(values)}
    return [keys[_key(v)] for v in column]


def _key(value: Any) -> str:
    if isinstance(value, np.generic):  # numpy.bool_ is no bool, numpy.int64 no int
        value = value.item()
    if isinstance(value, bool):
        return f"b:{value}"
    if isinstance(value, int | float):
        return f"n:{float(value)!r}"
    return f"s:{value if isinstance(value, str) else canonical_json(value)}"


def _label(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _rounded(value: float) -> float | None:
    """``value`` to :data:`DIGITS` significant digits; ``None`` for NaN or infinity (JSON has neither)."""
    if not math.isfinite(value):
        return None
    return float(f"{value:.{DIGITS}g}")
