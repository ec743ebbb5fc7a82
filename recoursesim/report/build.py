"""Assemble a :class:`Report` from a results directory, and write it (HTML or Markdown, plus PNG/SVG figures)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.report import aggregate
from recoursesim.report import figures as draw
from recoursesim.report.document import Report, ReportFigure, Section, to_html, to_markdown
from recoursesim.report.results import Results, load_results
from recoursesim.report.shift import shift_observers, shift_section
from recoursesim.report.summary import plain_summary

#: Section ids, in order (the HTML anchors; tests check each is present and non-empty).
SECTION_IDS = (
    "summary",
    "scenario",
    "recourse-over-time",
    "disparities",
    "selection",
    "utility",
    "auditors",
    "boundary",
    "distributions",
    "outcomes",
    "figures",
)


def boundary_steps(steps: int) -> list[int]:
    """The steps at which the decision boundary is drawn: first, middle and last."""
    return sorted({0, steps // 2, steps})


def build_report(results: Results) -> Report:
    """Compute every table and figure of the report from ``results``."""
    scenario = results.scenario
    groups = aggregate.group_names(results)
    reference = aggregate.reference_group(results)
    n = results.n_seeds
    effort_label = "score gain" if scenario.effort_measure == "score_gain" else "feature-space cost"
    step_frame = aggregate.step_metrics(results)
    steps = aggregate.steps_over_seeds(results)
    pooled = aggregate.pooled_over_seeds(results)
    counts = aggregate.outcome_counts(results)
    outcomes = aggregate.outcomes(results)
    observations = results.stacked("observations")
    auditor_rows = observations.loc[~observations["observer"].isin(shift_observers(observations))]
    population = scenario.spec.get("population", {})
    q = f"q = {population['q']:g}" if isinstance(population.get("q"), int | float) else "this scenario"

    summary = Section(
        "summary",
        "Summary",
        plain_summary(
            scenario_name=scenario.name,
            n_seeds=n,
            steps=scenario.steps,
            reference=reference,
            pooled=pooled,
            counts=counts,
            step_frame=step_frame,
        ),
    )
    seeds = ", ".join(run.seed_label for run in results.runs)
    scenario_section = Section(
        "scenario",
        "Scenario",
        [
            f"{scenario.name}: {n} run(s) read from {results.directory} (seeds {seeds}). ETR is measured as "
            f"{effort_label}; rETR and dTTR are against {reference}.",
            "```" + json.dumps(scenario.spec, indent=2, sort_keys=True) + "```",
        ],
    )
    recourse = Section(
        "recourse-over-time",
        "Effort and time to recourse over time",
        [
            "ETR_t and TTR_t: over the agents who had a negative outcome before step t and a positive one at t, "
            "their mean effort and mean steps since the first negative outcome (Bell et al. 2024, §3.2 and Fig. 2)."
        ],
        [_pooled_table(pooled)],
        [
            ReportFigure(
                "etr_ttr_over_time",
                draw.etr_ttr_figure(steps, groups, n, effort_label),
                "ETR_t and TTR_t per group over time with 95% CI bands across seeds",
            )
        ],
    )
    disparities = Section(
        "disparities",
        "Disparities over time",
        [
            f"rETR_t = ETR_t(g) / ETR_t({reference}) and dTTR_t = TTR_t(g) − TTR_t({reference}); 1 and 0 are parity, "
            "and the 80% rule reads rETR in [0.8, 1.25] as tolerable."
        ],
        figures=[
            ReportFigure(
                "disparities_over_time",
                draw.disparity_figure(steps, groups, reference, n),
                "rETR_t and dTTR_t over time with the 80%-rule band",
            )
        ],
    )
    selection = Section(
        "selection",
        "Selection rates and demographic parity",
        [
            "Selection rate = selected / scored agents at each step; demographic parity compares it with the "
            f"reference group {reference} (ratio 1 is parity)."
        ],
        [_selection_table(step_frame, reference)],
        [
            ReportFigure(
                "selection_rates",
                draw.selection_figure(steps, groups, reference, n),
                "selection rate per group and the demographic-parity ratio over time",
            )
        ],
    )
    utility = Section(
        "utility",
        "Utility",
        [
            "The mean score of the agents selected at each step, now and when they entered: what the selection "
            "gains in quality, and how much of it agents earned by acting on recourse."
        ],
        figures=[
            ReportFigure(
                "utility",
                draw.utility_figure(aggregate.utility_over_seeds(results), n),
                "mean score of the selected agents, at selection and on entry",
            )
        ],
    )
    auditors = Section("auditors", "Auditors over time")
    if auditor_rows.empty:
        auditors.paragraphs.append(
            'No per-step auditors ran in this scenario. Add [[observers]] with name = "facts", "ccm" or '
            '"equality_of_effort" to the scenario to see them here.'
        )
    else:
        names = ", ".join(sorted(auditor_rows["observer"].astype(str).unique()))
        auditors.paragraphs.append(f"Per-step auditors ({names}) on the waiting population and the current model.")
        auditors.figures.append(
            ReportFigure(
                "auditors_over_time",
                draw.auditor_figure(auditor_rows, groups),
                "each auditor metric over time per group, mean across seeds",
            )
        )
    chosen = boundary_steps(scenario.steps)
    if _numeric_features(results.runs[0].ledger):
        boundary = Section(
            "boundary",
            "Agents and the decision boundary",
            [
                f"Agents' features at steps {', '.join(map(str, chosen))} of the first seed with the decision boundary "
                "at that step's cut-off (Bell et al. 2024, Figs 5–6); faded points are the features at the first step."
            ],
            figures=[
                ReportFigure(
                    "decision_boundary",
                    draw.boundary_figure(results, chosen),
                    "agents' features and the decision boundary at chosen steps",
                )
            ],
        )
    else:
        boundary = Section(
            "boundary",
            "Agents and the decision boundary",
            [
                "Not drawn: the agents have categorical or integer features (a real data set), so there is "
                "no two-number picture of the decision boundary; the ledger holds every agent's features."
            ],
        )
    distributions = Section(
        "distributions",
        "Individual effort and time to recourse",
        [
            f"Each recourse-successful agent's effort ({effort_label}) and time to recourse, by group and by "
            "qualification (entry score above or below its run's median), pooled over seeds (Figs 7–10)."
        ],
        figures=[
            ReportFigure(
                "effort_distribution",
                draw.distribution_figure(outcomes, groups, "effort", f"total effort ({effort_label})", q),
                "distribution of each agent's total effort to recourse by group and qualification",
            ),
            ReportFigure(
                "ttr_distribution",
                draw.distribution_figure(outcomes, groups, "ttr", "time to recourse (steps)", q),
                "distribution of each agent's time to recourse by group and qualification",
            ),
        ],
    )
    outcome_section = Section(
        "outcomes",
        "Censored and never-successful agents",
        [
            "Agents selected on entry, agents who reached recourse, agents still waiting at the end "
            "(right-censored) and agents who gave up, per run (mean and 95% CI across seeds). Never successful = "
            "censored + gave up; these agents are left out of ETR and TTR."
        ],
        [_counts_table(counts)],
    )
    sections = [
        summary,
        scenario_section,
        recourse,
        disparities,
        selection,
        utility,
        auditors,
        boundary,
        distributions,
        outcome_section,
    ]
    shift = shift_section(observations.loc[observations["observer"].isin(shift_observers(observations))], groups, n)
    if shift is not None:
        sections.insert(sections.index(auditors) + 1, shift)
    listing = [f"{f.name}.png (and .svg): {f.caption}." for s in sections for f in s.figures]
    sections.append(Section("figures", "Figures", ["The figures in this report, also saved as files:", *listing]))
    return Report(f"recoursesim report: {scenario.name} ({n} seed{'s' if n != 1 else ''})", sections)


def _numeric_features(ledger: pd.DataFrame) -> bool:
    """Whether every feature column of the ledger is a float column (the synthetic worlds)."""
    fixed = {"step", "agent_id", "group", "entry_step", "score", "threshold", "selected", "effort", "recourse_found"}
    columns = [c for c in ledger.columns if c not in fixed and not c.startswith("rec_")]
    return all(pd.api.types.is_float_dtype(ledger[c]) for c in columns)


def _interval_columns(frame: pd.DataFrame, columns: dict[str, str], digits: int = 3) -> pd.DataFrame:
    out = pd.DataFrame({"group": frame["group"]})
    for column, label in columns.items():
        values = zip(
            frame[f"{column}_mean"], frame[f"{column}_low"], frame[f"{column}_high"], frame[f"{column}_n"], strict=True
        )
        out[label] = [_interval_text(m, lo, hi, k, digits) for m, lo, hi, k in values]
    return out


def _interval_text(mean: float, low: float, high: float, n: int, digits: int) -> str:
    if not np.isfinite(mean):
        return "n/a"
    if n <= 1:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _pooled_table(pooled: pd.DataFrame) -> pd.DataFrame:
    return _interval_columns(pooled, {"etr": "ETR (pooled)", "ttr": "TTR (pooled)", "retr": "rETR", "dttr": "dTTR"})


def _counts_table(counts: pd.DataFrame) -> pd.DataFrame:
    labels = {
        "entered": "entered",
        "selected_on_entry": "on entry",
        "recourse": "recourse",
        "censored": "censored",
        "gave_up": "gave up",
        "never_successful": "never successful",
    }
    return _interval_columns(counts, labels, digits=1)


def _selection_table(step_frame: pd.DataFrame, reference: str) -> pd.DataFrame:
    totals = step_frame.groupby(["seed", "group"], observed=True)[["n_selected", "n_scored"]].sum().reset_index()
    totals["rate"] = totals["n_selected"] / totals["n_scored"].where(totals["n_scored"] > 0)
    ref = totals.loc[totals["group"] == reference, ["seed", "rate"]].rename(columns={"rate": "ref"})
    totals = totals.merge(ref, on="seed")
    totals["ratio"] = totals["rate"] / totals["ref"]
    totals["difference"] = totals["rate"] - totals["ref"]
    frame = aggregate.mean_ci(totals, ["group"], ["rate", "ratio", "difference"])
    return _interval_columns(
        frame,
        {
            "rate": "selection rate (all steps)",
            "ratio": f"ratio to {reference}",
            "difference": f"difference to {reference}",
        },
    )


def figures_dir_for(output: Path) -> Path:
    """Where the figure files of the report at ``output`` go: ``<stem>_figures`` next to it."""
    return output.with_name(f"{output.stem}_figures")


def write_report(results_dir: str | Path, output: str | Path, fmt: str = "html") -> tuple[Path, Path, Report]:
    """Read ``results_dir``, build the report and write it to ``output`` with its PNG/SVG figures.

    Nothing is written until the report is built; the figures go through a temporary directory
    and the document through a temporary file, each moved into place only when complete.

    Args:
        results_dir: A results directory (see :func:`~recoursesim.report.results.load_results`).
        output: The report file.
        fmt: ``"html"`` (one self-contained file) or ``"md"`` (Markdown linking the PNGs).

    Returns:
        ``(output, figures directory, report)``.

    Raises:
        ConfigError: A bad results directory, format or output path.
    """
    if fmt not in ("html", "md"):
        raise ConfigError("--format", f"unknown {fmt!r}", "use html or md")
    output = Path(output)
    if output.exists() and output.is_dir():
        raise ConfigError("--html", f"{output} is a directory", "give a file path such as report.html")
    if not output.resolve().parent.exists():
        raise ConfigError("--html", f"the directory of {output} does not exist", "create it or choose another path")
    figures_dir = figures_dir_for(output)
    if figures_dir.exists() and not figures_dir.is_dir():
        raise ConfigError("--html", f"{figures_dir} (for the figures) is a file", "move it or choose another path")
    report = build_report(load_results(results_dir))
    text = to_html(report) if fmt == "html" else to_markdown(report, figures_dir.name)
    tmp = Path(tempfile.mkdtemp(prefix=f".{figures_dir.name}.tmp-", dir=figures_dir.resolve().parent))
    try:
        for figure in report.figures:
            (tmp / f"{figure.name}.png").write_bytes(figure.png())
            (tmp / f"{figure.name}.svg").write_bytes(figure.svg())
        figures_dir.mkdir(exist_ok=True)
        for item in sorted(tmp.iterdir()):
            os.replace(item, figures_dir / item.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    partial = output.with_name(f".{output.name}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, output)
    return output, figures_dir, report
