"""Figures of policy studies (matplotlib, no global pyplot state): sensitivity indices, Pareto fronts."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from recoursesim.policy.space import COUNT_METRICS

if TYPE_CHECKING:  # the result draws itself with this module (SensitivityResult.write)
    from recoursesim.policy.sensitivity import SensitivityResult

_FIRST, _TOTAL, _FRONT, _OTHER = "#1f77b4", "#d62728", "#d62728", "#9a9a9a"
#: Units of the pooled metrics, for axis labels.
_UNITS = {"ttr": "steps", "dttr": "steps", "etr": "effort", "retr": "ratio", "censored_mean_wait": "steps"}


def _axis_label(label: str) -> str:
    """An objective label with its unit: ``"min |dttr:female| (steps)"``; counts are in applicants."""
    name = label.split(maxsplit=1)[-1].strip("|").split(":")[0]
    unit = _UNITS.get(name, "applicants" if name in COUNT_METRICS else "")
    return f"{label} ({unit})" if unit else label


def _note(noise_share: float, n_seeds: int) -> str:
    share = "n/a (needs two seeds)" if not math.isfinite(noise_share) else f"{noise_share:.1%}"
    return f"{n_seeds} seeds per sample; seed-noise share of the variance of the sample means: {share}"


def sensitivity_figure(result: SensitivityResult) -> Figure:
    """Sobol: first- and total-order indices per parameter with their intervals; Morris: μ* against σ."""
    table = result.indices.sort_values("rank", ascending=False)
    design = result.design
    n_rows = len(table)
    fig = Figure(figsize=(7.5, 1.6 + 0.55 * n_rows), layout="constrained")
    ax = fig.subplots()
    y = np.arange(n_rows)
    if design.method == "sobol":
        for offset, key, colour, name in ((0.18, "S1", _FIRST, "first order S1"), (-0.18, "ST", _TOTAL, "total ST")):
            value = table[key].to_numpy()
            err = np.vstack([value - table[f"{key}_low"].to_numpy(), table[f"{key}_high"].to_numpy() - value])
            ax.barh(y + offset, value, height=0.34, color=colour, alpha=0.8, label=name)
            ax.errorbar(value, y + offset, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlabel("Sobol index (share of the variance of the metric), 95% bootstrap CI")
        ax.set_yticks(y, table["parameter"])
        ax.legend(loc="lower right", fontsize=8)
        title = f"Sobol indices of {result.metric.label} (N={design.n}, {len(design.params)} samples)"
    else:
        value = table["mu_star"].to_numpy()
        err = np.vstack([value - table["mu_star_low"].to_numpy(), table["mu_star_high"].to_numpy() - value])
        ax.barh(y, value, height=0.5, color=_FIRST, alpha=0.8, label="μ* (mean |elementary effect|)")
        ax.errorbar(value, y, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3)
        ax.scatter(table["sigma"], y, color=_TOTAL, zorder=3, label="σ (spread: interaction / non-linearity)")
        ax.set_yticks(y, table["parameter"])
        ax.set_xlabel(f"elementary effect on {result.metric.label} per full range (metric units), 95% CI")
        ax.legend(loc="lower right", fontsize=8)
        title = f"Morris screening of {result.metric.label} ({design.n} trajectories)"
    ax.set_title(f"{title}\n{_note(result.noise_share, result.n_seeds)}", fontsize=9)
    return fig


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
        ax.errorbar(x[feasible], y[feasible], yerr=se[feasible], fmt="o", color=_FIRST, ms=4, label="trial (±1 SE)")
        if (~feasible).any():
            ax.plot(x[~feasible], y[~feasible], "x", color=_OTHER, label="infeasible trial")
        sign = -1.0 if label.startswith("max") else 1.0
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
        ax.errorbar(
            on[a], on[b], xerr=on[f"{a}_se"], yerr=on[f"{b}_se"], fmt="o-", color=_FRONT, ms=5, capsize=2,
            label="Pareto front (±1 SE)",
        )  # fmt: skip
        for (x, y), same in on.groupby([a, b], sort=False)["number"]:  # one label per point: trials that tie
            label = ", ".join(f"#{int(n)}" for n in sorted(same))
            ax.annotate(label, (x, y), fontsize=7, xytext=(4, 3), textcoords="offset points")
        ax.set_xlabel(_axis_label(a))
        ax.set_ylabel(_axis_label(b))
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=9)
    return fig
