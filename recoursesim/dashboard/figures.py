"""The dashboard's matplotlib figures, drawn from a :class:`DashboardSession` (no global pyplot state)."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from recoursesim.dashboard.session import DURABILITY_HORIZONS, DashboardSession
from recoursesim.metrics.market import ALL
from recoursesim.metrics.market_ledger import MARKET
from recoursesim.report.figures import COLOURS, colour_of, effort_label, step_axis
from recoursesim.scoring import linear_form_of

#: Ground-truth colouring: truly qualified, not truly qualified; group markers.
TRUTH_COLOURS = ("#2ca02c", "#7f7f7f")
TRUTH_MARKERS = ("o", "^", "s", "D")
_STORY_COLOURS = {"Anne": "#ff7f0e", "Dawn": "#8c564b"}


def scatter_figure(session: DashboardSession, ground_truth: bool = False) -> Figure:
    """Agents' features coloured by group, the decision boundary and the latest recourse arrows.

    Before the first step the initial population is shown; afterwards the agents scored at the
    latest step, at the features they were scored with (selected agents ringed in black), with
    an arrow from each rejected agent to its recommendation, and the boundary of the current
    decision model at the latest cut-off (one line per group when the cut-off is per group).
    With ``ground_truth`` the agents are coloured by their true qualification when scored
    (green: truly qualified, grey: not) and the groups are told apart by marker shape.
    """
    model = session.model
    names = model.feature_names
    fig = Figure(figsize=(5.6, 4.6), layout="constrained")
    ax = fig.add_subplot()
    latest = session.latest()
    x, y = names[0], names[1]
    if latest.empty:
        frame = session.waiting()
        for group in model.group_names:
            mine = frame.loc[frame["group"] == group]
            ax.scatter(mine[x], mine[y], s=12, alpha=0.6, color=colour_of(model.group_names, group), label=group)
        ax.set_title("initial population (press Step)")
    else:
        step = int(latest["step"].iloc[0])
        truth = session.true_qualification(latest["agent_id"].to_numpy()) if ground_truth else None
        for index, group in enumerate(model.group_names):
            in_group = (latest["group"].astype(str) == group).to_numpy()
            mine = latest.loc[in_group]
            colour = colour_of(model.group_names, group)
            if truth is None:
                ax.scatter(mine[x], mine[y], s=12, alpha=0.6, color=colour, label=group)
            else:
                _truth_scatter(ax, mine, truth[in_group], (x, y), TRUTH_MARKERS[index % len(TRUTH_MARKERS)], group)
            chosen = mine.loc[mine["selected"]]
            ax.scatter(chosen[x], chosen[y], s=30, facecolors="none", edgecolors="black", linewidths=0.8)
            rejected = mine.loc[~mine["selected"]]
            if f"rec_{x}" in rejected:
                ax.quiver(
                    rejected[x], rejected[y], rejected[f"rec_{x}"] - rejected[x], rejected[f"rec_{y}"] - rejected[y],
                    angles="xy", scale_units="xy", scale=1.0, color=colour, alpha=0.35, width=0.003,
                )  # fmt: skip
        _draw_boundary(ax, session, latest)
        ax.scatter([], [], s=30, facecolors="none", edgecolors="black", label="selected")
        ax.set_title(f"step {step}: agents by {'true qualification' if truth is not None else 'group'}, boundary")
    for agent in session.story:
        now = latest.loc[latest["agent_id"] == agent.agent_id]
        if not now.empty:
            ax.scatter(now[x], now[y], marker="*", s=160, color=_STORY_COLOURS[agent.name], edgecolors="black")
            ax.annotate(agent.name, (float(now[x].iloc[0]), float(now[y].iloc[0])), xytext=(5, 5),
                        textcoords="offset points", fontsize=9)  # fmt: skip
    ax.set_xlim(-0.15, 1.15)
    ax.set_ylim(-0.15, 1.15)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.legend(loc="lower left", fontsize=8)
    return fig


def _truth_scatter(ax: Axes, rows, qualified: np.ndarray, axes_names: tuple[str, str], marker: str, group: str) -> None:
    x, y = axes_names
    for label, mask, colour in (
        ("truly qualified", qualified, TRUTH_COLOURS[0]),
        ("not", ~qualified, TRUTH_COLOURS[1]),
    ):
        part = rows.loc[mask]
        ax.scatter(part[x], part[y], s=14, alpha=0.7, color=colour, marker=marker, label=f"{group}: {label}")


def _draw_boundary(ax: Axes, session: DashboardSession, latest) -> None:
    form = linear_form_of(session.model.scorer)
    if form is None or form.coef.size != 2:
        return
    threshold = np.asarray(session.model.threshold, dtype=float)
    if threshold.ndim == 0:
        levels = [("cut-off", float(threshold), "black")]
    else:
        names = session.model.group_names
        groups = latest["group"].astype(str).to_numpy()
        levels = [
            (f"cut-off ({g})", float(np.median(threshold[groups == g])), colour_of(names, g))
            for g in names
            if np.any(groups == g) and threshold.shape == groups.shape
        ]
    xs = np.linspace(-0.15, 1.15, 2)
    a, b = float(form.coef[0]), float(form.coef[1])
    for label, level, colour in levels:
        margin = float(form.to_margin(level))
        if abs(b) > 1e-12:
            ax.plot(xs, (margin - form.intercept - a * xs) / b, "--", color=colour, linewidth=1.5, label=label)
        elif abs(a) > 1e-12:
            ax.axvline((margin - form.intercept) / a, linestyle="--", color=colour, linewidth=1.5, label=label)


def metrics_figure(session: DashboardSession) -> Figure:
    """ETR_t and TTR_t per group over the steps run so far (paper Fig. 2), and rETR_t with the 80% band."""
    fig = Figure(figsize=(5.6, 4.6), layout="constrained")
    axes = fig.subplots(3, 1, sharex=True)
    metrics = session.metrics()
    names = session.model.group_names
    for group in names:
        mine = metrics.loc[metrics["group"].astype(str) == group]
        colour = colour_of(names, group)
        axes[0].plot(mine["step"], mine["etr"], marker="o", markersize=3, color=colour, label=group)
        axes[1].plot(mine["step"], mine["ttr"], marker="o", markersize=3, color=colour, label=group)
        if "retr" in mine and group != session.scenario.reference_group:
            axes[2].plot(mine["step"], mine["retr"], marker="o", markersize=3, color=colour, label=group)
    axes[2].axhspan(0.8, 1.25, color="grey", alpha=0.2, label="80% rule")
    axes[0].set_ylabel(f"ETR$_t$\n({effort_label(session.scenario.effort_measure)})", fontsize=9)
    axes[1].set_ylabel("TTR$_t$\n(steps)", fontsize=9)
    axes[2].set_ylabel("rETR$_t$\n(ratio)", fontsize=9)
    step_axis(axes[2])
    axes[0].legend(fontsize=8)
    axes[2].legend(fontsize=8)
    axes[0].set_xlim(-0.5, max(session.scenario.steps, 1) + 0.5)
    return fig


def auditor_figure(session: DashboardSession) -> Figure:
    """Equality of effort over time: each group's average cost of recourse (ACR) and the ACR ratio."""
    fig = Figure(figsize=(5.6, 3.0), layout="constrained")
    ax = fig.add_subplot()
    observations = session.auditor()
    acr = observations.loc[observations["metric"] == "ACR"]
    names = session.model.group_names
    for group in names:
        mine = acr.loc[acr["group"].astype(str) == group]
        ax.plot(mine["step"], mine["value"], marker="o", markersize=3, color=colour_of(names, group), label=group)
    ax.set_xlim(-0.5, max(session.scenario.steps, 1) + 0.5)
    step_axis(ax)
    ax.set_ylabel("ACR (ratio, 1 = equal effort)")
    ax.set_title("average cost of recourse of the waiting agents")
    ax.legend(fontsize=8)
    return fig


