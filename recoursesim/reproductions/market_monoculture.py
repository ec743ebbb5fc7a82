"""Monoculture in a lending market: does one shared model shut the same people out everywhere?

The logic of ``experiments/market_monoculture.py``. Two real-data markets, each shrunk so that a
run takes well under a second:

- ``german-credit``: the bundled German credit scenario with a logistic model instead of
  gradient boosting; each lender grants its ``k = n / 20`` best-scored applications a step (top-k);
- ``adult``: the bundled Adult scenario (logistic model, each lender accepts a predicted
  probability of at least 0.5), training on 5% of the data instead of half, without its auditors.

Each is run with 1 to 5 lenders (``market.copies``), in a **monoculture** (every lender scores with
lender 0's model) and a **polyculture** (each lender fits its own model on a disjoint share of the
training rows), with applicants who apply to **all** lenders, to the one with the **best odds**, or
**sequentially** in order of odds until accepted (each application costing ``0.01`` effort). For
every run the market measures are pooled over the run (:func:`~recoursesim.metrics.market_table.market_summary`):
systemic exclusion, homogenization and recourse portability per group and for all groups, and the
market's dTTR (time to be selected by any lender, group against the reference group). The table
gives their mean and 95% interval across seeds (percentile bootstrap for the shares and the ratio,
Student-t for dTTR).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from recoursesim.cli._common import Parser, positive_int, two_or_more
from recoursesim.errors import ConfigError
from recoursesim.metrics.market import ALL
from recoursesim.metrics.market_ledger import MARKET
from recoursesim.metrics.market_table import market_summary
from recoursesim.output import atomic_output_dir
from recoursesim.report.aggregate import interval_texts
from recoursesim.report.document import pipe_table
from recoursesim.report.figures import COLOURS
from recoursesim.report.market import over_seeds
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate

#: Data set -> (bundled scenario, the reference group of dTTR).
DATASETS: dict[str, tuple[str, str]] = {
    "german-credit": ("german-credit-lending", "male"),
    "adult": ("adult-income-threshold", "Male"),
}
CULTURES: tuple[str, ...] = ("monoculture", "polyculture")
#: Choice policies in table order, with their parameters.
CHOICES: dict[str, dict[str, Any]] = {
    "all": {"name": "all"},
    "best-odds": {"name": "best-odds"},
    "sequential": {"name": "sequential", "cost": 0.01},
}
#: The measures kept per run and group, and their labels in the table.
MEASURES: dict[str, str] = {
    "systemic_exclusion": "systemic exclusion",
    "homogenization": "homogenization",
    "portability": "portability",
    "dttr": "dTTR",
}
#: Number of lenders of the docs' table.
TABLE_LENDERS = 3


@dataclass(frozen=True)
class Condition:
    """One market: a data set, a number of lenders, a culture and a choice policy."""

    dataset: str
    lenders: int
    culture: str
    choice: str


@dataclass(frozen=True)
class Sizes:
    """How big each run is: applicants at step 0 (entrants and top-k places are 1/20 of it) and steps."""

    initial: int = 100
    steps: int = 5


def conditions(datasets: list[str], max_lenders: int = 5) -> list[Condition]:
    """Every data set × 1 … ``max_lenders`` lenders × culture × choice policy."""
    return [
        Condition(dataset, lenders, culture, choice)
        for dataset in datasets
        for lenders in range(1, max_lenders + 1)
        for culture in CULTURES
        for choice in CHOICES
    ]


@functools.lru_cache(maxsize=64)
def scenario_of(condition: Condition, sizes: Sizes) -> Scenario:
    """The market scenario of ``condition`` at ``sizes`` (see the module docstring).

    Kept per condition: checking a scenario builds its population, which for Adult means encoding
    45,000 rows, and a condition's seeds all run the same scenario.
    """
    name, _ = DATASETS[condition.dataset]
    share = max(1, sizes.initial // 20)
    overrides: dict[str, Any] = {
        "run.steps": sizes.steps,
        "population.initial": sizes.initial,
        "population.entrants": share,
        "scorer": {"name": "model", "model": "logistic"},
        "recourse": {"name": "auto"},
        "market": {"choice": CHOICES[condition.choice], "culture": condition.culture, "copies": condition.lenders},
        "lenders": [{"name": "bank"}],
    }
    if condition.dataset == "german-credit":
        overrides["selection"] = {"name": "top_k", "k": share}
    else:
        overrides["population.train_fraction"] = 0.05
    spec = {key: value for key, value in Scenario.bundled(name).spec.items() if key != "observers"}
    return Scenario.from_dict(spec).with_overrides(overrides)  # auditors do not run in a market yet


def run_condition(condition: Condition, seed: int, sizes: Sizes) -> pd.DataFrame:
    """Run one market for one seed; one row per group (and ``all``) with the pooled market measures."""
    _, reference = DATASETS[condition.dataset]
    result = simulate(scenario_of(condition, sizes), seed)
    market = result.market
    if market is None:  # a scenario without [market] (cannot happen here): nothing to measure
        raise ConfigError("market", "the run has no market", "declare [market] and [[lenders]]")
    summary = market_summary(result.ledger, market, effort=result.scenario.effort_measure, reference_group=reference)
    mine = summary.loc[summary["lender"].astype(str) == MARKET]
    rows = pd.DataFrame(
        {
            "dataset": condition.dataset,
            "lenders": condition.lenders,
            "culture": condition.culture,
            "choice": condition.choice,
            "seed": seed,
            "group": mine["group"].astype(str).to_numpy(),
            "n_applicants": mine["n_applicants"].to_numpy(),
            "selection_rate": mine["selection_rate"].to_numpy(),
            "ttr": mine["ttr"].to_numpy(dtype=float),
            **{name: mine[name].to_numpy(dtype=float) for name in MEASURES},
        }
    )
    rows.loc[rows["group"] == ALL, "dttr"] = np.nan
    return rows


def run(cells: list[Condition], seeds: int, sizes: Sizes, progress: bool = True) -> pd.DataFrame:
    """Every condition for seeds ``0 … seeds-1``, one after the other (one core); the stacked rows."""
    frames = []
    started = time.perf_counter()
    for i, condition in enumerate(cells, start=1):
        frames += [run_condition(condition, seed, sizes) for seed in range(seeds)]
        if progress:
            print(f"{i}/{len(cells)} {condition} ({time.perf_counter() - started:.0f} s)", flush=True)
    return pd.concat(frames, ignore_index=True)


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% interval across seeds of every measure per data set, lenders, culture, choice and group."""
    keys = ["dataset", "lenders", "culture", "choice", "group"]
    return over_seeds(rows.astype({"group": str}), keys, list(MEASURES))


