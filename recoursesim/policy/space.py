"""What a policy study varies and what it measures: numeric ranges, choices and pooled metrics.

A *range* is a dotted scenario key with bounds, written ``selection.k=10:200`` (integers when
both bounds are integers, ``:log`` for a log scale). A *choice* lists TOML values, written
``selection.name=top_k,circumstance_normalised`` or whole tables
``selection={name="top_k", k=50},{name="threshold", threshold=0.6}``. A *metric* names a pooled
per-group result of a run, written ``dTTR:female`` (``NAME:GROUP``, case-insensitive names); the
group ``all`` sums a count over the groups, and ``selected`` is ``selected_on_entry + recourse``.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.sweep.plan import parse_grid

#: Pooled metrics that are counts, so the group ``all`` may add them up.
COUNT_METRICS = ("entered", "selected_on_entry", "recourse", "censored", "gave_up", "selected")


@dataclass(frozen=True)
class ParamRange:
    """A numeric scenario field and the interval a study explores.

    Attributes:
        key: Dotted scenario key (``"selection.k"``).
        low: Lower bound.
        high: Upper bound (``> low``).
        integer: Values are rounded to integers before they enter the scenario.
        log: Explore on a log scale (optimisation only; ``low > 0``).
    """

    key: str
    low: float
    high: float
    integer: bool = False
    log: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or not self.low < self.high:
            raise ConfigError(
                f"--param {self.key}", f"needs finite bounds low < high, got {self.low}:{self.high}", "write key=lo:hi"
            )
        if self.log and self.low <= 0:
            raise ConfigError(f"--param {self.key}", "a log scale needs a positive lower bound", "give lo > 0")

    def value(self, x: float) -> int | float:
        """The scenario value for a draw ``x`` in ``[low, high]`` (rounded when ``integer``)."""
        if self.integer:
            return int(min(max(round(float(x)), self.low), self.high))
        return float(x)


@dataclass(frozen=True)
class Choice:
    """A scenario field and the values a policy search chooses among.

    Attributes:
        key: Dotted scenario key (``"selection"`` for a whole table).
        values: The candidate values (TOML values; tables allowed).
    """

    key: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class MetricSpec:
    """A pooled per-group metric of a run, as ``NAME:GROUP``.

    Attributes:
        name: Metric column of the run summary, lower case (``"dttr"``).
        group: A group name, or ``"all"`` (the sum over groups; counts only).
        option: The option that named it (``--metric``, ``--objective``, ``--constraint``), for messages.
    """

    name: str
    group: str
    option: str = field(default="--metric", compare=False)

    @property
    def label(self) -> str:
        """``NAME:GROUP`` as given in reports."""
        return f"{self.name}:{self.group}"

    def per_seed(self, rows: pd.DataFrame) -> pd.Series:
        """This metric in each run of one sweep point, indexed by seed index (NaN where undefined).

        Args:
            rows: The point's shard rows (:func:`~recoursesim.sweep.iter_point_results`).

        Returns:
            One value per seed index that has rows.
        """
        pooled = rows[rows["step"].isna()]
        names = pooled["metric"].str.lower()
        seeds = pd.Index(sorted(rows["seed_index"].unique()), name="seed_index")
        if self.name == "selected":
            parts = [pooled[names == part] for part in ("selected_on_entry", "recourse")]
            table = pd.concat(parts).groupby(["seed_index", "group"])["value"].sum(min_count=2).reset_index()
        else:
            table = pooled[names == self.name]
        if self.group != "all":
            table = table[table["group"] == self.group]
            return table.groupby("seed_index")["value"].first().reindex(seeds)
        return table.groupby("seed_index")["value"].sum(min_count=1).reindex(seeds)

    def check_against(self, rows: pd.DataFrame) -> None:
        """Raise a clear error if the metric or group does not occur in a run's rows.

        Raises:
            ConfigError: Unknown metric or group, with the ones available.
        """
        pooled = rows[rows["step"].isna()]
        names, groups = sorted(set(pooled["metric"].str.lower())), sorted(set(pooled["group"]))
        if self.name != "selected" and self.name not in names:
            raise ConfigError(self.option, f"{self.name!r} is not a pooled metric", f"use one of {', '.join(names)}")
        if self.group not in (*groups, "all"):
            raise ConfigError(self.option, f"{self.group!r} is not a group", f"use one of {', '.join(groups)} or all")


def check_metrics(scenario: Any, metrics: Sequence[MetricSpec]) -> None:
    """Refuse an unknown metric or group before any run: check each against a zero-step run of ``scenario``.

    A zero-step run gives the pooled per-group summary in milliseconds, so a misspelt metric or
    group is refused before any sweep.

    Raises:
        ConfigError: as :meth:`MetricSpec.check_against`.
    """
    from recoursesim.simulate import simulate

    rows = pooled_rows(simulate(scenario, scenario.seed, steps=0).summary)
    for metric in metrics:
        metric.check_against(rows)


def pooled_rows(summary: pd.DataFrame) -> pd.DataFrame:
    """A run's pooled per-group summary as the tidy pooled rows (one seed) :meth:`MetricSpec.per_seed` reads."""
    numeric = [c for c in summary.columns if c != "group" and pd.api.types.is_numeric_dtype(summary[c])]
    rows = summary.melt(id_vars=["group"], value_vars=numeric, var_name="metric", value_name="value")
    rows["group"] = rows["group"].astype(str)
    rows.insert(0, "step", pd.array([pd.NA] * len(rows), dtype="Int32"))
    rows.insert(0, "seed_index", 0)
    return rows


