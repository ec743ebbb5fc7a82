"""The report's figures (matplotlib, no global pyplot state); each function returns one :class:`Figure`."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from recoursesim.errors import ConfigError
from recoursesim.metrics import EIGHTY_PERCENT_BAND
from recoursesim.report.results import Results
from recoursesim.scoring import linear_form_of
from recoursesim.scoring.base import LinearForm

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def colour_of(groups: Sequence[str], group: str) -> str:
    """The colour of ``group`` (grey for a group not in ``groups``, such as FACTS's "all")."""
    return COLOURS[groups.index(group) % len(COLOURS)] if group in groups else "grey"


def _band(ax: Axes, frame: pd.DataFrame, x: str, column: str, colour: str, label: str) -> None:
    ax.plot(frame[x], frame[f"{column}_mean"], marker="o", markersize=3, color=colour, label=label)
    ax.fill_between(frame[x], frame[f"{column}_low"], frame[f"{column}_high"], color=colour, alpha=0.2, linewidth=0)


def trend_line(ax: Axes, frame: pd.DataFrame, column: str, colour: str, style: str, label: str) -> None:
    """``frame``'s ``<column>_mean`` over the steps with its CI band, unless it has no finite value."""
    frame = frame.sort_values("step")
    if frame.empty or not np.isfinite(frame[f"{column}_mean"].to_numpy(dtype=float)).any():
        return
    ax.plot(frame["step"], frame[f"{column}_mean"], style, marker="o", markersize=3, color=colour, label=label)
    ax.fill_between(frame["step"], frame[f"{column}_low"], frame[f"{column}_high"], color=colour, alpha=0.15, lw=0)


def ci_note(n_seeds: int) -> str:
    """What a figure's lines and bands are: ``"mean over 5 seeds, 95% CI band"`` or ``"one seed, no CI band"``."""
    return f"mean over {n_seeds} seeds, 95% CI band" if n_seeds > 1 else "one seed, no CI band"


def effort_label(measure: str) -> str:
    """How effort is measured, in words (the unit of ETR and of an agent's effort)."""
    return "score gain" if measure == "score_gain" else "feature-space cost"


def step_axis(ax: Axes) -> None:
    """Label ``ax``'s x axis as the simulation step, with integer ticks only (no 2.5 steps)."""
    ax.set_xlabel("step t")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _step_pair() -> tuple[Figure, np.ndarray]:
    """A wide figure with two panels side by side, both over the simulation step."""
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    return fig, fig.subplots(1, 2)


def _group_bands(
    axes: np.ndarray, steps: pd.DataFrame, groups: list[str], group: str, columns: tuple[str, str]
) -> None:
    """Draw ``group``'s mean line and CI band of ``columns[i]`` over the steps on ``axes[i]``."""
    mine = steps.loc[steps["group"] == group]
    for ax, column in zip(axes, columns, strict=True):
        _band(ax, mine, "step", column, colour_of(groups, group), group)


def _finish_step_pair(fig: Figure, axes: np.ndarray, ylabels: tuple[str, str], title: str) -> Figure:
    """Label the two panels' y axes, give both integer step ticks and a legend, and title ``fig``."""
    for ax, ylabel in zip(axes, ylabels, strict=True):
        ax.set_ylabel(ylabel)
    for ax in axes:
        step_axis(ax)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    return fig


def etr_ttr_figure(steps: pd.DataFrame, groups: list[str], n_seeds: int, effort_label: str) -> Figure:
    """ETR_t and TTR_t per group over time with CI bands across seeds (paper Fig. 2)."""
    fig, axes = _step_pair()
    for group in groups:
        _group_bands(axes, steps, groups, group, ("etr", "ttr"))
    return _finish_step_pair(
        fig,
        axes,
        (f"ETR$_t$ ({effort_label})", "TTR$_t$ (steps)"),
        f"Effort and time to recourse over time ({ci_note(n_seeds)})",
    )


def disparity_figure(steps: pd.DataFrame, groups: list[str], reference: str, n_seeds: int) -> Figure:
    """rETR_t and dTTR_t of every group against the reference group, with the 80%-rule band."""
    fig, axes = _step_pair()
    low, high = EIGHTY_PERCENT_BAND
    axes[0].axhspan(low, high, color="grey", alpha=0.2, label=f"80% rule [{low}, {high}]")
    axes[1].axhline(0.0, color="grey", linewidth=1, label="parity")
    for group in groups:
        if group == reference:
            continue
        _group_bands(axes, steps, groups, group, ("retr", "dttr"))
    return _finish_step_pair(
        fig,
        axes,
        (f"rETR$_t$ = ETR$_t$(g) / ETR$_t$({reference})", f"dTTR$_t$ = TTR$_t$(g) − TTR$_t$({reference})"),
        f"Recourse disparities over time ({ci_note(n_seeds)})",
    )


def selection_figure(steps: pd.DataFrame, groups: list[str], reference: str, n_seeds: int) -> Figure:
    """Selection rate per group and the demographic-parity ratio against the reference group."""
    fig, axes = _step_pair()
    low, high = EIGHTY_PERCENT_BAND
    axes[1].axhspan(low, high, color="grey", alpha=0.2, label=f"80% rule [{low}, {high}]")
    for group in groups:
        mine = steps.loc[steps["group"] == group]
        _band(axes[0], mine, "step", "selection_rate", colour_of(groups, group), group)
        if group != reference:
            _band(axes[1], mine, "step", "dp_ratio", colour_of(groups, group), group)
    return _finish_step_pair(
        fig,
        axes,
        ("selection rate (selected / scored)", f"demographic parity ratio vs {reference}"),
        f"Selection rates and demographic parity ({ci_note(n_seeds)})",
    )


def utility_figure(utility: pd.DataFrame, n_seeds: int) -> Figure:
    """Mean score of the selected agents now and when they entered, per step."""
    fig = Figure(figsize=(6, 3.8), layout="constrained")
    ax = fig.add_subplot()
    _band(ax, utility, "step", "mean_selected_score", "#1f77b4", "score when selected")
    _band(ax, utility, "step", "mean_selected_initial_score", "#ff7f0e", "score on entry")
    step_axis(ax)
    ax.set_ylabel("mean score of the selected agents (score units)")
    ax.legend(fontsize=8)
    ax.set_title(f"Utility of the selection ({ci_note(n_seeds)})", fontsize=10)
    return fig


def boundary_figure(results: Results, steps: list[int]) -> Figure:
    """Agents' features and the decision boundary at ``steps`` for the first seed (paper Figs 5–6).

    The decision model at each step is recovered by rebuilding the first run from its scenario
    and seed (a run is a pure function of both) and checked against the stored ledger. Faded
    points are the features at the first of ``steps``.

    Raises:
        ConfigError: The rebuilt run does not reproduce the stored ledger (results from another version).
    """
    run = results.runs[0]
    ledger = results.ledgers()[0]
    features = [c for c in ledger.columns if f"rec_{c}" in ledger.columns] or [
        c for c in ledger.columns if c not in _LEDGER_FIXED and not c.startswith("rec_")
    ]
    forms = _replay_forms(results, steps)
    groups = [str(g) for g in ledger["group"].cat.categories] if hasattr(ledger["group"], "cat") else []
    fig = Figure(figsize=(4.2 * len(steps), 4.0), layout="constrained")
    axes = fig.subplots(1, len(steps), squeeze=False).ravel()
    first = ledger.loc[ledger["step"] == steps[0]]
    x, y = features[0], features[1] if len(features) > 1 else features[0]
    for ax, step in zip(axes, steps, strict=True):
        rows = ledger.loc[ledger["step"] == step]
        for group in groups:
            colour = colour_of(groups, group)
            if step != steps[0]:
                faded = first.loc[first["group"].astype(str) == group]
                ax.scatter(faded[x], faded[y], s=6, color=colour, alpha=0.12)
            mine = rows.loc[rows["group"].astype(str) == group]
            ax.scatter(mine[x], mine[y], s=8, color=colour, alpha=0.7, label=group)
        form = forms.get(step)
        if form is not None and len(features) == 2:
            xs = np.array([min(ledger[x].min(), 0.0), max(ledger[x].max(), 1.0)])
            for label, level in _levels(rows, groups):
                margin = float(form.to_margin(level))
                if abs(form.coef[1]) > 1e-12:
                    ax.plot(
                        xs,
                        (margin - form.intercept - form.coef[0] * xs) / form.coef[1],
                        "--",
                        color="black",
                        linewidth=1.2,
                        label=label,
                    )
        ax.set_xlim(min(ledger[x].min(), 0.0) - 0.05, max(ledger[x].max(), 1.0) + 0.05)
        ax.set_ylim(min(ledger[y].min(), 0.0) - 0.05, max(ledger[y].max(), 1.0) + 0.05)
        ax.set_title(f"t = {step}", fontsize=10)
        ax.set_xlabel(x)
        ax.set_ylabel(y)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"Agents' features and the decision boundary (dashed), seed {run.seed_label}")
    return fig