def markdown_table(rows: pd.DataFrame, datasets: list[str], lenders: int = TABLE_LENDERS) -> str:
    """The docs' table of one data set at ``lenders`` lenders: a row per choice, culture and group.

    Args:
        rows: The runs' rows (``runs.csv``).
        datasets: The data set shown (one name, as a list, as the docs' table markers give it).
        lenders: The number of lenders shown.
    """
    (dataset,) = datasets
    mine = rows.loc[(rows["dataset"] == dataset) & (rows["lenders"] == lenders)]
    summary = summarise(mine)
    order = {"choice": list(CHOICES), "culture": list(CULTURES)}
    order["group"] = [*sorted(g for g in summary["group"].unique() if g != ALL), ALL]
    summary = summary.sort_values(["choice", "culture", "group"], key=lambda s: s.map(order[str(s.name)].index))
    out = summary[["choice", "culture", "group"]].copy()
    for name, label in MEASURES.items():
        out[label] = interval_texts(summary, name)
    return pipe_table(out.reset_index(drop=True).fillna("n/a"))


def figure(rows: pd.DataFrame) -> Figure:
    """Systemic exclusion, homogenization and portability (all groups) against the number of lenders.

    One row of panels per data set; one line per choice policy and culture (monoculture solid,
    polyculture dashed), the mean across seeds with its 95% interval as error bars.
    """
    everyone = rows.loc[rows["group"] == ALL]
    summary = summarise(everyone)
    datasets = [d for d in DATASETS if d in set(summary["dataset"])]
    panels = [
        ("systemic_exclusion", "share of applicants", "Systemic exclusion"),
        ("homogenization", "observed / independent", "Homogenization"),
        ("portability", "share of (advice, other lender)", "Portability of advice"),
    ]
    fig = Figure(figsize=(13, 3.6 * len(datasets) + 0.6), layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(datasets), len(panels), squeeze=False))
    for r, dataset in enumerate(datasets):
        for c, (column, ylabel, title) in enumerate(panels):
            ax = axes[r, c]
            for i, choice in enumerate(CHOICES):
                for culture in CULTURES:
                    line = summary.loc[
                        (summary["dataset"] == dataset)
                        & (summary["choice"] == choice)
                        & (summary["culture"] == culture)
                    ].sort_values("lenders")
                    mean = line[f"{column}_mean"].to_numpy(dtype=float)
                    if not np.isfinite(mean).any():
                        continue
                    low = np.clip(mean - line[f"{column}_low"].to_numpy(dtype=float), 0, None)
                    high = np.clip(line[f"{column}_high"].to_numpy(dtype=float) - mean, 0, None)
                    offset = (i - 1) * 0.08 + (0.03 if culture == "polyculture" else -0.03)
                    ax.errorbar(
                        line["lenders"] + offset, mean, yerr=[np.nan_to_num(low), np.nan_to_num(high)],
                        fmt="o-" if culture == "monoculture" else "s--", markersize=3, capsize=2,
                        color=COLOURS[i], label=f"{choice}, {culture}",
                    )  # fmt: skip
            if column == "homogenization":
                ax.axhline(1.0, color="grey", lw=0.8, ls=":")
                ax.set_ylim(bottom=0)
            else:
                ax.set_ylim(-0.02, 1.02)
            ax.set_title(f"{dataset}: {title}", fontsize=10)
            ax.set_xlabel("number of lenders")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylabel(ylabel)
    axes[0, 0].legend(fontsize=7)
    n_seeds = int(everyone["seed"].nunique())
    fig.suptitle(f"Monoculture and polyculture markets (all groups; mean over {n_seeds} seeds, 95% CI)", fontsize=11)
    return fig


