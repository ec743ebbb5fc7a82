"""Figures of a calibration (matplotlib, no global pyplot state): pairs plot, marginals, predictive check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from recoursesim.calibration.panel import PANEL_STATISTICS
from recoursesim.policy.space import ParamRange
from recoursesim.report.figures import colour_of, step_axis

_POSTERIOR, _TRUTH, _MEDIAN = "#1f77b4", "#d62728", "black"
#: Axis label of each statistic, with its unit.
_UNITS = {
    "applicants": "applicants (agents)",
    "approvals": "approvals (agents)",
    "reapplicants": "re-applicants (agents)",
    "mean_score": "mean score",
}


def pairs_figure(
    sample: pd.DataFrame, ranges: Sequence[ParamRange], truth: Mapping[str, float] | None = None
) -> Figure:
    """Weighted histograms on the diagonal, weighted 2-D histograms below it, over the prior ranges.

    Args:
        sample: Particles with a ``weight`` column.
        ranges: The free parameters (their bounds are the axes' limits).
        truth: Known parameter values to mark (a recovery experiment), or ``None``.
    """
    n = len(ranges)
    fig = Figure(figsize=(2.4 * n + 1.2, 2.4 * n + 0.6), layout="constrained")
    axes = np.atleast_2d(fig.subplots(n, n, squeeze=False))
    weights = sample["weight"].to_numpy(dtype=float)
    for i, row in enumerate(ranges):
        for j, column in enumerate(ranges):
            ax = axes[i, j]
            if j > i:
                ax.set_visible(False)
                continue
            x = sample[column.key].to_numpy(dtype=float)
            if i == j:
                ax.hist(x, bins=20, range=(column.low, column.high), weights=weights, color=_POSTERIOR, alpha=0.8)
                ax.set_yticks([])
                if truth is not None:
                    ax.axvline(truth[column.key], color=_TRUTH, linewidth=1.5)
            else:
                y = sample[row.key].to_numpy(dtype=float)
                bins = [np.linspace(column.low, column.high, 25), np.linspace(row.low, row.high, 25)]
                ax.hist2d(x, y, bins=bins, weights=weights, cmap="Blues")
                if truth is not None:
                    ax.plot(truth[column.key], truth[row.key], marker="x", color=_TRUTH, markersize=9, mew=2)
                ax.set_ylim(row.low, row.high)
                if j == 0:
                    ax.set_ylabel(row.key, fontsize=8)
            ax.set_xlim(column.low, column.high)
            if i == n - 1:
                ax.set_xlabel(column.key, fontsize=8)
            ax.tick_params(labelsize=7)
    title = "Posterior pairs (weighted particles)" + ("; red: true values" if truth is not None else "")
    fig.suptitle(title, fontsize=10)
    return fig


def marginals_figure(sample: pd.DataFrame, table: pd.DataFrame, ranges: Sequence[ParamRange]) -> Figure:
    """Each parameter's weighted posterior histogram over its prior range, its median and 90 % interval."""
    n = len(ranges)
    fig = Figure(figsize=(4.2 * n, 3.0), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, n, squeeze=False)[0])
    weights = sample["weight"].to_numpy(dtype=float)
    for ax, r in zip(axes, ranges, strict=True):
        row = table[table["parameter"] == r.key].iloc[0]
        ax.hist(
            sample[r.key], bins=20, range=(r.low, r.high), weights=weights, density=True, color=_POSTERIOR, alpha=0.7
        )
        ax.axvspan(row["low"], row["high"], color=_POSTERIOR, alpha=0.12, label="90% credible interval")
        ax.axvline(row["median"], color=_MEDIAN, linewidth=1.5, label=f"median {row['median']:.3g}")
        ax.axhline(1 / (r.high - r.low), color="#9a9a9a", linestyle="--", linewidth=1, label="prior (uniform)")
        ax.set_xlim(r.low, r.high)
        ax.set_xlabel(r.key)
        ax.set_ylabel("posterior density")
        ax.set_title(f"{r.key}: [{row['low']:.3g}, {row['high']:.3g}]", fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    return fig


def predictive_figure(observed: pd.DataFrame, bands: pd.DataFrame, groups: Sequence[str], n_draws: int) -> Figure:
    """Observed statistics (points) against the posterior predictive median and 90 % band, per statistic.

    Args:
        observed: The observed panel.
        bands: :func:`~recoursesim.calibration.posterior.predictive_bands`.
        groups: The groups, in the scenario's order (their colours).
        n_draws: Posterior draws simulated (for the title).
    """
    statistics = [s for s in PANEL_STATISTICS if s in set(bands["statistic"])]
    fig = Figure(figsize=(5.0 * min(len(statistics), 2), 3.2 * ((len(statistics) + 1) // 2)), layout="constrained")
    axes = np.atleast_1d(fig.subplots((len(statistics) + 1) // 2, min(len(statistics), 2), squeeze=False).ravel())
    for ax, statistic in zip(axes, statistics, strict=False):
        for group in groups:
            colour = colour_of(list(groups), group)
            band = bands[(bands["statistic"] == statistic) & (bands["group"] == group)].sort_values("step")
            if band.empty:
                continue
            ax.fill_between(band["step"], band["low"], band["high"], color=colour, alpha=0.2, linewidth=0)
            ax.plot(band["step"], band["median"], color=colour, linewidth=1.2, label=f"{group}: posterior predictive")
            seen = observed[observed["group"] == group].sort_values("step")
            ax.plot(seen["step"], seen[statistic], "o", color=colour, markersize=3.5, label=f"{group}: observed")
        if statistic != "mean_score":
            ax.set_ylim(bottom=0)
        step_axis(ax)
        ax.set_ylabel(_UNITS[statistic])
        ax.legend(fontsize=7)
    for ax in axes[len(statistics) :]:
        ax.set_visible(False)
    fig.suptitle(f"Posterior predictive check: median and 90% band of {n_draws} simulated panels", fontsize=10)
    return fig
