"""Delayed impact with agents: the bundled FICO scenarios run under each lending criterion, with and without advice.

Runs ``fico-delayed-impact`` (refused applicants keep their score) and
``fico-delayed-impact-recourse`` (refused applicants act on recourse advice toward their group's
cut-off) under each of Liu et al.'s criteria, for a few seeds, and records per run, step and group:
the score distribution (mean and quartiles), the selection rate, the
defaults (share of the group defaulting that step) and their running total, the default burden;
and per run and group the pooled time and effort to the first loan (TTR, ETR) with dTTR and rETR
against the reference group. The expected-value iteration of
:mod:`recoursesim.reproductions.delayed_impact_over_time` is the mean-field limit of the runs
without advice; its mean score at ``T`` is printed beside theirs.

Usage:
    python experiments/delayed_impact_agents.py --out results/delayed_impact_agents --seeds 3
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim._validate import check_int
from recoursesim.cli._common import Parser, seed_count
from recoursesim.datasets.fico import load_fico
from recoursesim.output import atomic_output_dir
from recoursesim.report.document import pipe_table
from recoursesim.reproductions import delayed_impact_over_time
from recoursesim.reproductions.liu2018 import LABELS, STYLES, save_figure
from recoursesim.resources import check_memory
from recoursesim.scenario import load_scenario
from recoursesim.selection.lending import CRITERIA, Utility
from recoursesim.selection.outcome_curve import ScoreChange
from recoursesim.simulate import RunResult, simulate

#: The two variants: the bundled scenario each runs.
VARIANTS: dict[str, str] = {
    "no_advice": "fico-delayed-impact",
    "advice": "fico-delayed-impact-recourse",
}

#: How tables and figures name the variants.
VARIANTS_SHOWN: dict[str, str] = {"no_advice": "no advice", "advice": "recourse advice"}

#: The pooled per-group measures kept from each run's summary (to the first loan).
SUMMARY: tuple[str, ...] = ("entered", "selected_on_entry", "recourse", "censored", "ttr", "etr", "dttr", "retr")

#: Percentiles of the score distribution recorded per step and group.
PERCENTILES: tuple[int, ...] = (25, 50, 75)


def over_time(result: RunResult) -> pd.DataFrame:
    """Per step and group: the score distribution, the selection rate, defaults and the default burden."""
    ledger = result.ledger
    loans = result.model.loans
    frames = []
    for (step, group), rows in ledger.groupby(["step", "group"], observed=True, sort=True):
        score = rows["score"].to_numpy(dtype=float)
        mine = loans[(loans["step"] == step) & (loans["group"] == group)]
        frames.append(
            {
                "step": int(step),
                "group": str(group),
                "n": score.size,
                "mean_score": float(score.mean()),
                **{f"p{q}": float(np.percentile(score, q)) for q in PERCENTILES},
                "selection_rate": float(rows["selected"].mean()),
                "defaults": float((~mine["repaid"]).sum() / score.size),
                "utility": float(mine["utility"].sum() / score.size),
            }
        )
    table = pd.DataFrame(frames)
    table["default_burden"] = table.groupby("group")["defaults"].cumsum()
    return table


def run(seeds: int, n: int, steps: int, expected: pd.DataFrame) -> pd.DataFrame:
    """Every variant, criterion and seed with ``n`` applicants for ``steps`` steps.

    Args:
        seeds: Seeds ``0 … seeds − 1`` per variant and criterion.
        n: Applicants per run.
        steps: ``T``.
        expected: The expected-value iteration's rows (``criterion, step, group, mean_score``).

    Returns:
        One row per variant, criterion, seed, step and group (:func:`over_time`), with the run's
        pooled measures to the first loan (:data:`SUMMARY`, the same on every step) and the
        expected-value mean score (``expected_mean_score``).
    """
    parts = []
    for variant, name in VARIANTS.items():
        for criterion in CRITERIA:
            scenario = load_scenario(name).with_overrides(
                {"selection.criterion": criterion, "population.initial": n, "run.steps": steps}
            )
            for seed in range(seeds):
                result = simulate(scenario, seed)
                pooled = result.summary[["group", *SUMMARY]].assign(group=lambda f: f["group"].astype(str))
                part = over_time(result).merge(pooled, on="group", how="left")
                parts.append(part.assign(variant=variant, criterion=criterion, seed=seed))
    rows = pd.concat(parts, ignore_index=True)
    field = expected[["criterion", "step", "group", "mean_score"]].rename(columns={"mean_score": "expected_mean_score"})
    rows = rows.merge(field, on=["criterion", "step", "group"], how="left")
    first = ["variant", "criterion", "seed", "step", "group"]
    return rows[[*first, *(c for c in rows.columns if c not in first)]]


def markdown_table(rows: pd.DataFrame, variants: list[str]) -> str:
    """Per variant, criterion and group: mean score at 0, 1 and T (over seeds), default burden, TTR, dTTR, rETR."""
    rows = rows[rows["variant"].isin(variants)]
    last = int(rows["step"].max())
    keys = ["variant", "criterion", "group"]
    at_step = rows.groupby([*keys, "step"], sort=False)
    runs = rows[rows["step"] == last].groupby(keys, sort=False)
    lines = []
    for key, final in runs:
        variant, criterion, group = key
        score_last = final["mean_score"]
        lines.append(
            {
                "variant": VARIANTS_SHOWN[str(variant)],
                "criterion": LABELS[str(criterion)],
                "group": group,
                "mean score at 0": f"{at_step.get_group((*key, 0))['mean_score'].mean():.1f}",
                "at 1": f"{at_step.get_group((*key, 1))['mean_score'].mean():.1f}",
                f"at {last} (seed range)": f"{score_last.mean():.1f} ({score_last.min():.0f}–{score_last.max():.0f})",
                f"expected value at {last}": f"{final['expected_mean_score'].iloc[0]:.1f}"
                if variant == "no_advice"
                else "",
                f"default burden by {last}": f"{final['default_burden'].mean():.3f}",
                "first loans after a refusal (all seeds)": f"{final['recourse'].sum():.0f}",
                "TTR": _mean_or_dash(final["ttr"]),
                "dTTR": _mean_or_dash(final["dttr"]),
                "rETR": _mean_or_dash(final["retr"]),
            }
        )
    return pipe_table(pd.DataFrame(lines))


def _mean_or_dash(values: pd.Series) -> str:
    """The mean over the seeds where the measure is defined, with how many; ``–`` when none is."""
    defined = values.dropna()
    if defined.empty:
        return "–"
    return f"{defined.mean():.2f}" + (f" ({defined.size} seeds)" if defined.size < values.size else "")


def plot_scores(rows: pd.DataFrame, path: Path) -> None:
    """Mean score and default burden per group over time, one line per criterion and variant (mean over seeds)."""
    from matplotlib.figure import Figure

    mean = rows.groupby(["variant", "criterion", "group", "step"])[["mean_score", "default_burden"]].mean()
    groups = list(dict.fromkeys(rows["group"]))
    fig = Figure(figsize=(5.2 * len(groups), 6.6))
    axes = fig.subplots(2, len(groups), sharex=True, squeeze=False)
    for j, group in enumerate(groups):
        for variant, width in zip(VARIANTS, (1.0, 2.4), strict=True):
            for criterion in CRITERIA:
                line = mean.loc[(variant, criterion, group)]
                label = f"{LABELS[criterion]}, {VARIANTS_SHOWN[variant]}"
                style = {**STYLES[criterion], "lw": width, "alpha": 1.0 if width > 1 else 0.8}
                axes[0, j].plot(line.index, line["mean_score"], label=label, **style)
                axes[1, j].plot(line.index, line["default_burden"], label=label, **style)
    delayed_impact_over_time.label_score_panels(axes, groups, int(rows["step"].max()), "defaults per applicant")
    seeds = rows["seed"].nunique()
    title = f"Agents re-applying, FICO population, u₋/u₊ = −4 (thin: no advice, thick: advice; mean of {seeds} seeds)"
    save_figure(fig, axes[0, 0], title, path)


def plot_distribution(rows: pd.DataFrame, path: Path) -> None:
    """The score distribution over time: median and interquartile band, per criterion and group (seed 0)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    part = rows[rows["seed"] == 0]
    groups = list(dict.fromkeys(part["group"]))
    criteria = list(CRITERIA)
    fig = Figure(figsize=(3.4 * len(criteria), 3.0 * len(groups)))
    axes = fig.subplots(len(groups), len(criteria), sharex=True, sharey=True, squeeze=False)
    for i, group in enumerate(groups):
        for j, criterion in enumerate(criteria):
            ax = axes[i, j]
            for variant, colour in zip(VARIANTS, ("C0", "C1"), strict=True):
                line = part[(part["variant"] == variant) & (part["criterion"] == criterion) & (part["group"] == group)]
                ax.fill_between(line["step"], line["p25"], line["p75"], color=colour, alpha=0.15, lw=0)
                for edge in ("p25", "p75"):
                    ax.plot(line["step"], line[edge], color=colour, lw=0.7, ls=":")
                ax.plot(
                    line["step"],
                    line["p50"],
                    color=colour,
                    lw=1.8,
                    label=f"{VARIANTS_SHOWN[variant]}: median and quartiles",
                )
            ax.set_title(f"{LABELS[criterion]}, {group}", fontsize=9)
            ax.set_ylim(300, 850)
            ax.set_xlim(0, int(part["step"].max()))
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            if i == len(groups) - 1:
                ax.set_xlabel("step t")
        axes[i, 0].set_ylabel("score (FICO points)")
    save_figure(fig, axes[0, 0], "Score distribution per group over time (seed 0)", path)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the agent-based delayed-impact experiment; return the exit status."""
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("results/delayed_impact_agents"), help="output directory")
    parser.add_argument("--overwrite", action="store_true", help="replace an --out this command wrote before")
    parser.add_argument("--steps", type=int, default=20, help="T: steps after the first (default 20)")
    parser.add_argument("--seeds", type=seed_count, default=3, help="seeds 0 … n−1 per criterion and variant (3)")
    parser.add_argument("--applicants", type=int, default=5000, help="applicants per run (default 5000)")
    args = parser.parse_args(argv)
    steps = check_int("--steps", args.steps, minimum=1)
    applicants = check_int("--applicants", args.applicants, minimum=1)
    # each run keeps a few float64 columns per applicant and step, for 8 criterion-variant runs at a time
    check_memory(
        applicants * (steps + 1) * 8 * 16,
        f"{applicants:,} applicants x {steps + 1} steps",
        "give fewer --applicants",
        field="--applicants",
    )
    tables = load_fico(groups=["Black", "White"])  # the scenarios' groups
    expected = delayed_impact_over_time.run(tables, {"u-4": Utility().default}, ScoreChange(), steps)
    with atomic_output_dir(args.out, overwrite=args.overwrite) as tmp:
        rows = run(args.seeds, applicants, steps, expected[expected["setting"] == "u-4"])
        rows.to_csv(tmp / "delayed_impact_agents.csv", index=False)
        text = markdown_table(rows, list(VARIANTS))
        (tmp / "table.md").write_text(text + "\n", encoding="utf-8")
        plot_scores(rows, tmp / "scores.png")
        plot_distribution(rows, tmp / "distribution.png")
    print(text)
    print(f"wrote delayed_impact_agents.csv, table.md and the figures to {args.out}")
    return 0
