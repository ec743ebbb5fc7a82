"""Policies side by side: each scenario over the same seeds, per-group metrics with CIs, and their differences.

```python
from recoursesim.compare import compare_policies
from recoursesim.scenario import load_scenario

comparison = compare_policies([load_scenario("bell2024-baseline"), load_scenario("bell2024-cns")], n_seeds=20)
comparison.table        # mean and 95% CI per (policy, group, metric)
comparison.differences  # each policy minus the first: Welch CI, p-value, whether it exceeds its uncertainty
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import joblib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy import stats

from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate

#: Metrics compared, in display order: pooled per-group values of one run (see :func:`run_metrics`).
METRICS: dict[str, str] = {
    "etr": "ETR (pooled effort to recourse)",
    "ttr": "TTR (pooled time to recourse)",
    "retr": "rETR (ETR ratio to the reference group)",
    "dttr": "dTTR (TTR difference to the reference group)",
    "selection_rate": "selection rate (selected / scored, all steps)",
    "recourse": "agents who reached recourse",
    "censored": "censored agents (still waiting at the end)",
}


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare_policies`.

    Attributes:
        policies: Policy labels, in the order given (the first is the baseline of the differences).
        per_seed: One row per (policy, seed, group, metric) with its ``value``.
        table: One row per (policy, group, metric): ``n`` (finite values), ``mean``, ``sd``,
            ``ci_low``, ``ci_high`` (Student-t interval across seeds).
        differences: One row per (policy ≠ baseline, group, metric): ``baseline``, ``difference``
            (policy − baseline), its Welch ``ci_low``/``ci_high``, ``p_value`` (Welch's t-test) and
            ``exceeds_uncertainty`` (the interval excludes 0).
        confidence: Coverage of the intervals.
    """

    policies: tuple[str, ...]
    per_seed: pd.DataFrame
    table: pd.DataFrame
    differences: pd.DataFrame
    confidence: float


def run_metrics(scenario: Scenario, seed: int) -> pd.DataFrame:
    """Run one scenario for one seed; return its pooled per-group metrics as rows ``group, metric, value``."""
    result = simulate(scenario, seed)
    summary = result.summary.assign(group=lambda f: f["group"].astype(str)).set_index("group")
    metrics = result.metrics.assign(group=lambda f: f["group"].astype(str)).groupby("group", observed=True)
    scored = metrics["n_scored"].sum()
    selected = metrics["n_selected"].sum()
    summary["selection_rate"] = (selected / scored.where(scored > 0)).reindex(summary.index)
    for column in ("retr", "dttr"):
        if column not in summary:
            summary[column] = np.nan
    frame = summary[list(METRICS)].astype(float).reset_index()
    return frame.melt(id_vars="group", var_name="metric", value_name="value")


def compare_policies(
    scenarios: Sequence[Scenario],
    n_seeds: int,
    *,
    labels: Sequence[str] | None = None,
    first_seed: int = 0,
    workers: int = 1,
    confidence: float = 0.95,
) -> Comparison:
    """Run every scenario over seeds ``first_seed … first_seed + n_seeds − 1`` and compare them.

    Every policy sees the same seeds, so with the same population generator each seed gives every
    policy the same initial population; the intervals still treat the policies' runs as
    independent samples (Welch), which is conservative.

    Args:
        scenarios: Two or more scenarios (policies).
        n_seeds: Seeds per scenario (at least 2, for an interval).
        labels: Policy labels (default: the scenarios' names; they must be distinct).
        first_seed: The first seed.
        workers: Parallel processes (joblib); 1 runs in this process.
        confidence: Coverage of the intervals, in (0, 1).

    Returns:
        The :class:`Comparison`.

    Raises:
        ConfigError: Fewer than two scenarios, fewer than two seeds, duplicate labels or a bad confidence.
    """
    if len(scenarios) < 2:
        raise ConfigError("scenarios", f"need at least two to compare, got {len(scenarios)}", "give two or more")
    if n_seeds < 2:
        raise ConfigError("--seeds", f"must be at least 2 for a confidence interval, got {n_seeds}", "use --seeds 20")
    if not 0 < confidence < 1:
        raise ConfigError("confidence", f"must be in (0, 1), got {confidence}", "use 0.95")
    names = list(labels) if labels is not None else [s.name for s in scenarios]
    if len(set(names)) != len(names):
        raise ConfigError("scenarios", f"policy labels are not distinct: {names}", "give each scenario its own name")
    tasks = [
        (label, scenario, seed)
        for label, scenario in zip(names, scenarios, strict=True)
        for seed in range(first_seed, first_seed + n_seeds)
    ]
    if workers > 1:
        frames = joblib.Parallel(n_jobs=workers)(joblib.delayed(run_metrics)(s, seed) for _, s, seed in tasks)
    else:
        frames = [run_metrics(s, seed) for _, s, seed in tasks]
    per_seed = pd.concat(
        [frame.assign(policy=label, seed=seed) for (label, _, seed), frame in zip(tasks, frames, strict=True)],
        ignore_index=True,
    )[["policy", "seed", "group", "metric", "value"]]
    table = _table(per_seed, names, confidence)
    differences = _differences(per_seed, names, confidence)
    return Comparison(tuple(names), per_seed, table, differences, confidence)


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


