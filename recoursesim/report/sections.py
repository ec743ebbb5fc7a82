"""The report's sections: one builder per section, each reading the shared :class:`ReportData`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from recoursesim.report import aggregate
from recoursesim.report import figures as draw
from recoursesim.report.aggregate import interval_columns
from recoursesim.report.auditor_figure import auditor_figure
from recoursesim.report.document import ReportFigure, Section
from recoursesim.report.durability import durability_section as report_durability
from recoursesim.report.market import lenders_section as report_lenders
from recoursesim.report.market import market_section as report_market
from recoursesim.report.results import Results, code_named
from recoursesim.report.scenario_table import scenario_table
from recoursesim.report.shift import shift_observers, shift_section
from recoursesim.report.summary import plain_summary
from recoursesim.scenario import Scenario


@dataclass(frozen=True)
class ReportData:
    """Everything the sections read, computed once from a results directory.

    Attributes:
        results: The runs.
        groups: Group names, in the ledger's order.
        reference: The group disparities are measured against.
        effort_label: How ETR is measured, in words.
        step_frame: Per (seed, step, group) metrics (:func:`~recoursesim.report.aggregate.step_metrics`).
        steps: Their mean and CI per (step, group).
        pooled: Pooled ETR/TTR/rETR/dTTR per group, mean and CI.
        counts: Agent counts by outcome per group, mean and CI.
        outcomes: Every agent of every run.
        observations: The per-step auditors' rows of every run, without the shift and ground-truth
            observers' (those have their own section, :mod:`recoursesim.report.shift`).
        shift_observations: The shift and ground-truth observers' rows.
    """

    results: Results
    groups: list[str]
    reference: str
    effort_label: str
    step_frame: pd.DataFrame
    steps: pd.DataFrame
    pooled: pd.DataFrame
    counts: pd.DataFrame
    outcomes: pd.DataFrame
    observations: pd.DataFrame
    shift_observations: pd.DataFrame

    @classmethod
    def from_results(cls, results: Results) -> ReportData:
        """Compute the shared tables."""
        observations = results.stacked("observations")
        is_shift = observations["observer"].isin(shift_observers(observations))
        return cls(
            results=results,
            groups=aggregate.group_names(results),
            reference=aggregate.reference_group(results),
            effort_label=draw.effort_label(results.scenario.effort_measure),
            step_frame=aggregate.step_metrics(results),
            steps=aggregate.steps_over_seeds(results),
            pooled=aggregate.pooled_over_seeds(results),
            counts=aggregate.outcome_counts(results),
            outcomes=aggregate.outcomes(results),
            observations=observations.loc[~is_shift],
            shift_observations=observations.loc[is_shift],
        )

    @property
    def scenario(self) -> Scenario:
        """The scenario the runs ran."""
        return self.results.scenario

    @property
    def n_seeds(self) -> int:
        """Number of runs."""
        return self.results.n_seeds


def boundary_steps(steps: int) -> list[int]:
    """The steps at which the decision boundary is drawn: first, middle and last."""
    return sorted({0, steps // 2, steps})


def numeric_features(ledger: pd.DataFrame) -> bool:
    """Whether every feature column of the ledger is a float column (the synthetic worlds)."""
    fixed = {"step", "agent_id", "group", "entry_step", "score", "threshold", "selected", "effort", "recourse_found"}
    columns = [c for c in ledger.columns if c not in fixed and not c.startswith("rec_")]
    return all(pd.api.types.is_float_dtype(ledger[c]) for c in columns)


def population_label(scenario: Scenario) -> str:
    """The population generator's name, for figure titles (``"bell2024 population"``)."""
    spec = scenario.spec.get("population", {})
    name = spec.get("name")
    if name == "dataset":  # a real data set: name it
        source = spec.get("dataset") or str(spec.get("path", "")).replace("\\", "/").rsplit("/", 1)[-1]
        return f"{source} data" if source else "dataset population"
    return f"{name} population" if name else "this scenario's population"


def summary_section(data: ReportData) -> Section:
    """A few plain-language sentences on the pooled disparities and the agents left out."""
    lines = plain_summary(
        scenario_name=data.scenario.name,
        n_seeds=data.n_seeds,
        steps=data.scenario.steps,
        reference=data.reference,
        pooled=data.pooled,
        counts=data.counts,
        step_frame=data.step_frame,
    )
    return Section("summary", "Summary", lines)


def scenario_section(data: ReportData) -> Section:
    """Which runs were read, how ETR is measured, and the full scenario as a table of settings."""
    seeds = ", ".join(run.seed_label for run in data.results.runs)
    return Section(
        "scenario",
        "Scenario",
        [
            f"{data.scenario.name}: {data.n_seeds} run(s) read from {data.results.directory} (seeds {seeds}). ETR is "
            f"measured as {data.effort_label}; rETR and dTTR are against {data.reference}. Every setting of the "
            "resolved scenario (preset applied) follows; scenario.json beside each run holds the same.",
        ],
        [scenario_table(data.scenario.spec)],
    )