def story_figure(session: DashboardSession) -> Figure:
    """Anne's and Dawn's distance below the cut-off and their effort, step by step."""
    fig = Figure(figsize=(5.6, 3.4), layout="constrained")
    axes = fig.subplots(1, 2)
    story = session.story_frame()
    for agent in session.story:
        mine = story.loc[story["name"] == agent.name]
        colour = _STORY_COLOURS[agent.name]
        axes[0].plot(mine["step"], mine["gap"], marker="o", markersize=3, color=colour, label=agent.name)
        won = mine.loc[mine["selected"]]
        axes[0].scatter(won["step"], won["gap"], marker="*", s=120, color=colour, edgecolors="black")
        axes[1].plot(mine["step"], mine["effort"].cumsum(), marker="o", markersize=3, color=colour, label=agent.name)
    axes[0].axhline(0.0, color="black", linewidth=0.8)
    axes[0].set_ylabel("cut-off − score (score units)")
    axes[1].set_ylabel(f"total effort ({effort_label(session.scenario.effort_measure)})")
    for ax in axes:
        step_axis(ax)
        ax.legend(fontsize=8)
    return fig


#: Horizons of the durability view's validity panel and their line styles.
DURABILITY_STYLES = dict(zip(DURABILITY_HORIZONS, ("-", "--", ":"), strict=True))