def _table(per_seed: pd.DataFrame, policies: Sequence[str], confidence: float) -> pd.DataFrame:
    rows = []
    for (policy, group, metric), values in per_seed.groupby(["policy", "group", "metric"], sort=False)["value"]:
        finite = values.to_numpy(dtype=float)
        finite = finite[np.isfinite(finite)]
        n = finite.size
        mean = float(finite.mean()) if n else np.nan
        sd = float(finite.std(ddof=1)) if n > 1 else np.nan
        half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / np.sqrt(n)) if n > 1 else np.nan
        rows.append(
            {
                "policy": policy,
                "group": group,
                "metric": metric,
                "n": n,
                "mean": mean,
                "sd": sd,
                "ci_low": mean - half,
                "ci_high": mean + half,
            }
        )
    return _ordered(pd.DataFrame(rows), policies)


def welch_difference(a: np.ndarray, b: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float, float]:
    """Difference of means ``mean(b) − mean(a)`` with its Welch interval and two-sided p-value.

    Non-finite values are dropped. When both samples have zero variance the difference is exact:
    the interval is the point itself and the p-value is 1 if it is 0, else 0.

    Args:
        a: The baseline sample.
        b: The other sample.
        confidence: Coverage of the interval.

    Returns:
        ``(difference, ci_low, ci_high, p_value)``; all NaN when a sample has fewer than two values.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a = a[np.isfinite(a)]
    b = b[np.isfinite(b)]
    if a.size < 2 or b.size < 2:
        return (np.nan, np.nan, np.nan, np.nan)
    difference = float(b.mean() - a.mean())
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = float(np.sqrt(va + vb))
    if se == 0.0:
        return (difference, difference, difference, 1.0 if difference == 0.0 else 0.0)
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2, dof) * se)
    p_value = float(2 * stats.t.sf(abs(difference) / se, dof))
    return (difference, difference - half, difference + half, p_value)


def _differences(per_seed: pd.DataFrame, policies: Sequence[str], confidence: float) -> pd.DataFrame:
    baseline = policies[0]
    keyed = per_seed.set_index(["policy", "group", "metric"])["value"].sort_index()
    rows = []
    for policy in policies[1:]:
        for group in dict.fromkeys(per_seed["group"]):
            for metric in METRICS:
                try:
                    a = keyed.loc[(baseline, group, metric)].to_numpy()
                    b = keyed.loc[(policy, group, metric)].to_numpy()
                except KeyError:
                    continue
                difference, low, high, p_value = welch_difference(a, b, confidence)
                rows.append(
                    {
                        "policy": policy,
                        "baseline": baseline,
                        "group": group,
                        "metric": metric,
                        "difference": difference,
                        "ci_low": low,
                        "ci_high": high,
                        "p_value": p_value,
                        "exceeds_uncertainty": bool(np.isfinite(low) and (low > 0 or high < 0)),
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
        f"{len(comparison.policies)} policies × {n_seeds} seeds · mean [{level}% CI across seeds] · "
        f"Δ = policy − {baseline} with its Welch {level}% CI; * = the CI of Δ excludes 0",
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
    if not np.isfinite(row["mean"]):
        return "n/a"
    if not np.isfinite(row["ci_low"]):
        return f"{row['mean']:.3f}"
    return f"{row['mean']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"


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
            means = np.array([mine.loc[(g, policy), "mean"] if (g, policy) in mine.index else np.nan for g in groups])
            low = np.array([mine.loc[(g, policy), "ci_low"] if (g, policy) in mine.index else np.nan for g in groups])
            high = np.array([mine.loc[(g, policy), "ci_high"] if (g, policy) in mine.index else np.nan for g in groups])
            errors = np.vstack([means - low, high - means])
            ax.bar(x, means, width=width * 0.9, label=policy, alpha=0.8)
            ax.errorbar(x, means, yerr=np.nan_to_num(errors), fmt="none", ecolor="black", capsize=3)
        if metric == "retr":
            ax.axhspan(0.8, 1.25, color="grey", alpha=0.2)
        ax.set_xticks(np.arange(len(groups)), groups, fontsize=8)
        ax.set_title(METRICS[metric], fontsize=9)
    for ax in axes[len(metrics) :]:
        ax.set_axis_off()
    axes[0].legend(fontsize=8)
    level = round(comparison.confidence * 100)
    fig.suptitle(f"policies compared: mean per group with {level}% CI across seeds")
    return fig
