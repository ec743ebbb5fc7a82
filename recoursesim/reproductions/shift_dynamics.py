"""Shift dynamics: what acting on recourse does to the population, the model and the truth.

The logic of ``experiments/shift_dynamics.py``.

For each world (the synthetic bell2024 population; German credit when the dataset population and
the model-agnostic generators are installed), each registered recourse generator (the exact
linear one and search; on German credit also the data-manifold one) and each retraining setting (fixed
model; refit every step), runs SEEDS seeds of 20 steps and prints, at steps 0, 10 and 20, the mean
and 95% CI across seeds of: MMD² between the step-0 and the current population (and its
permutation p-value), the model's disagreement with the step-0 model and its parameter change,
the gaming rate and the precision of the selections (docs/shift.md). Writes the table (CSV), the
raw observations (Parquet) and one figure per world (PNG).

Usage:
    python experiments/shift_dynamics.py --seeds 30 --workers 2 --out results/shift_dynamics
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator

from recoursesim.cli._common import Parser, positive_int, two_or_more
from recoursesim.errors import ConfigError, RecourseSimError
from recoursesim.output import atomic_output_dir
from recoursesim.registry import names
from recoursesim.report.aggregate import mean_ci
from recoursesim.report.document import pipe_table
from recoursesim.reproductions.parallel import parallel_map
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate
from recoursesim.stats import format_interval

#: Steps at which the experiment reports (the observers run every 10 steps).
STEPS: tuple[int, ...] = (0, 10, 20)
#: (observer, metric, label) reported for everyone.
METRICS: tuple[tuple[str, str, str], ...] = (
    ("domain_shift", "mmd2", "MMD² to step 0"),
    ("domain_shift", "p_value", "MMD p-value"),
    ("model_shift", "disagreement", "disagreement with step-0 model"),
    ("model_shift", "param_change", "parameter change (L2)"),
    ("ground_truth", "gaming_rate", "gaming rate"),
    ("ground_truth", "improvement_rate", "improvement rate"),
    ("ground_truth", "precision", "precision of selections"),
)

#: The synthetic world: the paper's population (x0 is the latent qualification, x1 pure noise),
#: truly qualified iff scaled x0 >= 0.5 (between the low and the high performers); only x0 is causal.
SYNTHETIC: dict[str, Any] = {
    "preset": "bell2024",
    "run": {"steps": 20, "seed": 0},
    "population": {"name": "bell2024", "initial": 1000, "entrants": 100, "q": 2.0},
    "scorer": {"name": "linear", "weights": [0.5, 0.5]},
    "selection": {"name": "top_k", "k": 100},
    "behaviour": {"name": "bounded_effort"},
    "metrics": {"effort": "cost", "reference_group": "advantaged"},
}
SYNTHETIC_TRUTH: dict[str, Any] = {"outcome": "linear", "weights": {"x0": 1.0}, "cutoff": 0.5, "causal": ["x0"]}

#: Generators compared, when registered: the exact linear one and the score-only search. The
#: data-manifold generator is left out here: it recommends observed profiles of a data set's
#: training split, which a synthetic world does not have.
GENERATORS: dict[str, dict[str, Any]] = {
    "linear": {"name": "linear", "action_set": {"lower": [-0.1, -0.1], "upper": [1.1, 1.1]}},
    "search": {"name": "search"},
}
RETRAINING: dict[str, dict[str, Any] | None] = {
    "fixed model": None,
    "refit each step": {"name": "refit", "initial_threshold": 0.5},
}


#: German credit: applicants bootstrapped from the data set's applicant pool (sex as the group), a
#: one-hot logistic decision model (so the exact generator applies), top-k selection.
GERMAN: dict[str, Any] = {
    "run": {"steps": 20, "seed": 0},
    "population": {"name": "dataset", "dataset": "german", "group": "sex", "initial": 500, "entrants": 50},
    "scorer": {"name": "model", "model": "logistic"},
    "selection": {"name": "top_k", "k": 50},
    "behaviour": {"name": "bounded_effort"},
    "metrics": {"effort": "cost"},
}
#: German credit's ground truth (an assumption, documented in docs/shift.md): a logistic regression
#: fitted on all 1000 labelled rows; moving money, employment and loan terms changes the true
#: outcome, moving the stated purpose, housing, telephone, residence and other instalment plans only
#: changes the score.
GERMAN_TRUTH: dict[str, Any] = {
    "outcome": "fitted",
    "causal": [
        "status",
        "savings",
        "present_employment",
        "credit_amount",
        "duration",
        "installment_rate",
        "existing_credits",
        "property",
        "job",
        "other_debtors",
    ],
}
GERMAN_GENERATORS: dict[str, dict[str, Any]] = {
    "exact_linear": {"name": "exact_linear"},
    "search": {"name": "search"},
    "manifold": {"name": "manifold"},
}


def worlds() -> dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]]:
    """The worlds available in this installation: ``name -> (base spec, ground truth, generators)``.

    German credit needs the ``dataset`` population and at least one mixed-type generator.
    """
    out = {"synthetic": (SYNTHETIC, SYNTHETIC_TRUTH, GENERATORS)}
    generators = set(names("recourse"))
    if "dataset" in names("population") and generators & {g["name"] for g in GERMAN_GENERATORS.values()}:
        out["german"] = (GERMAN, GERMAN_TRUTH, GERMAN_GENERATORS)
    return out


@dataclass(frozen=True)
class Condition:
    """One cell of the experiment."""

    world: str
    generator: str
    retraining: str
    spec: dict[str, Any]


def observers(truth: dict[str, Any], permutations: int = 200) -> list[dict[str, Any]]:
    """The observer tables every condition runs (every 10 steps)."""
    return [
        {"name": "domain_shift", "every": 10, "permutations": permutations, "max_samples": 300},
        {"name": "model_shift", "every": 10, "reference_size": 500},
        {"name": "ground_truth", "every": 10, **truth},
    ]


def conditions(worlds: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]]) -> list[Condition]:
    """Every (world, generator, retraining) whose generator is registered.

    Args:
        worlds: ``name -> (base spec, ground-truth table, generator tables)``.
    """
    available = set(names("recourse"))
    out = []
    for world, (base, truth, generators) in worlds.items():
        for generator, table in generators.items():
            if table["name"] not in available:
                continue
            for retraining, trainer in RETRAINING.items():
                spec = copy.deepcopy(base) | {"recourse": table, "observers": observers(truth)}
                if trainer is not None:
                    spec["training"] = trainer
                out.append(Condition(world, generator, retraining, spec))
    return out


def run_condition(condition: Condition, seed: int) -> pd.DataFrame:
    """Run one condition for one seed; return its observations for everyone at :data:`STEPS`.

    A run the components refuse (for example an exact generator handed a model it cannot solve
    after retraining) gives one row with metric ``"failed"`` and the error as the observer name,
    so the experiment reports it instead of losing the other runs.
    """
    try:
        result = simulate(Scenario.from_dict(condition.spec), seed)
    except RecourseSimError as error:
        rows = pd.DataFrame(
            {"step": [-1], "observer": [str(error)], "group": [pd.NA], "metric": ["failed"], "value": [1.0]}
        )
    else:
        rows = result.model.observations
    rows = rows.loc[rows["group"].isna() & (rows["step"].isin(STEPS) | (rows["metric"] == "failed"))]
    return rows.assign(world=condition.world, generator=condition.generator, retraining=condition.retraining, seed=seed)


def failures(rows: pd.DataFrame) -> pd.DataFrame:
    """The failed runs: condition, seed and the error."""
    failed = rows.loc[rows["metric"] == "failed", ["world", "generator", "retraining", "seed", "observer"]]
    return failed.rename(columns={"observer": "error"}).reset_index(drop=True)


def run(conditions_: Sequence[Condition], seeds: int, workers: int = 1) -> pd.DataFrame:
    """All conditions × seeds (in ``workers`` processes); the stacked observations."""
    jobs = [(c, s) for c in conditions_ for s in range(seeds)]
    frames = parallel_map(run_condition, jobs, workers)
    return pd.concat(frames, ignore_index=True)


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% percentile-bootstrap interval across seeds of each reported metric per condition and step.

    Every metric reported is bounded (rates, a p-value and a disagreement in [0, 1]; MMD² and a
    parameter change at least 0), so the interval is a percentile bootstrap, which stays in range.
    """
    keys = ["world", "generator", "retraining", "step"]
    out = []
    rows = rows.loc[rows["metric"] != "failed"]
    for observer, metric, label in METRICS:
        mine = rows.loc[(rows["observer"] == observer) & (rows["metric"] == metric)]
        if mine.empty:
            continue
        summary = mean_ci(mine, keys, ["value"], method="bootstrap")
        summary.insert(len(keys), "metric", label)
        out.append(summary)
    frame = pd.concat(out, ignore_index=True)
    return frame.rename(columns=lambda c: c.removeprefix("value_"))