def recourse_section(data: ReportData) -> Section:
    """ETR_t and TTR_t per group over time, and their pooled values."""
    return Section(
        "recourse-over-time",
        "Effort and time to recourse over time",
        [
            "ETR_t and TTR_t: over the agents who had a negative outcome before step t and a positive one at t, "
            "their mean effort and mean steps since the first negative outcome (Bell et al. 2024, §3.2 and Fig. 2)."
        ],
        [pooled_table(data.pooled)],
        [
            ReportFigure(
                "etr_ttr_over_time",
                draw.etr_ttr_figure(data.steps, data.groups, data.n_seeds, data.effort_label),
                "ETR_t and TTR_t per group over time with 95% CI bands across seeds",
            )
        ],
    )


def disparities_section(data: ReportData) -> Section:
    """rETR_t and dTTR_t against the reference group, with the 80%-rule band."""
    reference = data.reference
    return Section(
        "disparities",
        "Disparities over time",
        [
            f"rETR_t = ETR_t(g) / ETR_t({reference}) and dTTR_t = TTR_t(g) − TTR_t({reference}); 1 and 0 are parity, "
            "and the 80% rule reads rETR in [0.8, 1.25] as tolerable."
        ],
        figures=[
            ReportFigure(
                "disparities_over_time",
                draw.disparity_figure(data.steps, data.groups, reference, data.n_seeds),
                "rETR_t and dTTR_t over time with the 80%-rule band",
            )
        ],
    )


def selection_section(data: ReportData) -> Section:
    """Selection rates per group and demographic parity."""
    return Section(
        "selection",
        "Selection rates and demographic parity",
        [
            "Selection rate = selected / scored agents at each step; demographic parity compares it with the "
            f"reference group {data.reference} (ratio 1 is parity)."
        ],
        [selection_table(data.step_frame, data.reference)],
        [
            ReportFigure(
                "selection_rates",
                draw.selection_figure(data.steps, data.groups, data.reference, data.n_seeds),
                "selection rate per group and the demographic-parity ratio over time",
            )
        ],
    )


def utility_section(data: ReportData) -> Section:
    """The mean score of the selected agents, at selection and on entry."""
    return Section(
        "utility",
        "Utility",
        [
            "The mean score of the agents selected at each step, now and when they entered: what the selection "
            "gains in quality, and how much of it agents earned by acting on recourse."
        ],
        figures=[
            ReportFigure(
                "utility",
                draw.utility_figure(aggregate.utility_over_seeds(data.results), data.n_seeds),
                "mean score of the selected agents, at selection and on entry",
            )
        ],
    )


def lenders_section(data: ReportData) -> Section | None:
    """Each lender's selections, advice and ETR/TTR (market runs only)."""
    return report_lenders(data.results, data.groups, data.n_seeds)


def market_section(data: ReportData) -> Section | None:
    """Systemic exclusion, homogenization and portability (market runs only)."""
    return report_market(data.results, data.groups, data.reference, data.n_seeds)


def auditors_section(data: ReportData) -> Section:
    """The per-step auditors' metrics over time, or how to add them."""
    section = Section("auditors", "Auditors over time")
    if data.observations.empty:
        section.paragraphs.append(
            'No per-step auditors ran in this scenario. Add [[observers]] with name = "facts", "ccm" or '
            '"equality_of_effort" to the scenario to see them here.'
        )
        return section
    names = ", ".join(sorted(data.observations["observer"].astype(str).unique()))
    section.paragraphs.append(f"Per-step auditors ({names}) on the waiting population and the current model.")
    section.figures.append(
        ReportFigure(
            "auditors_over_time",
            auditor_figure(data.observations, data.groups),
            "each auditor metric over time per group, mean across seeds",
        )
    )
    return section


def shift_and_truth_section(data: ReportData) -> Section | None:
    """Drift of the population, model and cut-off, and recourse reliability (only with those observers)."""
    return shift_section(data.shift_observations, data.groups, data.n_seeds)


def durability_section(data: ReportData) -> Section:
    """How long recommendations stay valid, per group (docs/durability.md)."""
    recourse = data.results.scenario.spec.get("recourse", {}).get("name")
    return report_durability(
        data.results.stacked("durability"), data.groups, data.reference, data.n_seeds, str(recourse or "") or None
    )


