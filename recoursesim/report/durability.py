"""The report's "Durability of recourse" section: how long recommendations stay valid, per group."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from recoursesim.durability import durability_by_step, durability_summary, survival_by_group
from recoursesim.durability.measures import HORIZONS, group_gaps
from recoursesim.report.aggregate import interval_columns, mean_ci
from recoursesim.report.document import ReportFigure, Section
from recoursesim.report.figures import ci_note, colour_of, step_axis

#: Table columns: summary column -> label.
COLUMNS: dict[str, str] = {
    **{f"validity_{h}": f"valid {h} step{'s' if h > 1 else ''} later" for h in HORIZONS},
    "survival_5": "still valid at every step to 5 (KM)",
    "expired_effort_share": "effort on expired recommendations",
}


def per_seed(durability: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Per-seed summaries, Kaplan–Meier tables and per-step validity of stacked fates (a ``seed`` column)."""
    summaries, curves, steps = [], [], []
    for seed, fates in durability.groupby("seed", sort=False):
        summaries.append(durability_summary(fates).assign(seed=seed))
        curves.append(survival_by_group(fates).assign(seed=seed))
        steps.append(durability_by_step(fates).assign(seed=seed))
    return pd.concat(summaries, ignore_index=True), pd.concat(curves, ignore_index=True), pd.concat(steps)


def durability_section(
    durability: pd.DataFrame, groups: list[str], reference: str, n_seeds: int, recourse: str | None = None
) -> Section:
    """Build the section from the stacked ``durability.parquet`` of every run (empty: say why there is nothing).

    ``recourse`` is the scenario's recommendation generator, named when its recommendations expire by
    construction (not accepted even at the step they were issued).
    """
    section = Section(
        "durability",
        "Durability of recourse",
        [
            "Would a recommendation still work if the agent carried it out exactly and came back later? Each "
            "recommendation issued at step t is judged under the model and cut-off actually in force at step t + h "
            "(a counterfactual: the run is not changed). Validity at h is the share still accepted h steps later; "
            "the Kaplan–Meier (KM) curve is the probability that a recommendation stays valid at every step up to h, "
            "followed until the run ends or the agent leaves; effort on expired recommendations is the share of "
            "effort spent moving toward a recommendation that was no longer valid at the next step. Definitions in "
            "docs/durability.md."
        ],
    )
    if durability.empty or "valid_1" not in durability:
        section.paragraphs.append(
            "These runs kept no recommendations to judge (run.record_recommendations is off, or the results were "
            "written by an older recoursesim); re-run the scenario to see this section."
        )
        return section
    frame = durability.copy()
    frame["group"] = pd.Categorical(frame["group"].astype(str), categories=groups)
    summaries, curves, steps = per_seed(frame)
    summaries["group"] = summaries["group"].astype(str)
    stats = mean_ci(summaries, ["group"], list(COLUMNS))
    section.tables.append(interval_columns(stats, COLUMNS))
    gaps = group_gaps(summaries, reference, [f"validity_{h}" for h in HORIZONS], by=["seed"])
    others = gaps[gaps["group"].astype(str) != reference]
    if not others.empty:
        labels = {f"validity_{h}_gap": f"{COLUMNS[f'validity_{h}']}, minus {reference}'s" for h in HORIZONS}
        section.tables.append(interval_columns(mean_ci(others, ["group"], list(labels)), labels))
    never = never_valid_note(summaries, recourse)
    if never:
        section.paragraphs.append(never)
    judged = [c for c in COLUMNS if c.startswith("validity_")]
    if (stats[[f"{c}_mean" for c in judged]].fillna(1.0) == 1.0).all().all():
        section.paragraphs.append(
            "No recommendation expired in these runs: every one would still have been accepted at every later step "
            "(as happens when the model is fixed and the cut-off only falls)."
        )
    section.figures.append(
        ReportFigure(
            "durability",
            durability_figure(curves, steps, groups, n_seeds),
            "Kaplan–Meier curves of recommendation survival and validity one and three steps after issue, per group",
        )
    )
    return section


