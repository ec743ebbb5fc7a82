"""The report's "Auditors over time" figure: FACTS, CCM and equality-of-effort metrics per step and group."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from recoursesim.report.figures import colour_of, step_axis

#: Auditor metrics shown first: CCM switch rates, equality-of-effort ACR/RD, FACTS top unfairness scores.
_PRIORITY = ("SR", "PSR", "NSR", "ACR", "RD", "top_score:")

#: Readable observer names (the built-in observers' default names).
_OBSERVERS = {"ccm": "CCM", "facts": "FACTS", "effort": "Equality of effort"}

#: Readable names of the metrics we know: exact names, or prefixes ending in ":" (FACTS kinds).
_NAMES = {
    "SR": "switch rate: decisions that flip when the group changes (SR)",
    "PSR": "rejected, accepted as the other group (PSR)",
    "NSR": "accepted, rejected as the other group (NSR)",
    "CMCC": "agreement of decisions across groups (CMCC)",
    "CP": "accepted in both groups (CP)",
    "CN": "rejected in both groups (CN)",
    "SP": "rejected, accepted as the other group (SP, count)",
    "SN": "accepted, rejected as the other group (SN, count)",
    "n": "agents audited",
    "ACR": "recourse cost ratio, group / everyone else (ACR)",
    "RD": "recourse rate difference, everyone else - group (RD)",
    "Phi_own": "mean recourse cost of the group (Φ own)",
    "Phi_other": "mean recourse cost of everyone else (Φ other)",
    "rho_own": "share of the group's rejected with recourse (ρ own)",
    "rho_other": "share of everyone else's rejected with recourse (ρ other)",
    "n_unfavourable": "rejected agents of the group",
    "ACR_q_mean": "mean ACR over neighbourhoods",
    "ACR_q_defined": "neighbourhoods where ACR is defined",
    "top_score:": "largest subgroup unfairness",
    "n_unfair:": "subgroups judged unfair",
    "n_subgroups": "subgroups audited",
}

#: Y-axis labels of the auditor metrics we know (by exact name, or by prefix ending in ":" or "_").
_UNITS = {
    "SR": "switch rate (share)",
    "PSR": "switch rate (share)",
    "NSR": "switch rate (share)",
    "CMCC": "correlation (1 = same decisions)",
    "CP": "agents (count)",
    "CN": "agents (count)",
    "SP": "agents (count)",
    "SN": "agents (count)",
    "n": "agents (count)",
    "n_unfavourable": "agents (count)",
    "ACR": "ratio (1 = equal effort)",
    "RD": "rate difference",
    "Phi_": "cost (range-normalised units)",
    "rho_": "share",
    "p_value": "p-value",
    "top_score:": "unfairness score",
    "n_": "count",
}

#: A FACTS budget parameter inside a metric's variant: ``[macro, c=0.666667]``.
_BUDGET = re.compile(r",?\s*c=[^,\]]+")


def auditor_figure(observations: pd.DataFrame, groups: list[str], max_panels: int = 8) -> Figure:
    """The per-step auditors' metrics over time, per group, averaged across seeds.

    CCM switch rates (SR, PSR, NSR), equality-of-effort ACR and RD and FACTS top unfairness
    scores come first; other metrics fill the remaining panels. FACTS budgets chosen anew at
    every audit (its default) differ from step to step: such metrics are drawn as one series,
    the worst value over the step's budgets.

    Args:
        observations: Stacked observations with ``seed, step, observer, group, metric, value``.
        groups: Group names (colours).
        max_panels: At most this many (observer, metric) panels.
    """
    finite = observations.loc[np.isfinite(observations["value"].astype(float))].copy()
    finite["group"] = finite["group"].map(lambda g: "all" if g is None or g is pd.NA or g != g else str(g))
    finite = merge_step_budgets(finite)
    keys = sorted(
        dict.fromkeys(zip(finite["observer"].astype(str), finite["metric"].astype(str), strict=True)),
        key=_auditor_priority,
    )[:max_panels]
    columns = min(4, max(len(keys), 1))
    rows = int(np.ceil(max(len(keys), 1) / columns))
    fig = Figure(figsize=(3.6 * columns, 3.0 * rows), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax, (observer, metric) in zip(axes, keys, strict=False):
        mine = finite.loc[(finite["observer"] == observer) & (finite["metric"] == metric)]
        means = mine.groupby(["group", "step"], observed=True)["value"].mean().reset_index()
        for group, line in means.groupby("group", sort=False):
            ax.plot(line["step"], line["value"], marker="o", markersize=3, color=colour_of(groups, group), label=group)
        ax.set_title(panel_title(observer, metric), fontsize=8)
        ax.set_ylabel(_auditor_unit(metric), fontsize=8)
        if "count" in _auditor_unit(metric):  # whole agents or subgroups: no 2.5 ticks
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        step_axis(ax)
        if len(finite):
            ax.set_xlim(float(finite["step"].min()) - 0.5, float(finite["step"].max()) + 0.5)
        ax.legend(fontsize=7)
    for ax in axes[len(keys) :]:
        ax.set_axis_off()
    fig.suptitle("Auditors over time (mean across seeds)")
    return fig


def merge_step_budgets(observations: pd.DataFrame) -> pd.DataFrame:
    """Merge metrics that differ only in a budget chosen per audit into one "worst budget" metric.

    A metric family (the metric name with its ``c=...`` removed) is merged when its budgets are
    not the same at every (seed, step): each (seed, step, observer, group) then keeps the
    largest value over its budgets. Budgets fixed by the user are left as separate metrics.
    """
    metric = observations["metric"].astype(str)
    budgeted = metric.str.contains(_BUDGET)
    if not budgeted.any():
        return observations
    family = metric.where(~budgeted, metric.str.replace(_BUDGET, "", regex=True))
    merged = []
    for name in family[budgeted].unique():
        rows = observations.loc[budgeted & (family == name)]
        per_audit = rows.groupby(["seed", "step"] if "seed" in rows else ["step"])["metric"].agg(frozenset)
        if per_audit.nunique() > 1:
            merged.append(name)
    if not merged:
        return observations
    out = observations.copy()
    change = budgeted & family.isin(merged)
    out.loc[change, "metric"] = family[change].str.replace("]", ", worst of the step's budgets]", regex=False)
    keys = [c for c in ("seed", "step", "observer", "group", "metric") if c in out]
    return out.groupby(keys, observed=True, dropna=False, sort=False)["value"].max().reset_index()


def panel_title(observer: str, metric: str) -> str:
    """A readable, wrapped panel title: ``facts``, ``top_score:equal_cost[macro, phi=0.3]`` -> ``FACTS: ...``."""
    kind, _, variant = metric.partition(":")
    who = _OBSERVERS.get(observer, observer)
    if variant:
        words = _NAMES.get(f"{kind}:", kind.replace("_", " "))
        tail = variant.replace("_", " ").replace("[", " (").replace("]", ")").replace("phi=", "ϕ=")
    else:
        words, tail = _NAMES.get(metric, metric.replace("_", " ")), ""
    return "\n".join(textwrap.wrap(f"{who}: {words}", 44) + textwrap.wrap(tail, 44))


def _auditor_unit(metric: str) -> str:
    for key, unit in _UNITS.items():
        if metric == key or (key[-1] in ":_" and metric.startswith(key)):
            return unit
    return "value"


def _auditor_priority(key: tuple[str, str]) -> tuple[int, str, str]:
    observer, metric = key
    rank = next((i for i, p in enumerate(_PRIORITY) if metric == p or (p.endswith(":") and metric.startswith(p))), 99)
    return (rank, observer, metric)