def boundary_section(data: ReportData) -> Section:
    """The agents' features and the decision boundary at the first, middle and last step (numeric features only)."""
    title = "Agents and the decision boundary"
    if not data.results.has_ledgers:
        return no_ledger_section("boundary", title)
    named = code_named(data.scenario.spec)
    if any(not run.market.empty for run in data.results.runs):
        why = "in a market each lender has its own decision boundary; the Lenders section compares them."
    elif not numeric_features(data.results.ledgers()[0]):
        why = (
            "the agents have categorical or integer features (a real data set), so there is no two-number "
            "picture of the decision boundary; the ledger holds every agent's features."
        )
    elif named is not None:
        why = (
            f"drawing the boundary rebuilds the first run, and this scenario names {named}, which a report never "
            "loads or imports (a results folder is data). Run the scenario again yourself to see the boundary."
        )
    else:
        why = ""
    if why:
        return Section("boundary", title, [f"Not drawn: {why}"])
    chosen = boundary_steps(data.scenario.steps)
    return Section(
        "boundary",
        title,
        [
            f"Agents' features at steps {', '.join(map(str, chosen))} of the first seed with the decision boundary at "
            "that step's cut-off (Bell et al. 2024, Figs 5–6); faded points are the features at the first step."
        ],
        figures=[
            ReportFigure(
                "decision_boundary",
                draw.boundary_figure(data.results, chosen),
                "agents' features and the decision boundary at chosen steps",
            )
        ],
    )


def distributions_section(data: ReportData) -> Section:
    """Each successful agent's effort and time to recourse, by group and qualification."""
    if not data.results.has_ledgers:
        return no_ledger_section("distributions", "Individual effort and time to recourse")
    population = population_label(data.scenario)
    effort = f"total effort ({data.effort_label})"
    return Section(
        "distributions",
        "Individual effort and time to recourse",
        [
            f"Each recourse-successful agent's effort ({data.effort_label}) and time to recourse, by group and by "
            "qualification (entry score above or below its run's median), pooled over seeds (Figs 7–10)."
        ],
        figures=[
            ReportFigure(
                "effort_distribution",
                draw.distribution_figure(data.outcomes, data.groups, "effort", effort, population),
                "distribution of each agent's total effort to recourse by group and qualification",
            ),
            ReportFigure(
                "ttr_distribution",
                draw.distribution_figure(
                    data.outcomes, data.groups, "ttr", "time to recourse (steps)", population, integer=True
                ),
                "distribution of each agent's time to recourse by group and qualification",
            ),
        ],
    )


def outcomes_section(data: ReportData) -> Section:
    """Agents by outcome per run: on entry, recourse, censored, gave up, never successful."""
    return Section(
        "outcomes",
        "Censored and never-successful agents",
        [
            "Agents selected on entry, agents who reached recourse, agents still waiting at the end "
            "(right-censored) and agents who gave up, per run (mean and 95% CI across seeds). Never successful = "
            "censored + gave up; these agents are left out of ETR and TTR."
        ],
        [counts_table(data.counts)],
    )


def no_ledger_section(section_id: str, title: str) -> Section:
    """A section drawn from individual agents, for a sweep (which keeps no ledgers): what to run instead."""
    return Section(
        section_id,
        title,
        [
            "Not drawn: a sweep keeps each run's per-step and pooled metrics, not every agent's history. Run the "
            "scenario with `recoursesim run SCENARIO --seed N` and report on those run directories to see it."
        ],
    )


def figures_section(sections: list[Section]) -> Section:
    """The list of the figure files written next to the report."""
    listing = [f"{f.name}.png (and .svg): {f.caption}." for s in sections for f in s.figures]
    return Section("figures", "Figures", ["The figures in this report, also saved as files:", *listing])


#: The section builders, in report order (the figure listing comes last); ``None`` leaves a section out.
SECTION_BUILDERS: tuple[Callable[[ReportData], Section | None], ...] = (
    summary_section,
    scenario_section,
    recourse_section,
    disparities_section,
    selection_section,
    utility_section,
    lenders_section,
    market_section,
    auditors_section,
    shift_and_truth_section,
    durability_section,
    boundary_section,
    distributions_section,
    outcomes_section,
)


def pooled_table(pooled: pd.DataFrame) -> pd.DataFrame:
    """Pooled ETR, TTR, rETR and dTTR per group."""
    return interval_columns(pooled, {"etr": "ETR (pooled)", "ttr": "TTR (pooled)", "retr": "rETR", "dttr": "dTTR"})


def counts_table(counts: pd.DataFrame) -> pd.DataFrame:
    """Agents per run by outcome, per group."""
    labels = {
        "entered": "entered",
        "selected_on_entry": "on entry",
        "recourse": "recourse",
        "censored": "censored",
        "gave_up": "gave up",
        "never_successful": "never successful",
    }
    return interval_columns(counts, labels, digits=1)


def selection_table(step_frame: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Whole-run selection rate per group, its ratio and difference to the reference (mean over runs, CIs).

    The rates are :func:`~recoursesim.report.aggregate.run_selection_rates`'s, as everywhere else.
    """
    frame = aggregate.mean_ci(
        aggregate.run_selection_rates(step_frame, reference), ["group"], ["rate", "ratio", "difference"]
    )
    return interval_columns(
        frame,
        {
            "rate": "selection rate (all steps)",
            "ratio": f"ratio to {reference}",
            "difference": f"difference to {reference}",
        },
    )
