"""Policies side by side: a sweep over scenarios on shared seeds, per-group metrics with CIs, paired differences.

```python
from recoursesim.compare import compare_policies
from recoursesim.scenario import load_scenario

comparison = compare_policies([load_scenario("bell2024-baseline"), load_scenario("bell2024-cns")], n_seeds=20)
comparison.table        # mean and 95% CI per (policy, group, metric)
comparison.differences  # each policy minus the first, paired over the shared seeds: CI, p-value
```

A comparison is a sweep (:mod:`recoursesim.sweep`) whose grid points are the policies: seed ``i``
of every policy is the ``i``-th child of ``SeedSequence(root_seed)``, exactly as in
``recoursesim sweep``, so a policy's runs here are the runs a sweep of that scenario with the same
root seed makes. Shared seeds make the runs of two policies pairs, so differences are paired.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.stats import check_confidence, describe_groups, format_interval, paired_difference
from recoursesim.sweep import Executor, Point, SweepPlan, iter_point_results, run_sweep
from recoursesim.sweep.plan import check_seeds

#: Metrics compared, in display order: pooled per-group values of one run (see :func:`per_seed_metrics`).
METRICS: dict[str, str] = {
    "etr": "ETR (pooled effort to recourse)",
    "ttr": "TTR (pooled time to recourse)",
    "retr": "rETR (ETR ratio to the reference group)",
    "dttr": "dTTR (TTR difference to the reference group)",
    "selection_rate": "selection rate (selected / scored, all steps)",
    "recourse": "agents who reached recourse",
    "censored": "censored agents (still waiting at the end)",
}
#: Y-axis label (with units) of each metric's panel in :func:`comparison_figure`.
UNITS: dict[str, str] = {
    "etr": "effort per agent (scenario's measure)",
    "ttr": "steps",
    "retr": "ratio (1 = parity)",
    "dttr": "steps (0 = parity)",
    "selection_rate": "share of scored agents",
    "recourse": "agents per run",
    "censored": "agents per run",
}
#: The grid parameter that labels each policy's point in the comparison's sweep.
POLICY_PARAM = "policy"


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare_policies`.

    Attributes:
        policies: Policy labels, in the order given (the first is the baseline of the differences).
        per_seed: One row per (policy, seed, group, metric) with its ``value``; ``seed`` is the
            index of the spawned seed, shared by all policies.
        table: One row per (policy, group, metric): ``n`` (finite values), ``mean``, ``sd``,
            ``ci_low``, ``ci_high`` (Student-t interval across seeds, :mod:`recoursesim.stats`).
        differences: One row per (policy ≠ baseline, group, metric): ``baseline``, ``n_pairs``,
            ``difference`` (mean over seeds of policy − baseline), its paired ``ci_low``/``ci_high``,
            ``p_value`` (paired t-test) and ``exceeds_uncertainty`` (the interval excludes 0).
        confidence: Coverage of the intervals.
        root_seed: Root entropy of the shared seeds.
    """

    policies: tuple[str, ...]
    per_seed: pd.DataFrame
    table: pd.DataFrame
    differences: pd.DataFrame
    confidence: float
    root_seed: int = 0