def parse_metric(text: str, field: str = "--metric") -> MetricSpec:
    """Parse ``NAME:GROUP`` (``dTTR:female``).

    Raises:
        ConfigError: No group, or a sum over groups of a metric that is not a count.
    """
    name, sep, group = text.strip().partition(":")
    name, group = name.strip().lower(), group.strip()
    if not sep or not name or not group:
        raise ConfigError(field, f"cannot read {text!r}", "write NAME:GROUP, for example dTTR:female or selected:all")
    if group == "all" and name not in COUNT_METRICS:
        raise ConfigError(
            field,
            f"{name} is not a count, so it cannot be summed over groups",
            f"name a group, or one of {', '.join(COUNT_METRICS)}",
        )
    return MetricSpec(name, group, field)


def parse_ranges(items: Sequence[str]) -> list[ParamRange]:
    """Parse ``key=lo:hi`` items (``:log`` appended for a log scale).

    Raises:
        ConfigError: Unreadable item, non-numeric bound, or a key given twice.
    """
    ranges: dict[str, ParamRange] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        parts = [p.strip() for p in text.split(":")]
        log = len(parts) == 3 and parts[2] == "log"
        if not sep or not key or len(parts) not in (2, 3) or (len(parts) == 3 and not log):
            raise ConfigError("--param", f"cannot read {item!r}", "write key=lo:hi, e.g. selection.k=10:200")
        if key in ranges:
            raise ConfigError(f"--param {key}", "is given twice", "give each key once")
        bounds = [_number(key, p) for p in parts[:2]]
        integer = all(isinstance(b, int) for b in bounds)
        ranges[key] = ParamRange(key, float(bounds[0]), float(bounds[1]), integer=integer, log=log)
    return list(ranges.values())


def parse_choices(items: Sequence[str]) -> list[Choice]:
    """Parse ``key=v1,v2`` items (TOML values, inline tables allowed).

    Raises:
        ConfigError: As :func:`~recoursesim.sweep.parse_grid`, or fewer than two values.
    """
    grid = parse_grid(items)
    choices = []
    for key, values in grid.items():
        if len(values) < 2:
            raise ConfigError(f"--choice {key}", "lists one value only", "give two or more, or set it in the scenario")
        choices.append(Choice(key, tuple(values)))
    return choices


def check_disjoint(ranges: Sequence[ParamRange], choices: Sequence[Choice] = ()) -> None:
    """Refuse a study that names no field, or names one field twice.

    Raises:
        ConfigError: naming the field.
    """
    keys = [r.key for r in ranges] + [c.key for c in choices]
    if not keys:
        raise ConfigError("--param", "no parameter to vary", "give at least one --param key=lo:hi")
    for key in keys:
        if keys.count(key) > 1:
            raise ConfigError(f"--param {key}", "is both a range and a choice", "give it once")


def _number(key: str, text: str) -> int | float:
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"--param {key}", f"bound {text!r} is not a number", "write key=lo:hi with numbers")
    return value
