"""A market run's measures as a sweep keeps them: long rows named ``<lender>:<measure>``, and back.

A sweep's shard holds ``(step, group, metric, value)`` rows (:mod:`recoursesim.sweep.worker`). For
a market run it also holds, per step, every column of the run's market table
(:func:`~recoursesim.metrics.market_table.market_table`) as the metric ``<lender>:<column>``
(``market:systemic_exclusion``, ``A:selection_rate``; groups include ``all``), and, pooled over
the run (``step`` null), the columns of :func:`~recoursesim.metrics.market_table.market_summary`.
The summary of a sweep therefore carries the market measures per grid point, as mean and interval
across seeds, and a sweep's report rebuilds each run's market table from them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from recoursesim.metrics.market import ALL
from recoursesim.metrics.market_ledger import MARKET
from recoursesim.metrics.market_table import COUNTS, RATIOS, RECOURSE, market_summary

if TYPE_CHECKING:
    from recoursesim.simulate import RunResult

#: What separates the lender from the measure in a metric name.
SEPARATOR = ":"
#: The market table's columns a sweep keeps.
KEPT = (*COUNTS, *RATIOS, *RECOURSE)


def is_market_metric(metric: pd.Series) -> np.ndarray:
    """Which metric names are a market's (``<lender>:<measure>``)."""
    return metric.astype(str).str.contains(SEPARATOR, regex=False).to_numpy()


def market_rows(result: RunResult, *, per_step: bool = True) -> pd.DataFrame | None:
    """The run's market measures as long rows (``step`` -1 on the pooled rows), or ``None`` for a single lender.

    Args:
        result: A finished run.
        per_step: Keep the per-step rows as well as the pooled ones.
    """
    table = result.market
    if table is None:
        return None
    pooled = market_summary(
        result.ledger, table, effort=result.scenario.effort_measure, reference_group=result.reference_group
    )
    parts = [_long(pooled.assign(step=-1))]
    if per_step:
        parts.insert(0, _long(table))
    return pd.concat(parts, ignore_index=True)


def _long(frame: pd.DataFrame) -> pd.DataFrame:
    columns = [c for c in KEPT if c in frame.columns]
    values = frame[columns].to_numpy(dtype=float)
    lender = frame["lender"].astype(str).to_numpy(dtype=object)
    names = np.char.add(np.char.add(lender.astype(str)[:, None], SEPARATOR), np.array(columns)[None, :])
    width = values.shape[1]
    return pd.DataFrame(
        {
            "step": np.repeat(frame["step"].to_numpy(dtype=np.int64), width),
            "group": np.repeat(frame["group"].astype(str).to_numpy(dtype=object), width),
            "metric": names.ravel().astype(object),
            "value": values.ravel(),
        }
    )


def market_table_from_rows(rows: pd.DataFrame, lenders: list[str] | None = None) -> pd.DataFrame:
    """One run's per-step market table, rebuilt from its shard rows (``step``, ``group``, ``metric``, ``value``).

    Args:
        rows: The run's shard rows.
        lenders: The lenders in declaration order (default: the order of the rows); the market comes last.

    Returns:
        One row per (step, lender, group) (groups by name, ``all`` last) with a column per kept
        measure; empty when the rows hold no per-step market measures.
    """
    mine = rows.loc[is_market_metric(rows["metric"]) & rows["step"].notna().to_numpy()]
    if mine.empty:
        return pd.DataFrame()
    split = mine["metric"].astype(str).str.rsplit(SEPARATOR, n=1)
    frame = mine.assign(lender=split.str[0], measure=split.str[1])
    table = frame.pivot_table(index=["step", "lender", "group"], columns="measure", values="value", dropna=False)
    table = table.reset_index().rename_axis(columns=None)
    table["step"] = table["step"].astype("int64")
    found = [name for name in dict.fromkeys(frame["lender"]) if name != MARKET]
    order = [name for name in (lenders or found) if name in found] + [n for n in found if n not in (lenders or found)]
    position = {name: i for i, name in enumerate([*order, MARKET])}
    table = table.assign(_lender=table["lender"].map(position), _all=table["group"] == ALL)
    table = table.sort_values(["step", "_lender", "_all", "group"], kind="stable")
    return table.drop(columns=["_lender", "_all"]).reset_index(drop=True)