def compare_policies(
    scenarios: Sequence[Scenario],
    n_seeds: int,
    *,
    labels: Sequence[str] | None = None,
    root_seed: int | None = None,
    executor: Executor | None = None,
    sweep_dir: str | Path | None = None,
    confidence: float = 0.95,
    progress: bool = False,
) -> Comparison:
    """Run every scenario on the same ``n_seeds`` spawned seeds (a sweep) and compare them.

    Args:
        scenarios: Two or more scenarios (policies).
        n_seeds: Seeds per scenario (at least 2, for an interval).
        labels: Policy labels (default: the scenarios' names; they must be distinct).
        root_seed: Root entropy of the seeds (default: the first scenario's ``run.seed``).
        executor: Where the runs execute (default: this process); see :func:`~recoursesim.sweep.make_executor`.
        sweep_dir: Keep the sweep (shards and manifest) in this new directory; default: a
            temporary directory, removed afterwards.
        confidence: Coverage of the intervals, in (0, 1).
        progress: Show the sweep's progress bar.

    Returns:
        The :class:`Comparison`.

    Raises:
        ConfigError: Fewer than two scenarios, fewer than two seeds, duplicate labels, a bad
            confidence, or a run that failed.
    """
    confidence = check_confidence(confidence)
    names = list(labels) if labels is not None else [s.name for s in scenarios]
    if root_seed is None:
        root_seed = scenarios[0].seed if scenarios else 0
    if len(scenarios) < 2:
        raise ConfigError("scenarios", f"need at least two to compare, got {len(scenarios)}", "give two or more")
    check_seeds(n_seeds, minimum=2)
    if len(names) != len(scenarios) or len(set(names)) != len(names):
        raise ConfigError("scenarios", f"policy labels are not distinct: {list(names)}", "give each its own name")
    points = tuple(Point({POLICY_PARAM: label}, scenario) for label, scenario in zip(names, scenarios, strict=True))
    plan = SweepPlan(points, n_seeds=n_seeds, root_seed=root_seed, per_step=True)
    if sweep_dir is not None:
        per_seed = _run(plan, Path(sweep_dir), executor, progress)
    else:
        with tempfile.TemporaryDirectory(prefix="recoursesim-compare-") as tmp:
            per_seed = _run(plan, Path(tmp) / "sweep", executor, progress)
    table = _ordered(describe_groups(per_seed, ["policy", "group", "metric"], "value", confidence), names)
    differences = _differences(per_seed, names, confidence)
    return Comparison(tuple(names), per_seed, table, differences, confidence, root_seed)


def per_seed_metrics(rows: pd.DataFrame) -> pd.DataFrame:
    """One sweep point's shard rows → the compared metrics, one row per (seed, group, metric).

    The pooled rows (``step`` null) give every metric but the selection rate, which is the
    run's selected over scored agents summed over its steps.
    """
    pooled = rows.loc[rows["step"].isna() & rows["metric"].isin(list(METRICS))]
    per_step = rows.loc[rows["step"].notna() & rows["metric"].isin(["n_scored", "n_selected"])]
    totals = per_step.pivot_table(index=["seed_index", "group"], columns="metric", values="value", aggfunc="sum")
    scored = totals["n_scored"].where(totals["n_scored"] > 0)
    rate = (totals["n_selected"] / scored).rename("value").reset_index().assign(metric="selection_rate")
    frame = pd.concat([pooled[["seed_index", "group", "metric", "value"]], rate], ignore_index=True)
    return frame.rename(columns={"seed_index": "seed"})


def _run(plan: SweepPlan, directory: Path, executor: Executor | None, progress: bool) -> pd.DataFrame:
    report = run_sweep(plan, directory, executor=executor, progress=progress)
    if report.failures:
        failure = report.failures[0]
        raise ConfigError(
            "scenarios",
            f"{len(report.failures)} run(s) failed, first: policy {failure['params']} seed {failure['seed_index']}: "
            f"{failure['error']}",
            "fix the scenario (run it alone with `recoursesim run` to see the traceback)",
        )
    frames = [
        per_seed_metrics(rows).assign(policy=params[POLICY_PARAM]) for _, params, rows in iter_point_results(directory)
    ]
    per_seed = pd.concat(frames, ignore_index=True)[["policy", "seed", "group", "metric", "value"]]
    per_seed["seed"] = per_seed["seed"].astype("int64")
    return per_seed.sort_values(["policy", "seed", "group", "metric"], ignore_index=True)


def _ordered(frame: pd.DataFrame, policies: Sequence[str]) -> pd.DataFrame:
    frame = frame.copy()
    frame["policy"] = pd.Categorical(frame["policy"], categories=list(policies))
    frame["metric"] = pd.Categorical(frame["metric"], categories=list(METRICS))
    groups = list(dict.fromkeys(frame["group"]))
    frame["group"] = pd.Categorical(frame["group"], categories=groups)
    frame = frame.sort_values(["metric", "group", "policy"], ignore_index=True)
    for column in ("policy", "metric", "group"):
        frame[column] = frame[column].astype(str)
    return frame