def main(argv: list[str] | None = None) -> int:
    """Run ``experiments/market_monoculture.py``: every market for every seed; print and write the table."""
    parser = Parser(description="Monoculture vs polyculture lending markets on German credit and Adult, 1-5 lenders.")
    parser.add_argument("--seeds", type=two_or_more, default=30, help="seeds per condition (default 30)")
    parser.add_argument(
        "--initial", type=positive_int, default=Sizes.initial, help="applicants at step 0 (default 100)"
    )
    parser.add_argument("--steps", type=positive_int, default=Sizes.steps, help="steps T (default 5)")
    parser.add_argument("--max-lenders", type=positive_int, default=5, help="lenders 1 … N (default 5)")
    parser.add_argument(
        "--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS), help="data sets (default: both)"
    )
    parser.add_argument("--out", default="results/market_monoculture", help="output directory")
    args = parser.parse_args(argv)
    sizes = Sizes(args.initial, args.steps)
    cells = conditions(args.datasets, args.max_lenders)
    start = time.perf_counter()
    with atomic_output_dir(args.out, overwrite=True) as out:  # --out is checked before any run
        rows = run(cells, args.seeds, sizes)
        rows.to_csv(out / "runs.csv", index=False)
        for dataset in args.datasets:
            lenders = min(TABLE_LENDERS, args.max_lenders)
            (out / f"table-{dataset}.md").write_text(markdown_table(rows, [dataset], lenders) + "\n", encoding="utf-8")
        figure(rows).savefig(out / "market_monoculture.png", dpi=110)
    elapsed = time.perf_counter() - start
    print(f"\n{args.seeds} seeds x {len(cells)} conditions in {elapsed:.0f} s")
    print(f"wrote {args.out}")
    return 0
