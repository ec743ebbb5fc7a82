"""The report's market sections: each lender's selections and recourse, and the market's exclusion measures.

They appear only for a market run (its run directories hold ``market.parquet``, the table of
:func:`~recoursesim.metrics.market_table.market_table`). Per run, whole-run values are pooled
from the table's counts (a share is the sum of its numerator over the sum of its denominator;
ETR and TTR are weighted by the agents who reached recourse at each step, which gives the mean
over every agent's recourse); across seeds, the report shows the mean and a 95% interval.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from recoursesim.metrics.market import ALL
from recoursesim.metrics.market_ledger import MARKET
from recoursesim.metrics.market_table import COUNTS, with_ratios
from recoursesim.report.aggregate import interval_columns, mean_ci
from recoursesim.report.document import ReportFigure, Section
from recoursesim.report.figures import COLOURS, ci_note, step_axis, trend_line
from recoursesim.report.results import Results

#: Shares in [0, 1] and the (non-negative) homogenization ratio: their interval across seeds is the
#: percentile bootstrap's, which stays inside the range.
BOOTSTRAPPED = ("selection_rate", "recourse_rate", "acted_rate", "systemic_exclusion", "portability", "homogenization")
#: The market panels: (column, y label, panel title).
MARKET_PANELS = (
    ("systemic_exclusion", "share of applicants", "Systemic exclusion"),
    ("homogenization", "observed / independent", "Homogenization"),
    ("portability", "share of (advice, other lender)", "Portability of advice"),
)


def stacked_market(results: Results) -> pd.DataFrame:
    """Every run's market table with a ``seed`` column (empty when no run is a market run)."""
    frames = [run.market.assign(seed=run.seed_label) for run in results.runs if not run.market.empty]
    if not frames:
        return pd.DataFrame()
    frame = pd.concat(frames, ignore_index=True)
    frame["lender"] = frame["lender"].astype(str)
    frame["group"] = frame["group"].astype(str)
    return frame


def pooled_per_run(market: pd.DataFrame) -> pd.DataFrame:
    """Per (seed, lender, group): the counts summed over steps, the shares recomputed, ETR/TTR recourse-weighted."""
    frame = market.assign(
        etr_sum=market["etr"].fillna(0) * market["n_recourse"], ttr_sum=market["ttr"].fillna(0) * market["n_recourse"]
    )
    summed = ["n_recourse", "etr_sum", "ttr_sum", *COUNTS]
    pooled = with_ratios(frame.groupby(["seed", "lender", "group"], sort=False)[summed].sum().reset_index())
    recourse = pooled["n_recourse"].where(pooled["n_recourse"] > 0)
    return pooled.assign(etr=pooled["etr_sum"] / recourse, ttr=pooled["ttr_sum"] / recourse)


def over_seeds(frame: pd.DataFrame, by: list[str], columns: list[str]) -> pd.DataFrame:
    """Mean and 95% interval across rows (seeds) per ``by`` key: bootstrap for :data:`BOOTSTRAPPED`, else t."""
    shares = [c for c in columns if c in BOOTSTRAPPED]
    others = [c for c in columns if c not in BOOTSTRAPPED]
    out = mean_ci(frame, by, shares, method="bootstrap") if shares else frame[by].drop_duplicates()
    if others:
        out = out.merge(mean_ci(frame, by, others), on=by, how="left")
    return out


def _intervals(
    frame: pd.DataFrame, keys: list[str], labels: dict[str, str], order: dict[str, list[str]]
) -> pd.DataFrame:
    for key, ordered in order.items():
        frame = frame.assign(**{f"_{key}": frame[key].map({v: i for i, v in enumerate(ordered)})})
    frame = frame.sort_values([f"_{key}" for key in order]).reset_index(drop=True)
    return interval_columns(frame, labels, keys=keys)


def lenders_section(results: Results, groups: list[str], n_seeds: int) -> Section | None:
    """Per lender and group: whole-run selection, advice and ETR/TTR, and selection rate and ETR over steps."""
    market = stacked_market(results)
    if market.empty:
        return None
    lenders = [name for name in dict.fromkeys(market["lender"]) if name != MARKET]
    columns = ["selection_rate", "recourse_rate", "acted_rate", "portability", "etr", "ttr"]
    pooled = over_seeds(pooled_per_run(market.loc[market["group"] != ALL]), ["lender", "group"], columns)
    labels = {
        "selection_rate": "selection rate",
        "recourse_rate": "refused with advice",
        "acted_rate": "acted on its advice",
        "portability": "advice accepted elsewhere",
        "etr": "ETR",
        "ttr": "TTR (steps)",
    }
    table = _intervals(pooled, ["lender", "group"], labels, {"lender": [*lenders, MARKET], "group": groups})
    steps = over_seeds(market.loc[market["group"] != ALL], ["lender", "group", "step"], ["selection_rate", "etr"])
    return Section(
        "lenders",
        "Lenders",
        [
            f"This run is a market of {len(lenders)} lenders ({', '.join(lenders)}). Per lender and group over the "
            "whole run: the share of its applications it accepted, the share of those it refused that got a valid "
            "recommendation from it, the share of those it refused that acted on its advice, the share of its advice "
            "that the other lenders accepted one step later, and ETR/TTR counted as if success were being selected "
            "by that lender (the market row: selected by any lender applied to). Mean and 95% CI across seeds; "
            "definitions in docs/markets.md."
        ],
        [table],
        [
            ReportFigure(
                "lenders_over_time",
                lenders_figure(steps, [*lenders, MARKET], groups, n_seeds),
                "selection rate and ETR_t per lender and group over time",
            )
        ],
    )