def _differences(per_seed: pd.DataFrame, policies: Sequence[str], confidence: float) -> pd.DataFrame:
    baseline = policies[0]
    wide = per_seed.pivot_table(index=["group", "metric", "seed"], columns="policy", values="value", dropna=False)
    rows = []
    for policy in policies[1:]:
        for (group, metric), pairs in wide.groupby(level=["group", "metric"], sort=False):
            result = paired_difference(pairs[baseline].to_numpy(), pairs[policy].to_numpy(), confidence)
            rows.append(
                {
                    "policy": policy,
                    "baseline": baseline,
                    "group": group,
                    "metric": metric,
                    "n_pairs": result.n,
                    "difference": result.difference,
                    "ci_low": result.low,
                    "ci_high": result.high,
                    "p_value": result.p_value,
                    "exceeds_uncertainty": result.excludes_zero,
                }
            )
    return _ordered(pd.DataFrame(rows), policies)


def format_comparison(comparison: Comparison) -> str:
    """Render the comparison as a plain-text table: one line per (metric, group), one column per policy."""
    level = round(comparison.confidence * 100)
    table = comparison.table.set_index(["metric", "group", "policy"])
    differences = comparison.differences.set_index(["metric", "group", "policy"])
    baseline = comparison.policies[0]
    n_seeds = comparison.per_seed["seed"].nunique()
    lines = [
        f"{len(comparison.policies)} policies × {n_seeds} shared seeds (root seed {comparison.root_seed}) · "
        f"mean [{level}% CI across seeds]",
        f"Δ = policy − {baseline}, paired by seed, mean [{level}% CI]; * = the CI of Δ excludes 0",
        "",
    ]
    rows = []
    for metric in METRICS:
        for group in dict.fromkeys(comparison.table["group"]):
            row = {"metric": metric, "group": group}
            for policy in comparison.policies:
                key = (metric, group, policy)
                row[policy] = _interval(table.loc[key]) if key in table.index else "n/a"
                if policy != baseline and key in differences.index:
                    d = differences.loc[key]
                    mark = " *" if d["exceeds_uncertainty"] else ""
                    row[f"Δ {policy}"] = (
                        "n/a"
                        if not np.isfinite(d["difference"])
                        else f"{d['difference']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]{mark}"
                    )
            rows.append(row)
    lines.append(pd.DataFrame(rows).to_string(index=False))
    return "\n".join(lines)


def _interval(row: pd.Series) -> str:
    return format_interval(row["mean"], row["ci_low"], row["ci_high"], int(row["n"]))


def comparison_figure(comparison: Comparison) -> Figure:
    """One panel per metric: each policy's mean per group with its CI as an error bar."""
    metrics = list(METRICS)
    columns = 4
    rows = int(np.ceil(len(metrics) / columns))
    fig = Figure(figsize=(4.0 * columns, 3.4 * rows), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    groups = list(dict.fromkeys(comparison.table["group"]))
    width = 0.8 / len(comparison.policies)
    for ax, metric in zip(axes, metrics, strict=False):
        mine = comparison.table.loc[comparison.table["metric"] == metric].set_index(["group", "policy"])
        for i, policy in enumerate(comparison.policies):
            x = np.arange(len(groups)) - 0.4 + width * (i + 0.5)
            cells = mine.reindex([(g, policy) for g in groups])
            means, low, high = (cells[c].to_numpy(dtype=float) for c in ("mean", "ci_low", "ci_high"))
            errors = np.vstack([means - low, high - means])
            ax.bar(x, means, width=width * 0.9, label=policy, alpha=0.8)
            ax.errorbar(x, means, yerr=np.nan_to_num(errors), fmt="none", ecolor="black", capsize=3)
        if metric == "retr":
            ax.axhspan(0.8, 1.25, color="grey", alpha=0.2)
        ax.set_xticks(np.arange(len(groups)), groups, fontsize=8)
        ax.set_title(METRICS[metric], fontsize=9)
        ax.set_ylabel(UNITS[metric], fontsize=8)
    for ax in axes[len(metrics) :]:
        ax.set_axis_off()
    axes[0].legend(fontsize=8)
    level = round(comparison.confidence * 100)
    fig.suptitle(f"policies compared: mean per group with {level}% CI across seeds")
    return fig