#: Below this share of recommendations accepted at the step they were issued, they expire by construction.
NEVER_VALID = 0.01


def never_valid_note(summaries: pd.DataFrame, recourse: str | None) -> str:
    """Why every validity is (about) 0, when the recommendations do not pass the cut-off even when issued; else ``""``.

    Args:
        summaries: Per-seed durability summaries (``valid_at_issue``, ``n_recommendations``).
        recourse: The recommendation generator's registered name, if known.
    """
    counted = summaries[summaries["n_recommendations"] > 0]
    if counted.empty:
        return ""
    weights = counted["n_recommendations"]
    at_issue = float((counted["valid_at_issue"] * weights).sum() / weights.sum())
    if not at_issue < NEVER_VALID:
        return ""
    generator = "the recommendation generator" if recourse is None else f"the recommendation generator `{recourse}`"
    what = _generator_summary(recourse)
    return (
        f"These recommendations expire by construction: only {at_issue:.1%} of them would have been accepted even at "
        f"the step they were issued, under the model and cut-off that issued them, so validity at every later step "
        f"is 0 and all effort counts as spent on expired recommendations. {generator[0].upper()}{generator[1:]} "
        f"does not aim past the cut-off{what}; agents still reach recourse by moving (the ETR and TTR above), not "
        "by carrying out a recommendation exactly. Durability is meaningful for a generator that aims at or past "
        "the cut-off (linear, exact, margin; docs/durability.md)."
    )


def _generator_summary(recourse: str | None) -> str:
    """`` (its own words: "<first line of its docstring>")`` for a registered generator, else ``""``."""
    if recourse is None:
        return ""
    from recoursesim.errors import ConfigError
    from recoursesim.registry import lookup

    try:
        doc = (lookup("recourse", recourse).__doc__ or "").strip().splitlines()
    except ConfigError:
        return ""
    first = doc[0].replace("``", "`").rstrip(".") if doc else ""
    return f" (it recommends the {first[0].lower()}{first[1:]})" if first else ""


def durability_figure(curves: pd.DataFrame, steps: pd.DataFrame, groups: list[str], n_seeds: int) -> Figure:
    """Left: KM survival per group; right: validity 1 and 3 steps later by the step the recommendation was issued."""
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    followed = curves[curves["at_risk"] > 0].assign(group=lambda f: f["group"].astype(str))
    km = mean_ci(followed, ["group", "time"], ["survival"])
    by_step = mean_ci(steps.assign(group=steps["group"].astype(str)), ["group", "step"], ["validity_1", "validity_3"])
    for group in groups:
        colour = colour_of(groups, group)
        mine = km[km["group"] == group]
        left.step(mine["time"], mine["survival_mean"], where="post", color=colour, label=group)
        low, high = mine["survival_low"].clip(0, 1), mine["survival_high"].clip(0, 1)  # a share stays in [0, 1]
        left.fill_between(mine["time"], low, high, step="post", color=colour, alpha=0.2, lw=0)
        rows = by_step[by_step["group"] == group]
        right.plot(rows["step"], rows["validity_1_mean"], marker="o", markersize=3, color=colour, label=f"{group}, h=1")
        right.plot(rows["step"], rows["validity_3_mean"], ls="--", color=colour, label=f"{group}, h=3")
    left.set_xlabel("steps since the recommendation was issued")
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_ylabel("share still valid at every step (KM)")
    left.set_ylim(-0.02, 1.02)
    left.set_title("Survival of recommendations", fontsize=10)
    step_axis(right)
    right.set_xlabel("step t the recommendation was issued")
    right.set_ylabel("share valid h steps later")
    right.set_ylim(-0.02, 1.02)
    right.set_title("Validity by issue step", fontsize=10)
    for ax in (left, right):
        ax.legend(fontsize=8)
    fig.suptitle(f"Durability of recourse ({ci_note(n_seeds)})")
    return fig