def wide_cells(summary: pd.DataFrame, index: list[str], columns: str) -> pd.DataFrame:
    """:func:`summarise`'s rows as ``mean [low, high]`` texts, a row per ``index`` key and a column per ``columns``."""
    cells = [
        format_interval(m, lo, hi, int(n))
        for m, lo, hi, n in summary[["mean", "low", "high", "n"]].itertuples(index=False)
    ]
    return summary.assign(cell=cells).pivot_table(index=index, columns=columns, values="cell", aggfunc="first")


def table(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per condition and metric, a ``mean [low, high]`` column per step."""
    wide = wide_cells(summary, ["world", "generator", "retraining", "metric"], "step")
    wide.columns = [f"step {c}" for c in wide.columns]
    return wide.reset_index()


def figure(summary: pd.DataFrame, world: str) -> Figure:
    """MMD², disagreement, gaming and improvement rate at steps 0, 10, 20 for one world, one line per condition."""
    shown = ["MMD² to step 0", "disagreement with step-0 model", "gaming rate", "improvement rate"]
    fig = Figure(figsize=(16, 3.8), layout="constrained")
    axes = fig.subplots(1, len(shown))
    mine = summary.loc[summary["world"] == world]
    for ax, metric in zip(axes, shown, strict=True):
        part = mine.loc[mine["metric"] == metric]
        for (generator, retraining), line in part.groupby(["generator", "retraining"], sort=True):
            line = line.sort_values("step")
            style = "-" if retraining == "fixed model" else "--"
            handle = ax.plot(line["step"], line["mean"], style, marker="o", label=f"{generator}, {retraining}")[0]
            ax.fill_between(line["step"], line["low"], line["high"], color=handle.get_color(), alpha=0.15, lw=0)
        ax.set_title(metric, fontsize=10)
        ax.set_xlabel("step t")
        ax.xaxis.set_major_locator(FixedLocator(list(STEPS)))
        ax.set_xlim(min(STEPS) - 1, max(STEPS) + 1)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("value (mean across seeds, 95% bootstrap CI)")
    n = int(mine["n"].max()) if not mine.empty else 0
    fig.suptitle(f"Shift dynamics, {world} ({n} seeds)", fontsize=11)
    return fig


#: The metrics of the docs' tables, in their column order (labels of :data:`METRICS`).
DOC_METRICS = (
    "MMD² to step 0",
    "disagreement with step-0 model",
    "gaming rate",
    "improvement rate",
    "precision of selections",
)


def main(argv: list[str] | None = None) -> int:
    """Run ``experiments/shift_dynamics.py``: every world, generator and retraining setting; print and write."""
    parser = Parser(
        description="Shift dynamics: what acting on recourse does to the population, the model and the truth."
    )
    parser.add_argument("--seeds", type=two_or_more, default=30, help="seeds per condition (default 30)")
    parser.add_argument("--workers", type=positive_int, default=1, help="worker processes (default 1)")
    parser.add_argument("--worlds", nargs="+", default=None, help="worlds to run (default: every available one)")
    parser.add_argument("--out", default="results/shift_dynamics", help="output directory")
    args = parser.parse_args(argv)
    chosen = worlds()
    if args.worlds:
        unknown = sorted(set(args.worlds) - set(chosen))
        if unknown:
            raise ConfigError("--worlds", f"unknown {', '.join(unknown)}", f"use some of {', '.join(sorted(chosen))}")
        chosen = {name: chosen[name] for name in args.worlds}
    cells = conditions(chosen)
    with atomic_output_dir(args.out, overwrite=True) as out:  # --out is checked before any run
        started = time.perf_counter()
        rows = run(cells, args.seeds, args.workers)
        elapsed = time.perf_counter() - started
        summary = summarise(rows)
        wide = table(summary)
        with pd.option_context("display.width", 200, "display.max_colwidth", 40, "display.max_rows", 500):
            print(wide.to_string(index=False))
        failed = failures(rows)
        if not failed.empty:
            print(f"{len(failed)} run(s) failed and are left out:")
            print(failed.to_string(index=False))
        print(f"{len(cells)} conditions x {args.seeds} seeds in {elapsed:.0f} s")
        rows.to_parquet(out / "observations.parquet", index=False)
        for world in sorted(summary["world"].unique()):
            text = summary_markdown(summary[summary["world"] == world])
            (out / f"table-{world}.md").write_text(text + "\n", encoding="utf-8")
        wide.to_csv(out / "shift_dynamics.csv", index=False)
        failed.to_csv(out / "failed_runs.csv", index=False)
        for world in sorted(summary["world"].unique()):
            figure(summary, world).savefig(out / f"shift_dynamics_{world}.png", dpi=110)
    print(f"wrote {args.out}")
    return 0


def markdown_table(rows: pd.DataFrame, worlds: list[str], steps: tuple[int, ...] = (10, 20)) -> str:
    """The docs' table of one world made from its runs' observations (see :func:`summary_markdown`).

    Args:
        rows: The observations of the runs (``observations.parquet``).
        worlds: The world to show (one name, as a list, as the docs' table markers give it).
        steps: The steps shown.
    """
    (world,) = worlds
    return summary_markdown(summarise(rows[rows["world"] == world]), steps)


def summary_markdown(summary: pd.DataFrame, steps: tuple[int, ...] = (10, 20)) -> str:
    """The docs' table of one world's :func:`summarise`: a row per generator, retraining and step.

    Args:
        summary: The summary of one world's runs.
        steps: The steps shown.
    """
    summary = summary[summary["step"].isin(steps) & summary["metric"].isin(DOC_METRICS)]
    wide = wide_cells(summary, ["generator", "retraining", "step"], "metric")
    wide = wide.reindex(columns=list(DOC_METRICS)).reset_index()
    return pipe_table(wide.astype({"step": str}).fillna("n/a"))
