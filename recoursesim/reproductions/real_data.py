"""Recourse dynamics on real data: each real-data scenario under top-k, CNS and CDA, across seeds.

Used by ``experiments/real_data_dynamics.py``. Each bundled real-data scenario is run under three
policies with the same ``k`` places per step:

- ``top-k``: the ``k`` best scores win (the group is ignored);
- ``CNS``: circumstance-normalised selection, the ``k`` places split across groups in proportion
  to their size, top scores winning within each group;
- ``CDA``: top-k, with the decision model refitted every step on the scored population plus
  favourable counterfactuals (the recommendations of rejected agents).

For every run the pooled per-group rETR and dTTR (docs/model.md) are computed from the ledger;
the table gives their mean and 95% Student-t interval across seeds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pandas as pd

from recoursesim.cli._common import Parser, positive_int, two_or_more
from recoursesim.output import atomic_output_dir
from recoursesim.report.aggregate import interval_texts, mean_ci
from recoursesim.report.document import pipe_table
from recoursesim.reproductions.parallel import parallel_map
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate

#: Real-data scenarios and the places per step each runs with under every policy.
SCENARIOS: dict[str, int] = {"german-credit-lending": 50, "adult-income-threshold": 200}

#: Policies in table order.
POLICIES: tuple[str, ...] = ("top-k", "CNS", "CDA")


@dataclass(frozen=True)
class Condition:
    """One scenario under one policy."""

    scenario: str
    policy: str
    overrides: dict[str, Any]


def conditions(scenarios: dict[str, int] | None = None) -> list[Condition]:
    """Every scenario under every policy (see the module docstring)."""
    out = []
    for name, k in (scenarios or SCENARIOS).items():
        model = Scenario.bundled(name).spec["scorer"].get("model", "logistic")
        top_k = {"selection": {"name": "top_k", "k": k}}
        out += [
            Condition(name, "top-k", top_k),
            Condition(name, "CNS", {"selection": {"name": "cns", "k": k}}),
            Condition(name, "CDA", {**top_k, "training": {"name": "cda", "estimator": model}}),
        ]
    return out


def run_condition(condition: Condition, seed: int, steps: int | None = None) -> pd.DataFrame:
    """Run one condition for one seed; return its per-group summary (``retr``, ``dttr``, ...)."""
    # the bundled scenario's auditors are left out: the experiment reads only the summaries
    scenario = Scenario.bundled(condition.scenario).with_overrides({**condition.overrides, "observers": []})
    result = simulate(scenario, seed, steps=steps)
    summary = result.summary.copy()
    summary.insert(0, "seed", seed)
    summary.insert(0, "policy", condition.policy)
    summary.insert(0, "scenario", condition.scenario)
    return summary


def run(conditions_: list[Condition], seeds: int, workers: int = 1, steps: int | None = None) -> pd.DataFrame:
    """Every condition for seeds ``0 … seeds-1`` (in ``workers`` processes); the stacked summaries."""
    jobs = [(c, s) for c in conditions_ for s in range(seeds)]
    frames = parallel_map(run_condition, [(c, s, steps) for c, s in jobs], workers)
    return pd.concat(frames, ignore_index=True)


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% CI across seeds of rETR, dTTR, ETR and TTR per scenario, policy and group."""
    keys = ["scenario", "policy", "group"]
    columns = [c for c in ("retr", "dttr", "etr", "ttr") if c in rows]
    return mean_ci(rows.astype({"group": str}), keys, columns)


def table(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario, policy and group: ``mean [low, high]`` of rETR and dTTR."""
    out = summary[["scenario", "policy", "group"]].copy()
    for name, label in (("retr", "rETR"), ("dttr", "dTTR")):
        out[label] = interval_texts(summary, name)
    order = {p: i for i, p in enumerate(POLICIES)}
    return out.sort_values(["scenario", "policy", "group"], key=lambda s: s.map(order) if s.name == "policy" else s)


def main(argv: list[str] | None = None) -> int:
    """Run ``experiments/real_data_dynamics.py``: every scenario under every policy; print and write the table."""
    parser = Parser(
        description="Recourse dynamics on real data: German credit and Adult under top-k, CNS and CDA across seeds."
    )
    parser.add_argument("--seeds", type=two_or_more, default=30, help="seeds per condition (default 30)")
    parser.add_argument("--workers", type=positive_int, default=1, help="worker processes (default 1)")
    parser.add_argument("--steps", type=positive_int, default=None, help="override the scenarios' number of steps")
    parser.add_argument(
        "--scenarios",
        nargs="+",
        choices=list(SCENARIOS),
        default=list(SCENARIOS),
        help="scenarios to run (default: both)",
    )
    parser.add_argument("--out", default="results/real_data_dynamics", help="output directory")
    args = parser.parse_args(argv)
    chosen = {name: SCENARIOS[name] for name in args.scenarios}
    start = time.perf_counter()
    with atomic_output_dir(args.out, overwrite=True) as out:  # --out is checked before any run
        cells = conditions(chosen)
        rows = run(cells, args.seeds, args.workers, args.steps)
        result = table(summarise(rows))
        rows.to_csv(out / "runs.csv", index=False)
        result.to_csv(out / "table.csv", index=False)
        (out / "table.md").write_text(without_reference(result, rows) + "\n", encoding="utf-8")
    elapsed = time.perf_counter() - start
    print(result.to_string(index=False))
    print(f"\n{args.seeds} seeds x {len(cells)} conditions in {elapsed:.0f} s ({args.workers} workers)")
    return 0


def markdown_table(rows: pd.DataFrame, scenarios: list[str]) -> str:
    """The docs' table of the runs in ``rows`` of ``scenarios`` (see :func:`without_reference`).

    Args:
        rows: The runs' rows (``runs.csv``).
        scenarios: The scenarios shown.
    """
    rows = rows[rows["scenario"].isin(scenarios)]
    return without_reference(table(summarise(rows)), rows)


def without_reference(result: pd.DataFrame, rows: pd.DataFrame) -> str:
    """:func:`table`'s ``result`` as Markdown, without each scenario's reference group (rETR 1, dTTR 0 by definition).

    Args:
        result: The table of the runs in ``rows``.
        rows: The runs' rows: a reference group is one whose rETR is 1 in every run.
    """
    rows = rows.astype({"group": str})
    ones = rows.groupby(["scenario", "group"])["retr"].agg(lambda v: bool((v == 1.0).all()))
    reference = {key for key, is_one in ones.items() if is_one}
    keep = [(s, g) not in reference for s, g in zip(result["scenario"], result["group"], strict=True)]
    return pipe_table(result[keep].reset_index(drop=True))
