"""The shift-dynamics experiment: domain shift, model shift and gaming over time, per world, generator and retraining.

Used by ``experiments/shift_dynamics.py``; docs/shift.md describes the metrics.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from joblib import Parallel, delayed
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator

from recoursesim.errors import RecourseSimError
from recoursesim.registry import names
from recoursesim.report.aggregate import mean_ci
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
    frames = Parallel(n_jobs=workers)(delayed(run_condition)(c, s) for c, s in jobs)
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
