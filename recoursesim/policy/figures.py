"""Figures of policy studies (matplotlib, no global pyplot state): sensitivity, Pareto fronts, PRIM, robustness."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator

from recoursesim.policy.space import COUNT_METRICS

_FIRST, _TOTAL, _FRONT, _OTHER = "#1f77b4", "#d62728", "#d62728", "#9a9a9a"
#: Units of the pooled metrics, for axis labels.
_UNITS = {"ttr": "steps", "dttr": "steps", "etr": "effort", "retr": "ratio", "censored_mean_wait": "steps"}


def _axis_label(label: str) -> str:
    """An objective label with its unit: ``"min |dttr:female| (steps)"``; counts are in applicants.

    A regret is in the outcome's unit; a satisficing objective is a share of scenarios.
    """
    if label.startswith("satisficing "):
        return f"{label} (share of scenarios)"
    name = label.removeprefix("regret ").split(maxsplit=1)[-1].strip("|").split(":")[0]
    unit = _UNITS.get(name, "applicants" if name in COUNT_METRICS else "")
    return f"{label} ({unit})" if unit else label


def _note(noise_share: float, n_seeds: int) -> str:
    share = f"{noise_share:.1%}" if math.isfinite(noise_share) else "n/a (needs two seeds)"
    seeds = f"{n_seeds} seed{'s' * (n_seeds != 1)} per sample"
    return f"{seeds}; seed-noise share of the variance of the sample means: {share}"


def _title(fig: Figure, lines: Sequence[str], *, fontsize: float = 9, margin: float = 0.96) -> Text:
    """Title ``fig`` with ``lines``, each wrapped between words so the title fits the figure's width.

    The title is the figure's (centred on it, room kept by the constrained layout), measured as
    drawn: the lines are wrapped ever narrower until the rendered title spans at most ``margin`` of
    the figure's width.
    """
    renderer = FigureCanvasAgg(fig).get_renderer()
    text = fig.suptitle("\n".join(lines), fontsize=fontsize)
    width = max(len(line) for line in lines)
    while text.get_window_extent(renderer).width > margin * fig.bbox.width and width > 20:
        width -= 4
        text.set_text("\n".join(textwrap.fill(line, width, break_on_hyphens=False) for line in lines))
    return text


class PrimBox(Protocol):
    """What the PRIM figures read of a box: its number, coverage, density, limits and peeling trajectory."""

    @property
    def number(self) -> int: ...  # noqa: D102
    @property
    def coverage(self) -> float: ...  # noqa: D102
    @property
    def density(self) -> float: ...  # noqa: D102
    @property
    def limits(self) -> pd.DataFrame: ...  # noqa: D102
    @property
    def trajectory(self) -> pd.DataFrame: ...  # noqa: D102


def sensitivity_figure(
    indices: pd.DataFrame, *, method: str, n: int, samples: int, metric: str, noise_share: float, n_seeds: int
) -> Figure:
    """Sobol: first- and total-order indices per parameter with their intervals; Morris: μ* against σ.

    Args:
        indices: One row per parameter: ``rank`` and the method's indices with their intervals.
        method: ``"sobol"`` or ``"morris"``.
        n: The design's base sample size (Sobol) or trajectories (Morris).
        samples: Parameter samples the design ran.
        metric: The metric's label.
        noise_share: Share of the variance of the sample means that is seed noise.
        n_seeds: Seeds per sample.
    """
    table = indices.sort_values("rank", ascending=False)
    n_rows = len(table)
    fig = Figure(figsize=(7.5, 1.6 + 0.55 * n_rows), layout="constrained")
    ax = fig.subplots()
    y = np.arange(n_rows)
    if method == "sobol":
        for offset, key, colour, name in ((0.18, "S1", _FIRST, "first order S1"), (-0.18, "ST", _TOTAL, "total ST")):
            value = table[key].to_numpy()
            err = np.vstack([value - table[f"{key}_low"].to_numpy(), table[f"{key}_high"].to_numpy() - value])
            ax.barh(y + offset, value, height=0.34, color=colour, alpha=0.8, label=name)
            ax.errorbar(value, y + offset, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlabel("Sobol index (share of the variance of the metric), 95% bootstrap CI")
        title = f"Sobol indices of {metric} (N={n}, {samples} samples)"
    else:
        value = table["mu_star"].to_numpy()
        err = np.vstack([value - table["mu_star_low"].to_numpy(), table["mu_star_high"].to_numpy() - value])
        ax.barh(y, value, height=0.5, color=_FIRST, alpha=0.8, label="μ* (mean |elementary effect|)")
        ax.errorbar(value, y, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3)
        ax.scatter(table["sigma"], y, color=_TOTAL, zorder=3, label="σ (spread: interaction / non-linearity)")
        ax.set_xlabel(f"elementary effect on {metric} per full range (metric units), 95% CI")
        title = f"Morris screening of {metric} ({n} trajectories)"
    ax.set_yticks(y, table["parameter"])
    ax.legend(loc="lower right", fontsize=8)
    _title(fig, [title, _note(noise_share, n_seeds)])
    return fig


def _error_bars(values: Any, se: Any, label: str) -> np.ndarray:
    """±1 SE as (below, above) bar lengths, cut at the bounds of the objective's range.

    An absolute value (``|...|``), a regret and a satisficing share are never below 0, and a share
    never above 1: a bar that would cross a bound stops at it.
    """
    value, error = np.asarray(values, dtype=float), np.asarray(se, dtype=float)
    below, above = error.copy(), error.copy()
    if "|" in label or label.startswith(("regret", "satisficing")):
        below = np.minimum(error, np.maximum(value, 0.0))
    if label.startswith("satisficing"):
        above = np.minimum(error, np.maximum(1.0 - value, 0.0))
    return np.vstack([below, above])


def pareto_figure(trials: pd.DataFrame, labels: list[str], *, title: str) -> Figure:
    """The first two objectives of every trial, the Pareto front highlighted with ±1 SE bars.

    With one objective: the objective per trial (±1 SE) and the best value so far.

    Args:
        trials: Complete trials: ``number``, ``pareto`` (bool), ``feasible`` (bool), and
            ``<label>`` / ``<label>_se`` per objective label.
        labels: Objective labels, in order (each with its direction, e.g. ``"min |dttr:female|"``).
        title: First line of the title.
    """
    fig = Figure(figsize=(7, 4.8), layout="constrained")
    ax = fig.subplots()
    done = trials.sort_values("number")
    feasible = done["feasible"].to_numpy(dtype=bool)
    if len(labels) == 1:
        label = labels[0]
        x, y, se = done["number"].to_numpy(), done[label].to_numpy(float), done[f"{label}_se"].to_numpy(float)
        what = "trial (±1 SE)" if np.isfinite(se).any() else "trial"
        bars = _error_bars(y[feasible], se[feasible], label)
        ax.errorbar(x[feasible], y[feasible], yerr=bars, fmt="o", color=_FIRST, ms=4, label=what)
        if (~feasible).any():
            ax.plot(x[~feasible], y[~feasible], "x", color=_OTHER, label="infeasible trial")
        sign = -1.0 if label.startswith(("max", "satisficing")) else 1.0
        best = np.where(feasible, sign * y, np.inf)
        ax.step(x, sign * np.minimum.accumulate(best), where="post", color=_TOTAL, label="best so far")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("trial number")
        ax.set_ylabel(_axis_label(label))
    else:
        a, b = labels[0], labels[1]
        front = done["pareto"].to_numpy(dtype=bool)
        ax.scatter(done.loc[feasible & ~front, a], done.loc[feasible & ~front, b], color=_OTHER, s=16, label="trial")
        if (~feasible).any():
            ax.scatter(
                done.loc[~feasible, a], done.loc[~feasible, b], marker="x", color=_OTHER, s=16, label="infeasible"
            )
        on = done.loc[front].sort_values(a)
        bars = np.isfinite(on[[f"{a}_se", f"{b}_se"]].to_numpy(float)).any()
        ax.errorbar(
            on[a], on[b], xerr=_error_bars(on[a], on[f"{a}_se"], a), yerr=_error_bars(on[b], on[f"{b}_se"], b),
            fmt="o-", color=_FRONT, ms=5, capsize=2,
            label="Pareto front (±1 SE)" if bars else "Pareto front",
        )  # fmt: skip
        for (x, y), same in on.groupby([a, b], sort=False)["number"]:  # one label per point: trials that tie
            label = ", ".join(f"#{int(n)}" for n in sorted(same))
            ax.annotate(label, (x, y), fontsize=7, xytext=(4, 3), textcoords="offset points")
        ax.set_xlabel(_axis_label(a))
        ax.set_ylabel(_axis_label(b))
        if a.startswith("satisficing "):  # a share: its whole range
            ax.set_xlim(-0.03, 1.03)
    if labels[-1 if len(labels) == 1 else 1].startswith("satisficing "):
        ax.set_ylim(-0.03, 1.03)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    _title(fig, [title])
    return fig


def discovery_tradeoff_figure(boxes: Sequence[PrimBox], *, threshold: float, condition: str) -> Figure:
    """Coverage against density along each box's peeling trajectory; the chosen step of each box starred.

    Args:
        boxes: The boxes PRIM found.
        threshold: The density threshold of the search.
        condition: The label of the condition that marks a run of interest.
    """
    fig = Figure(figsize=(6.5, 4.8), layout="constrained")
    ax = fig.subplots()
    for box in boxes:
        path = box.trajectory
        points = ax.scatter(path["coverage"], path["density"], c=path["res_dim"], cmap="viridis", s=14, zorder=2)
        ax.plot(path["coverage"], path["density"], color=_OTHER, linewidth=0.8, zorder=1)
        ax.scatter([box.coverage], [box.density], marker="*", s=160, color=_TOTAL, zorder=3)
        ax.annotate(
            f"box {box.number}", (box.coverage, box.density), fontsize=8, xytext=(6, -10), textcoords="offset points"
        )
    if boxes:
        bar = fig.colorbar(points, ax=ax)
        bar.set_label("restricted parameters")
        bar.locator = MaxNLocator(integer=True)
        bar.update_ticks()
    ax.axhline(threshold, color=_TOTAL, linewidth=0.8, linestyle="--", label=f"density threshold {threshold:g}")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("coverage (share of the runs of interest inside the box)")
    ax.set_ylabel("density (share of the box's runs of interest)")
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    _title(fig, [f"PRIM peeling trajectories: runs with {condition}"])
    return fig


def discovery_boxes_figure(
    boxes: Sequence[PrimBox], *, ranges: Mapping[str, tuple[float, float]], condition: str
) -> Figure:
    """Each box's limits on every restricted numeric parameter, within the range the runs span.

    A box that restricts no parameter (PRIM's best box is all the runs: no subspace stands out)
    gets one row that says so, over the whole range; no box at all is said in words too.

    Args:
        boxes: The boxes PRIM found.
        ranges: Each numeric parameter's ``(low, high)`` over the runs.
        condition: The label of the condition that marks a run of interest.
    """
    rows = [(box, row) for box in boxes for row in [*box.limits.itertuples()] or [None]]
    fig = Figure(figsize=(7, 1.4 + 0.6 * max(len(rows), 1)), layout="constrained")
    ax = fig.subplots()
    labels = []
    for y, (box, row) in enumerate(rows):
        if row is None:
            ax.barh(y, 1.0, left=0.0, height=0.5, color=_OTHER, alpha=0.35)
            words = (
                f"restricts no parameter: no subspace stands out\n(density {box.density:.2f} in all the runs searched)"
            )
            ax.text(0.5, y, words, ha="center", va="center", fontsize=8)
            labels.append(f"box {box.number}: every parameter\nover its whole range")
            continue
        if row.values:
            labels.append(f"box {box.number}: {row.parameter}\nin {{{row.values}}}")
            continue
        low, high = ranges[row.parameter]
        span = high - low
        ax.barh(y, (row.high - row.low) / span, left=(row.low - low) / span, height=0.5, color=_FIRST, alpha=0.8)
        labels.append(f"box {box.number}: {row.parameter}\n{row.low:.3g} … {row.high:.3g} (of {low:.3g} … {high:.3g})")
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    if not rows:
        ax.text(0.5, 0.5, "no box reaches the density threshold", ha="center", va="center", transform=ax.transAxes)
        ax.set_ylim(-0.5, 0.5)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("position in the parameter's range over the runs (0 = min, 1 = max)")
    stats = "; ".join(f"box {b.number}: coverage {b.coverage:.2f}, density {b.density:.2f}" for b in boxes)
    _title(fig, [f"PRIM boxes for {condition}", stats or "no box found"])
    return fig


def robustness_figure(table: pd.DataFrame, *, outcome: str, threshold: float, maximise: bool = False) -> Figure:
    """Regret (left) and satisficing share (right) per policy, as :func:`~recoursesim.policy.robust.robustness` gives.

    Args:
        table: The robustness table (index: policies; ``regret`` and ``satisficing`` columns).
        outcome: The outcome's label, with its unit where it has one (axis labels and title).
        threshold: The satisficing threshold.
        maximise: Whether larger outcomes are better (for the threshold's sign in the title).
    """
    fig = Figure(figsize=(8, 1.6 + 0.45 * len(table)), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(table))
    left.barh(y, table["regret"], height=0.5, color=_TOTAL, alpha=0.8)
    left.set_yticks(y, [str(p) for p in table.index], fontsize=8)
    left.invert_yaxis()
    left.set_xlabel(f"regret of {_axis_label(outcome)}\n(from the best policy in each scenario; less is better)")
    right.barh(y, table["satisficing"], height=0.5, color=_FIRST, alpha=0.8)
    right.set_xlim(0, 1)
    right.set_xlabel("share of scenarios meeting the threshold\n(more is better)")
    for ax in (left, right):
        ax.grid(axis="x", alpha=0.3)
    sign = "≥" if maximise else "≤"
    _title(fig, [f"Robustness of {len(table)} policies: {outcome} {sign} {threshold:g}"])
    return fig
