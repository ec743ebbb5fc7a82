"""How long recommendations stay valid: scenarios x policies x generators, across seeds.

Used by ``experiments/recourse_durability.py``. Each scenario runs under three policies with the
scenario's own places per step (``k``, a number or a per-step schedule):

- ``top-k``: the ``k`` best scores win;
- ``CNS``: circumstance-normalised selection, places split across groups by size;
- ``CDA``: top-k with the model refitted every step on the population plus favourable
  counterfactuals (the rejected agents' recommendations);

and four generators: ``exact`` (the scenario's own: the exact L2 projection ``linear`` on the
synthetic worlds, ``auto`` on German credit), ``margin`` (90% validity at 3 steps) and
``worst_case`` (weights within 0.1, L2), each wrapping ``exact``. Per run and group: validity 1, 3
and 5 steps after issue, Kaplan–Meier survival, effort on expired recommendations, the mean cost of
a recommendation, rETR and dTTR (docs/durability.md). The table gives the mean and 95% Student-t
interval across seeds; ``extra cost`` is a generator's mean cost minus ``exact``'s in the same seeds.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.cli._common import Parser, positive_int, two_or_more
from recoursesim.durability import durability_summary, survival_by_group
from recoursesim.durability.fates import issued_recommendations
from recoursesim.errors import ConfigError
from recoursesim.output import atomic_output_dir, write_atomic
from recoursesim.report.aggregate import interval_texts, mean_ci
from recoursesim.report.document import pipe_table
from recoursesim.reproductions.parallel import parallel_map
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate

#: Scenarios by label: the scenario table each starts from.
SCENARIOS: dict[str, dict[str, Any]] = {
    "bell2024": {
        "base": "bell2024",
        "name": "bell2024-linear",
        "recourse": {"name": "linear", "action_set": {"lower": [-0.1, -0.1], "upper": [1.1, 1.1]}},
    },
    "rising-competition": {"base": "rising-competition"},
    "german-credit": {"base": "german-credit-lending", "observers": []},
    "german-credit-competition": {"base": "german-credit-competition", "observers": []},
}

POLICIES: tuple[str, ...] = ("top-k", "CNS", "CDA")
GENERATORS: tuple[str, ...] = ("exact", "margin", "worst_case")
HORIZONS: tuple[int, ...] = (1, 3, 5)


@dataclass(frozen=True)
class Condition:
    """One scenario under one policy with one generator."""

    scenario: str
    policy: str
    generator: str


def scenario_of(condition: Condition, steps: int | None = None) -> Scenario:
    """The scenario a condition runs."""
    spec = Scenario.from_dict(dict(SCENARIOS[condition.scenario])).spec
    k = spec["selection"]["k"]
    german = spec["population"].get("dataset") == "german"
    overrides: dict[str, Any] = {}
    if condition.policy == "CNS":
        overrides["selection"] = {"name": "cns", "k": k}
    elif condition.policy == "CDA":
        model = spec["scorer"].get("model", "logistic")
        estimator = {"estimator": model} if german else {"initial_threshold": 0.5}
        overrides["training"] = {"name": "cda", **estimator}
    base = dict(spec["recourse"])
    if condition.generator == "margin":
        overrides["recourse"] = {"name": "margin", "validity": 0.9, "horizon": 3, "base": base}
    elif condition.generator == "worst_case":
        overrides["recourse"] = {"name": "worst_case", "radius": 0.1, "n_models": 4, "base": base}
    if steps is not None:
        overrides["run"] = {**spec["run"], "steps": steps}
    return Scenario.from_dict({**spec, **overrides, "name": f"{condition.scenario}-{condition.policy}"})


def run_condition(condition: Condition, seed: int, steps: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One run: its per-group row (durability, cost, rETR, dTTR, run time) and its Kaplan–Meier tables."""
    start, cpu = time.perf_counter(), time.process_time()
    result = simulate(scenario_of(condition, steps), seed)
    fates = result.durability
    row = durability_summary(fates, HORIZONS).astype({"group": str})
    cost = recommendation_costs(result.model)
    if not cost.empty:
        row = row.merge(
            cost.groupby("group")["cost"].mean().rename("cost"), left_on="group", right_index=True, how="left"
        )
    summary = result.summary[["group", "retr", "dttr"]]
    row = row.merge(summary.astype({"group": str}), on="group", how="left")
    labels = {"scenario": condition.scenario, "policy": condition.policy, "generator": condition.generator}
    wall, cpu_time = time.perf_counter() - start, time.process_time() - cpu
    row = row.assign(seed=seed, wall_s=wall, cpu_s=cpu_time, **labels)
    curve = survival_by_group(fates).astype({"group": str}).assign(seed=seed, **labels)
    return row, curve


