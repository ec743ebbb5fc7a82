"""The report's "Auditors over time" figure: FACTS, CCM and equality-of-effort metrics per step and group."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from recoursesim.auditors.too_few import TOO_FEW_ROWS
from recoursesim.report.figures import ci_note, colour_of, step_axis
from recoursesim.stats import bounded_interval

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

#: The range of each y-axis unit: a 95% t-band leaving it is replaced by a bootstrap band.
_RANGES = {
    "switch rate (share)": (0.0, 1.0),
    "share": (0.0, 1.0),
    "p-value": (0.0, 1.0),
    "correlation (1 = same decisions)": (-1.0, 1.0),
    "rate difference": (-1.0, 1.0),
    "agents (count)": (0.0, np.inf),
    "count": (0.0, np.inf),
    "ratio (1 = equal effort)": (0.0, np.inf),
    "cost (range-normalised units)": (0.0, np.inf),
    "unfairness score": (0.0, np.inf),
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
    flagged = finite["metric"].astype(str).str.startswith(TOO_FEW_ROWS)
    too_few = finite.loc[flagged & (finite["value"] > 0)].groupby("observer", observed=True)["step"].unique()
    finite = finite.loc[~flagged]
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
        lower, upper = _RANGES.get(_auditor_unit(metric), (-np.inf, np.inf))
        bands = seed_bands(mine, lower, upper)
        for group, line in bands.groupby("group", sort=False):
            colour = colour_of(groups, group)
            ax.plot(line["step"], line["mean"], marker="o", markersize=3, color=colour, label=group)
            ax.fill_between(line["step"], line["low"], line["high"], color=colour, alpha=0.2, linewidth=0)
        for step in too_few.get(observer, []):
            ax.axvspan(float(step) - 0.5, float(step) + 0.5, color="lightgrey", alpha=0.6, linewidth=0)
        if len(too_few.get(observer, [])):
            ax.axvspan(np.nan, np.nan, color="lightgrey", label="too few rows to audit")
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
    n_seeds = int(finite["seed"].nunique()) if "seed" in finite and len(finite) else 1
    fig.suptitle(f"Auditors over time ({ci_note(n_seeds)})")
    return fig


def seed_bands(rows: pd.DataFrame, lower: float = -np.inf, upper: float = np.inf) -> pd.DataFrame:
    """Per (group, step): the mean across seeds and its 95% band (``mean, low, high``; NaN band for one seed).

    The band is Student-t, or the percentile bootstrap where t leaves ``[lower, upper]``
    (:func:`recoursesim.stats.bounded_interval`).
    """
    out = []
    for (group, step), part in rows.groupby(["group", "step"], observed=True, sort=True):
        mean, low, high = bounded_interval(part["value"].to_numpy(dtype=float), lower, upper)
        out.append({"group": group, "step": step, "mean": mean, "low": low, "high": high})
    return pd.DataFrame(out, columns=["group", "step", "mean", "low", "high"])


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