def market_section(results: Results, groups: list[str], reference: str, n_seeds: int) -> Section | None:
    """Systemic exclusion, homogenization and portability per group: whole run, and over steps."""
    market = stacked_market(results)
    if market.empty:
        return None
    mine = market.loc[market["lender"] == MARKET]
    columns = ["systemic_exclusion", "homogenization", "portability", "dttr"]
    pooled = pooled_per_run(mine)
    disparity = _run_dttr(pooled, reference)
    summary = over_seeds(pooled.merge(disparity, on=["seed", "group"], how="left"), ["group"], columns)
    labels = {
        "systemic_exclusion": "systemic exclusion",
        "homogenization": "homogenization",
        "portability": "portability",
        "dttr": f"dTTR vs {reference}",
    }
    table = _intervals(summary, ["group"], labels, {"group": [*groups, ALL]})
    steps = over_seeds(mine, ["group", "step"], [c for c, _, _ in MARKET_PANELS])
    return Section(
        "market",
        "The market",
        [
            "Systemic exclusion: the share of applicants refused by every lender they applied to. Homogenization: "
            "that exclusion over the exclusion lenders deciding independently at their own rejection rates would "
            "give (1: as independent as chance; above 1: the same people are refused everywhere). Portability: the "
            "share of (recommendation, other lender applied to one step later) pairs in which that lender accepted. "
            "Whole-run values pool the counts over steps; dTTR is the market's (success = selected by any lender) "
            f"against {reference}. 'all' pools the groups. Mean and 95% CI across seeds."
        ],
        [table],
        [
            ReportFigure(
                "market_over_time",
                market_figure(steps, [*groups, ALL], n_seeds),
                "systemic exclusion, homogenization and portability per group over time",
            )
        ],
    )


def _run_dttr(pooled: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Per (seed, group): the market's pooled TTR minus the reference group's."""
    ttr = pooled.loc[pooled["group"] != ALL, ["seed", "group", "ttr"]]
    ref = ttr.loc[ttr["group"] == reference, ["seed", "ttr"]].rename(columns={"ttr": "ref"})
    out = ttr.merge(ref, on="seed", how="left")
    return out.assign(dttr=out["ttr"] - out["ref"])[["seed", "group", "dttr"]]


def lenders_figure(steps: pd.DataFrame, lenders: list[str], groups: list[str], n_seeds: int) -> Figure:
    """One column per group; top row selection rate, bottom row ETR_t; one line per lender, the market dashed."""
    fig = Figure(figsize=(max(4.2 * len(groups), 6), 6.4), layout="constrained")
    axes = np.atleast_2d(fig.subplots(2, len(groups), squeeze=False))
    for column, group in enumerate(groups):
        for i, lender in enumerate(lenders):
            mine = steps.loc[(steps["group"] == group) & (steps["lender"] == lender)]
            colour, style = ("black", "--") if lender == MARKET else (COLOURS[i % len(COLOURS)], "-")
            trend_line(axes[0, column], mine, "selection_rate", colour, style, lender)
            trend_line(axes[1, column], mine, "etr", colour, style, lender)
        axes[0, column].set_title(f"group {group}", fontsize=10)
        axes[0, column].set_ylim(-0.02, 1.02)
        axes[0, column].set_ylabel("selection rate (share)")
        axes[1, column].set_ylabel("ETR_t (effort)")
        for ax in axes[:, column]:
            step_axis(ax)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
    title = f"Each lender's selection rate and ETR_t ({ci_note(n_seeds)})"
    fig.suptitle("\n".join(textwrap.wrap(title, int(fig.get_figwidth() * 10))), fontsize=11)
    return fig


def market_figure(steps: pd.DataFrame, groups: list[str], n_seeds: int) -> Figure:
    """Systemic exclusion, homogenization and portability over time, one line per group (all groups dashed)."""
    fig = Figure(figsize=(13, 3.8), layout="constrained")
    axes = fig.subplots(1, len(MARKET_PANELS))
    for ax, (column, ylabel, title) in zip(axes, MARKET_PANELS, strict=True):
        for i, group in enumerate(groups):
            colour, style = ("black", "--") if group == ALL else (COLOURS[i % len(COLOURS)], "-")
            trend_line(ax, steps.loc[steps["group"] == group], column, colour, style, group)
        if column == "homogenization":
            ax.axhline(1.0, color="grey", lw=0.8, ls=":")
            ax.set_ylim(bottom=0)
        else:
            ax.set_ylim(-0.02, 1.02)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(ylabel)
        step_axis(ax)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(f"Who the market shuts out, and whether advice travels ({ci_note(n_seeds)})", fontsize=11)
    return fig