def recommendation_costs(model: Any) -> pd.DataFrame:
    """The cost (the generator's own cost model) of every recommendation that asks for a move, with its group.

    Read from the ledger in the model's own encoding, so mixed-type features are priced as the
    generator priced them.
    """
    issued = issued_recommendations(model)
    names = np.asarray(list(model.group_names), dtype=object)
    return pd.DataFrame(
        {"group": names[issued["group"]], "cost": np.asarray(model.recourse.cost(issued["move"]), dtype=float)}
    )


def _cached(
    condition: Condition, seed: int, steps: int | None, cache: Path | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`run_condition`, read from (or written to) ``cache`` when one is given."""
    if cache is None:
        return run_condition(condition, seed, steps)
    stem = cache / f"{condition.scenario}__{condition.policy}__{condition.generator}__{seed}"
    rows_file, curves_file = stem.with_suffix(".rows.csv"), stem.with_suffix(".curves.csv")
    if rows_file.exists() and curves_file.exists():
        return pd.read_csv(rows_file, dtype={"group": str}), pd.read_csv(curves_file, dtype={"group": str})
    rows, curves = run_condition(condition, seed, steps)
    for frame, path in ((curves, curves_file), (rows, rows_file)):  # rows last: their presence marks a whole run
        write_atomic(path, frame.to_csv(index=False).encode("utf-8"))
    return rows, curves


def run(
    conditions: list[Condition], seeds: int, workers: int, steps: int | None, cache: Path | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every condition for seeds ``0 … seeds-1``; the stacked rows and curves (runs in ``cache`` are reused)."""
    jobs = [(c, s) for c in conditions for s in range(seeds)]
    out = parallel_map(_cached, [(c, s, steps, cache) for c, s in jobs], workers)
    return pd.concat([r for r, _ in out], ignore_index=True), pd.concat([c for _, c in out], ignore_index=True)


def cached_runs(directories: list[Path]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The finished runs in ``directories`` (``--resume`` caches of earlier calls): their rows and curves.

    A run is finished when its ``.rows.csv`` is there (written after its curves). A condition and
    seed found in several directories is taken from the first.
    """
    rows, curves, seen = [], [], set()
    for directory in directories:
        for rows_file in sorted(directory.glob("*.rows.csv")):
            stem = rows_file.name.removesuffix(".rows.csv")
            curves_file = rows_file.with_name(stem + ".curves.csv")
            if stem in seen or not curves_file.exists():
                continue
            seen.add(stem)
            rows.append(pd.read_csv(rows_file, dtype={"group": str}))
            curves.append(pd.read_csv(curves_file, dtype={"group": str}))
    if not rows:
        return pd.DataFrame(), pd.DataFrame()
    return pd.concat(rows, ignore_index=True), pd.concat(curves, ignore_index=True)


def table(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95% CI per scenario, policy, generator and group (extra cost paired with ``exact`` by seed).

    Shares get percentile-bootstrap intervals (inside [0, 1]); costs, rETR and dTTR Student-t intervals.
    """
    keys = ["scenario", "policy", "generator", "group"]
    rows = rows.copy()
    if "cost" in rows:
        exact = rows[rows["generator"] == "exact"][["scenario", "policy", "group", "seed", "cost"]]
        rows = rows.merge(exact, on=["scenario", "policy", "group", "seed"], how="left", suffixes=("", "_exact"))
        rows["extra_cost"] = rows["cost"] - rows["cost_exact"]
    columns = {f"validity_{h}": f"valid h={h}" for h in HORIZONS} | {
        "extra_cost": "extra cost",
        "expired_effort_share": "effort on expired",
        "retr": "rETR",
        "dttr": "dTTR",
    }
    # Shares (validity, effort on expired) lie in [0, 1]: their intervals are the percentile
    # bootstrap's, which stays inside the range; the rest are Student-t intervals.
    bounded = [c for c in columns if c.startswith("validity_") or c == "expired_effort_share"]
    unbounded = [c for c in columns if c not in bounded]
    stats = mean_ci(rows, keys, bounded, method="bootstrap").merge(mean_ci(rows, keys, unbounded), on=keys)
    out = stats[keys].copy()
    out["seeds"] = out[keys].merge(rows.groupby(keys, as_index=False)["seed"].nunique(), on=keys, how="left")["seed"]
    for column, label in columns.items():
        out[label] = interval_texts(stats, column, 2)
    order = {name: i for i, name in enumerate((*SCENARIOS, *POLICIES, *GENERATORS))}
    return out.sort_values(keys, key=lambda s: s.map(order) if s.name != "group" else s, ignore_index=True)


def markdown_table(rows: pd.DataFrame, scenarios: list[str] | None = None) -> str:
    """The Markdown table of :func:`table` for the runs in ``rows`` (only ``scenarios``, if given)."""
    if scenarios is not None:
        rows = rows[rows["scenario"].isin(scenarios)]
    return pipe_table(table(rows))


def figure(curves: pd.DataFrame, path: Any) -> None:
    """Kaplan–Meier curves per group (line style) and generator (colour), one panel per scenario and policy.

    Each curve is the mean across seeds of the seeds' Kaplan–Meier estimates, drawn up to the last
    time every seed still follows some recommendation.
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    followed = curves[curves["at_risk"] > 0]
    km = mean_ci(followed, ["scenario", "policy", "generator", "group", "time"], ["survival"])
    # Average only where every seed still follows recommendations (a mean over fewer seeds jumps).
    lines = ["scenario", "policy", "generator", "group"]
    km = km[km["survival_n"] >= km.groupby(lines)["survival_n"].transform("max")]
    scenarios = [s for s in SCENARIOS if s in set(km["scenario"])]
    policies = [p for p in POLICIES if p in set(km["policy"])]
    fig = Figure(figsize=(3.4 * len(policies), 2.8 * len(scenarios) + 0.5), layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(scenarios), len(policies), squeeze=False))
    colours = dict(zip(GENERATORS, ("#1f77b4", "#ff7f0e", "#2ca02c"), strict=True))
    styles = ("-", "--", ":", "-.")
    for i, scenario in enumerate(scenarios):
        for j, policy in enumerate(policies):
            ax = axes[i, j]
            part = km[(km["scenario"] == scenario) & (km["policy"] == policy)]
            for g, group in enumerate(sorted(set(part["group"]))):
                for generator in GENERATORS:
                    line = part[(part["group"] == group) & (part["generator"] == generator)]
                    if not line.empty:
                        ax.step(line["time"], line["survival_mean"], where="post", color=colours[generator],
                                ls=styles[g % len(styles)], label=f"{generator}, {group}")  # fmt: skip
            ax.set_title(f"{scenario}, {policy}", fontsize=9)
            ax.set_ylim(-0.02, 1.02)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("steps since issue")
            ax.set_ylabel("still valid (KM)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    # Two legend columns per panel fit the width of the figure (six labels need three panels for one row).
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 2 * len(policies)), fontsize=7)
    title = "Recommendations still valid, per group and generator"
    fig.suptitle(
        f"{title}\n(Kaplan–Meier, mean across seeds)"
        if len(policies) < 3
        else f"{title} (Kaplan–Meier, mean across seeds)"
    )
    fig.savefig(path, dpi=100)


def write_outputs(directory: Any, rows: pd.DataFrame, curves: pd.DataFrame, scenarios: list[str]) -> pd.DataFrame:
    """Write runs, curves, table (CSV and Markdown) and figures into ``directory`` (replaced whole); return it."""
    with atomic_output_dir(directory, overwrite=True) as out:
        result = table(rows)
        rows.to_csv(out / "runs.csv", index=False)
        curves.to_csv(out / "survival.csv", index=False)
        result.to_csv(out / "table.csv", index=False)
        (out / "table.md").write_text(pipe_table(result) + "\n", encoding="utf-8")
        figure(curves, out / "survival.png")
        for scenario in scenarios:
            if scenario in set(curves["scenario"]):
                figure(curves[curves["scenario"] == scenario], out / f"survival-{scenario}.png")
    return result


def main(argv: list[str] | None = None) -> int:
    """Run ``experiments/recourse_durability.py``: print and write the table and the figures."""
    parser = Parser(description="Durability of recourse per group, policy and generator.")
    parser.add_argument("--seeds", type=two_or_more, default=30, help="seeds per condition (default 30)")
    parser.add_argument("--workers", type=positive_int, default=1, help="worker processes (default 1)")
    parser.add_argument("--steps", type=positive_int, default=None, help="override the scenarios' number of steps")
    parser.add_argument(
        "--scenarios", nargs="+", choices=list(SCENARIOS), default=list(SCENARIOS), help="scenarios (default: all four)"
    )
    parser.add_argument(
        "--policies", nargs="+", choices=list(POLICIES), default=list(POLICIES), help="policies (default: all three)"
    )
    parser.add_argument(
        "--generators",
        nargs="+",
        choices=list(GENERATORS),
        default=list(GENERATORS),
        help="generators (default: all three)",
    )
    parser.add_argument("--out", default="results/recourse_durability", help="output directory")
    parser.add_argument(
        "--resume", action="store_true",
        help="keep every finished run in OUT.runs/ and reuse the runs found there (an interrupted call resumes)",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="a smoke test: 2 seeds of 3 steps")
    parser.add_argument(
        "--from-runs", nargs="+", type=Path, metavar="DIR",
        help="run nothing: make the table and figures of the finished runs in these --resume directories",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.steps = 2, 3
    if args.from_runs:
        return _from_runs(args)
    if "exact" not in args.generators:
        args.generators = ["exact", *args.generators]  # extra cost is measured against it
    cache = None
    if args.resume:
        cache = Path(args.out).with_name(Path(args.out).name + ".runs")
        try:
            cache.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError("--resume", f"cannot create {cache} ({error.strerror})", "choose another --out") from None
    start, cpu = time.perf_counter(), time.process_time()
    conditions = [Condition(s, p, g) for s in args.scenarios for p in args.policies for g in args.generators]
    rows, curves = run(conditions, args.seeds, args.workers, args.steps, cache)
    result = write_outputs(args.out, rows, curves, args.scenarios)
    elapsed = time.perf_counter() - start
    per_run = _show(result, rows.drop_duplicates(["scenario", "policy", "generator", "seed"]), "scenario")
    load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"\n{args.seeds} seeds x {len(conditions)} conditions in {elapsed:.0f} s wall ({args.workers} workers; "
          f"driver CPU {time.process_time() - cpu:.0f} s); load average {load}")  # fmt: skip
    print(f"mean per run (when it ran; reused runs keep their first timing): {per_run}")
    return 0


def _from_runs(args: argparse.Namespace) -> int:
    """``--from-runs``: the table and figures of runs made before, with the seeds each condition has."""
    missing = [str(d) for d in args.from_runs if not d.is_dir()]
    if missing:
        raise ConfigError(
            "--from-runs", f"{missing[0]} is not a directory", "give the OUT.runs directory of a --resume call"
        )
    rows, curves = cached_runs(list(args.from_runs))
    keys = ["scenario", "policy", "generator"]
    if not rows.empty:
        chosen = rows["scenario"].isin(args.scenarios) & rows["policy"].isin(args.policies)
        rows = rows[chosen & rows["generator"].isin(args.generators)]
        curves = curves.merge(rows[keys].drop_duplicates(), on=keys)
    if rows.empty:
        fix = "give the OUT.runs directories of --resume calls with these --scenarios, --policies and --generators"
        raise ConfigError("--from-runs", "holds no finished run of the chosen conditions", fix)
    result = write_outputs(args.out, rows, curves, args.scenarios)
    runs = rows.drop_duplicates([*keys, "seed"])
    per_run = _show(result, runs, "generator")
    seeds = runs.groupby(keys, sort=False)["seed"].nunique()
    print("\nseeds per condition: " + "; ".join(f"{' '.join(k)} {n}" for k, n in seeds.items()))
    print(f"runs read from {', '.join(map(str, args.from_runs))}; mean time per run (when it ran): {per_run}")
    return 0


def _show(result: pd.DataFrame, runs: pd.DataFrame, by: str) -> str:
    """Print the table; return the mean wall and CPU time of the ``runs`` per value of ``by``, as text."""
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(result.to_string(index=False))
    return ", ".join(f"{name} {part['wall_s'].mean():.1f} s wall / {part['cpu_s'].mean():.1f} s CPU"
                     for name, part in runs.groupby(by, sort=False))  # fmt: skip