def durability_figure(session: DashboardSession) -> Figure:
    """How long recommendations stay valid: validity ``h`` steps after issue by issue step, and Kaplan–Meier curves.

    Left: per group (colour) and horizon ``h`` = 1, 3, 5 (line style), the share of the
    recommendations issued at each step that would still be accepted ``h`` steps later (shown once
    ``h`` steps have run since). Right: per group, the Kaplan–Meier estimate of the probability that
    a recommendation is still valid ``h`` steps after issue (docs/durability.md).
    """
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    axes = fig.subplots(1, 2)
    view = session.durability_view()
    fates, by_step, curves = view.fates, view.by_step, view.curves
    names = session.model.group_names
    for group in names:
        colour = colour_of(names, group)
        mine = by_step.loc[by_step["group"] == group]
        for h, style in DURABILITY_STYLES.items():
            known = mine.loc[mine[f"validity_{h}"].notna()]
            if not known.empty:
                axes[0].plot(known["step"], known[f"validity_{h}"].astype(float), style, marker="o", markersize=3,
                             color=colour, label=f"{group}, h = {h}")  # fmt: skip
        curve = curves.loc[curves["group"] == group]
        if not curve.empty:
            axes[1].step(curve["time"], curve["survival"], where="post", color=colour, label=group)
    axes[0].set_xlim(-0.5, max(session.scenario.steps, 1) + 0.5)
    step_axis(axes[0])
    axes[0].set_xlabel("step the recommendation was issued")
    axes[0].set_ylabel("share still valid h steps later")
    axes[0].set_title("validity h steps after issue", fontsize=10)
    step_axis(axes[1])
    axes[1].set_xlabel("steps since issue")
    axes[1].set_ylabel("still valid (Kaplan–Meier)")
    axes[1].set_title("survival of recommendations", fontsize=10)
    for ax in axes:
        ax.set_ylim(-0.03, 1.03)
        if ax.get_lines():
            ax.legend(fontsize=7, loc="lower left")
    if fates.empty:
        axes[0].text(0.5, 0.5, "no recommendation issued yet", ha="center", va="center", transform=axes[0].transAxes)
    return fig


def lenders_figure(session: DashboardSession) -> Figure:
    """A market's panel: each lender's selection rate; the market's systemic exclusion and homogenization per group."""
    fig = Figure(figsize=(11, 3.2), layout="constrained")
    axes = fig.subplots(1, 3)
    table = session.market()
    everyone = table.loc[table["group"].astype(str) == ALL]
    lenders = [name for name in table["lender"].cat.categories if name != MARKET]
    for i, lender in enumerate(lenders):
        mine = everyone.loc[everyone["lender"].astype(str) == lender]
        colour = COLOURS[i % len(COLOURS)]
        axes[0].plot(mine["step"], mine["selection_rate"], marker="o", markersize=3, color=colour, label=lender)
    market = table.loc[table["lender"].astype(str) == MARKET]
    names = session.model.group_names
    for group in [*names, ALL]:
        mine = market.loc[market["group"].astype(str) == group]
        colour, style = ("black", "--") if group == ALL else (colour_of(names, group), "-")
        for ax, column in zip(axes[1:], ("systemic_exclusion", "homogenization"), strict=True):
            ax.plot(mine["step"], mine[column], style, marker="o", markersize=3, color=colour, label=group)
    axes[2].axhline(1.0, color="grey", lw=0.8, ls=":")
    titles = ("selection rate per lender", "systemic exclusion", "homogenization")
    labels = ("share of applicants", "share refused everywhere", "observed / independent")
    for ax, title, label in zip(axes, titles, labels, strict=True):
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(label, fontsize=9)
        ax.set_xlim(-0.5, max(session.scenario.steps, 1) + 0.5)
        step_axis(ax)
        ax.legend(fontsize=7)
    axes[0].set_ylim(-0.02, 1.02)
    axes[1].set_ylim(-0.02, 1.02)
    axes[2].set_ylim(bottom=0)
    return fig
