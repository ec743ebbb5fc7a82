"""The report's "Shift and ground truth" section: drift of the population, model and cut-off, and recourse reliability.

It appears only when a run had the shift or ground-truth observers (docs/shift.md). Observers are
recognised by their metrics, so renamed observers are found too.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from recoursesim.report.aggregate import interval_columns, interval_texts, mean_ci
from recoursesim.report.document import ReportFigure, Section
from recoursesim.report.figures import COLOURS, ci_note, step_axis, trend_line

#: Everyone (rows whose group is NA) in the tables and figures of this section.
EVERYONE = "all agents"

#: Per-step panels: (metric, y label, panel title, whether per-group lines are drawn).
PANELS: tuple[tuple[str, str, str, bool], ...] = (
    ("mmd2", "MMD² to step 0", "Domain shift", True),
    ("disagreement", "share of reference sample", "Model shift: disagreement with step 0", False),
    ("threshold", "cut-off s_t (score)", "Selection boundary", True),
    ("gaming_rate", "share of recourse successes", "Gaming rate", True),
)

#: Metrics only the shift and ground-truth observers report (how their rows are recognised).
SIGNATURES = frozenset({"mmd2", "disagreement", "drift", "n_recourse_success"})

_COUNTS = ("n_recourse_success", "n_success_improved", "n_success_gamed", "n_success_already")


def shift_observers(observations: pd.DataFrame) -> list[str]:
    """Names of the observers in ``observations`` that are shift or ground-truth observers."""
    if observations.empty:
        return []
    mine = observations.loc[observations["metric"].isin(SIGNATURES), "observer"]
    return sorted(set(mine.astype(str)))


def shift_section(observations: pd.DataFrame, groups: list[str], n_seeds: int) -> Section | None:
    """Build the section from stacked observations (``seed, step, observer, group, metric, value``), or ``None``."""
    if observations.empty:
        return None
    frame = observations.copy()
    frame["group"] = frame["group"].astype(object).where(frame["group"].notna(), EVERYONE).astype(str)
    frame["value"] = frame["value"].astype(float)
    metrics = set(frame["metric"].astype(str))
    panels = [panel for panel in PANELS if panel[0] in metrics]
    has_truth = set(_COUNTS) <= metrics
    if not panels and not has_truth:
        return None
    section = Section(
        "shift",
        "Shift and ground truth",
        [
            "How the waiting population (MMD² between the step-0 and the current population), the decision model "
            "(disagreement with the step-0 model on a fixed reference sample at the step-0 cut-off) and the "
            "selection cut-off moved while agents acted on recourse; definitions in docs/shift.md."
        ],
    )
    if has_truth:
        section.paragraphs.append(
            "Recourse reliability: of the agents selected after acting on recourse (recourse successes), the share "
            "who became truly qualified (improved), who were selected without being truly qualified (gamed), and who "
            "were qualified on entry already, pooled over each run's steps; mean and 95% CI across seeds. Precision "
            "is the share of all selected agents who are truly qualified. True qualification comes from the "
            "scenario's outcome model and causal features, which are assumptions."
        )
        section.tables.append(reliability_table(frame, [*groups, EVERYONE]))
    if panels:
        section.figures.append(
            ReportFigure(
                "shift_over_time",
                shift_figure(frame, [*groups, EVERYONE], panels, n_seeds),
                "domain shift, model shift, selection cut-off and gaming rate over time",
            )
        )
    return section


def reliability_table(frame: pd.DataFrame, groups: list[str]) -> pd.DataFrame:
    """Per group: recourse successes per run and the shares improved / gamed / already qualified, with CIs."""
    wanted = [*_COUNTS, "n_selected", "n_selected_qualified"]
    counts = frame.loc[frame["metric"].isin(wanted)]
    totals = counts.pivot_table(index=["seed", "group"], columns="metric", values="value", aggfunc="sum")
    totals = totals.reindex(columns=wanted, fill_value=0.0).reset_index()
    success = totals["n_recourse_success"].where(totals["n_recourse_success"] > 0)
    totals["improved"] = totals["n_success_improved"] / success
    totals["gamed"] = totals["n_success_gamed"] / success
    totals["already"] = totals["n_success_already"] / success
    totals["precision"] = totals["n_selected_qualified"] / totals["n_selected"].where(totals["n_selected"] > 0)
    columns = {
        "n_recourse_success": "recourse successes per run",
        "improved": "improved",
        "gamed": "gamed",
        "already": "already qualified",
        "precision": "precision of all selections",
    }
    summary = mean_ci(totals, ["group"], list(columns))
    order = {group: i for i, group in enumerate(groups)}
    summary = summary.sort_values("group", key=lambda s: s.map(order).fillna(len(order))).reset_index(drop=True)
    out = interval_columns(summary, columns)
    out[columns["n_recourse_success"]] = interval_texts(summary, "n_recourse_success", digits=1)
    return out


def shift_figure(
    frame: pd.DataFrame, groups: list[str], panels: list[tuple[str, str, str, bool]], n_seeds: int
) -> Figure:
    """One panel per available shift metric: mean across seeds per group, with a 95% CI band."""
    fig = Figure(figsize=(5 * min(len(panels), 2), 3.6 * ((len(panels) + 1) // 2)), layout="constrained")
    axes = np.atleast_1d(fig.subplots((len(panels) + 1) // 2, min(len(panels), 2))).ravel()
    for ax, (metric, ylabel, title, per_group) in zip(axes, panels, strict=False):
        mine = frame.loc[frame["metric"] == metric]
        if not per_group:
            mine = mine.loc[mine["group"] == EVERYONE]
        summary = mean_ci(mine, ["group", "step"], ["value"])
        for i, group in enumerate(groups):
            colour, style = ("black", "--") if group == EVERYONE else (COLOURS[i % len(COLOURS)], "-")
            trend_line(ax, summary.loc[summary["group"] == group], "value", colour, style, group)
        ax.set_title(title, fontsize=10)
        step_axis(ax)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    title = f"What recourse did to the population and the model ({ci_note(n_seeds)})"
    fig.suptitle("\n".join(textwrap.wrap(title, int(fig.get_figwidth() * 10))), fontsize=11)
    return fig