_LEDGER_FIXED = {"step", "agent_id", "group", "entry_step", "score", "threshold", "selected", "effort"}


def _levels(rows: pd.DataFrame, groups: list[str]) -> list[tuple[str, float]]:
    """The cut-off(s) at one step: one value, or one per group when the cut-off differs by group."""
    thresholds = rows.groupby(rows["group"].astype(str), observed=True)["threshold"].median()
    if thresholds.nunique() <= 1:
        return [("cut-off", float(thresholds.iloc[0]))] if len(thresholds) else []
    return [(f"cut-off ({g})", float(thresholds[g])) for g in groups if g in thresholds]


def _replay_forms(results: Results, steps: list[int]) -> dict[int, LinearForm | None]:
    """The linear form of the decision model that scored each of ``steps``, from a rebuilt first run."""
    run = results.runs[0]
    wanted = set(steps)
    ledger = results.ledgers()[0]
    _check_replay_size(results, ledger, max(wanted))
    model = results.scenario.build_model(run.seed_value())
    forms: dict[int, LinearForm | None] = {}
    while model.t <= max(wanted) and model.running:
        t = model.t
        if t in wanted:
            forms[t] = linear_form_of(model.scorer)
        model.step()
    replayed = model.ledger
    for t in wanted:
        stored = ledger.loc[ledger["step"] == t].sort_values("agent_id")["score"].to_numpy()
        again = replayed.loc[replayed["step"] == t].sort_values("agent_id")["score"].to_numpy()
        if stored.shape != again.shape or not np.allclose(stored, again, rtol=1e-9, atol=1e-12):
            raise ConfigError(
                "RESULTS",
                f"{run.directory} does not match a rebuilt run of its scenario and seed at step {t} "
                "(written by another recoursesim version)",
                "re-run the scenario with this version",
            )
    return forms


def _check_replay_size(results: Results, ledger: pd.DataFrame, last: int) -> None:
    """Refuse to rebuild a run whose recorded scenario would make more agents than its stored ledger holds.

    The rebuilt run is checked against the ledger only after it ran; a ``scenario.json`` edited
    to state a huge population would otherwise allocate it first.
    """
    from recoursesim.resources import estimate_run

    try:
        agents = estimate_run(results.scenario.config, steps=last).agents
    except (KeyError, TypeError, ValueError):
        agents = None
    held = int(ledger["agent_id"].nunique())
    if agents is None or agents > held:
        stated = "an unreadable size" if agents is None else f"{agents} agents by step {last}"
        raise ConfigError(
            "RESULTS",
            f"{results.runs[0].directory}: its scenario.json states {stated}, but its ledger holds {held}",
            "restore the run's scenario.json, or re-run the scenario",
        )


def distribution_figure(
    outcomes: pd.DataFrame, groups: list[str], column: str, label: str, population: str, integer: bool = False
) -> Figure:
    """Box plots of each recourse-successful agent's ``column`` by group and qualification (paper Figs 7–10).

    Args:
        outcomes: Every agent of every run (:func:`~recoursesim.report.aggregate.outcomes`).
        groups: Group names (colours).
        column: The value plotted.
        label: Its axis label, with units.
        population: What the agents are (``"bell2024 population"``), shown in the title.
        integer: The values are whole numbers (steps): integer ticks on the value axis.
    """
    won = outcomes.loc[outcomes["outcome"] == "recourse"]
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.add_subplot()
    data, positions, colours, ticks, tick_labels = [], [], [], [], []
    position = 0.0
    for qualification in ("low", "high"):
        for group in groups:
            values = won.loc[(won["group"] == group) & (won["qualification"] == qualification), column]
            values = values.to_numpy(dtype=float)
            values = values[np.isfinite(values)]
            if values.size:
                data.append(values)
                positions.append(position)
                colours.append(colour_of(groups, group))
            else:  # an empty slot says so, instead of leaving its label off-centre
                ax.text(position, 0.02, "none", transform=ax.get_xaxis_transform(), ha="center", fontsize=7)
            position += 1.0
        ticks.append(position - (len(groups) + 1) / 2)
        tick_labels.append(f"{qualification} entry score")
        position += 0.6
    if data:
        boxes = ax.boxplot(data, positions=positions, widths=0.7, patch_artist=True, showfliers=False)
        for patch, colour in zip(boxes["boxes"], colours, strict=True):
            patch.set_facecolor(colour)
            patch.set_alpha(0.6)
    ax.set_xticks(ticks, tick_labels)
    ax.set_xlim(-0.6, position - 1.0)
    if integer:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    for group in groups:
        ax.bar([np.nan], [np.nan], color=colour_of(groups, group), alpha=0.6, label=group)
    ax.legend(fontsize=8)
    ax.set_ylabel(label)
    title = f"{label} of each agent that reached recourse, by group and qualification ({population})"
    ax.set_title("\n".join(textwrap.wrap(title, 80)), fontsize=9)
    return fig
