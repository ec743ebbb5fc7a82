"""Comparative Subgroup Counterfactuals (CSC): one subgroup's recourse, group by group.

Rendered as plain text (like the paper's Figure 2), Markdown or HTML.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.auditor import FactsAuditor, MetricVariant
from recoursesim.auditors.facts.metrics import TOLERANCE
from recoursesim.errors import ConfigError


@dataclass(frozen=True)
class ShownAction:
    """One action line of a CSC."""

    label: str
    effectiveness: float
    cost: float


@dataclass(frozen=True)
class GroupRecourse:
    """One protected subgroup of a CSC."""

    name: str
    size: int
    coverage: float
    value: float
    actions: tuple[ShownAction, ...]


@dataclass(frozen=True)
class ComparativeCounterfactual:
    """A Comparative Subgroup Counterfactual for one subgroup and one metric variant."""

    subgroup: str
    metric: str
    groups: tuple[GroupRecourse, GroupRecourse]
    score: float
    rank: int | None
    bias_against: str | None
    note: str = ""

    def _verdict(self) -> str:
        if self.bias_against is None:
            return f"Fair with respect to {self.metric}."
        rank = f" (rank {self.rank})" if self.rank else ""
        return f"Bias against '{self.bias_against}' due to {self.metric}. Unfairness score = {_num(self.score)}{rank}."

    def to_text(self) -> str:
        """Render as plain text."""
        lines = [f"If {self.subgroup}:"]
        for group in self.groups:
            lines += ["", f"Protected Subgroup = '{group.name}', {group.coverage:.2%} covered ({group.size} people)"]
            lines += [f"  {line}" for line in _action_lines(group)]
            lines.append(f"  value: {_num(group.value)}")
        if self.note:
            lines += ["", self.note]
        lines += ["", self._verdict()]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """Render as Markdown."""
        lines = [f"**If** `{self.subgroup}`:", ""]
        for group in self.groups:
            lines.append(f"- Protected subgroup **{group.name}**, {group.coverage:.2%} covered ({group.size} people)")
            lines += [f"  - {line}" for line in _action_lines(group, markdown=True)]
            lines.append(f"  - value: {_num(group.value)}")
        if self.note:
            lines += ["", self.note]
        lines += ["", f"*{self._verdict()}*"]
        return "\n".join(lines)

    def to_html(self) -> str:
        """Render as an HTML fragment."""
        parts = [f"<div class='csc'><p><b>If</b> {html.escape(self.subgroup)}:</p>"]
        for group in self.groups:
            parts.append(
                f"<p>Protected subgroup <b>{html.escape(group.name)}</b>, "
                f"<span style='color:#1f5fbf'>{group.coverage:.2%} covered</span> ({group.size} people)</p><ul>"
            )
            parts += [f"<li>{html.escape(line)}</li>" for line in _action_lines(group)]
            parts.append(f"<li>value: {html.escape(_num(group.value))}</li></ul>")
        if self.note:
            parts.append(f"<p>{html.escape(self.note)}</p>")
        parts.append(f"<p><i>{html.escape(self._verdict())}</i></p></div>")
        return "\n".join(parts)


def _num(value: float) -> str:
    if math.isinf(value):
        return "inf"
    if math.isnan(value):
        return "-"
    return f"{value:.4g}"


def _action_lines(group: GroupRecourse, markdown: bool = False) -> list[str]:
    if not group.actions:
        return ["No recourses for this subgroup."]
    tick = "`" if markdown else ""
    return [
        f"Make {tick}{a.label}{tick} with effectiveness {a.effectiveness:.2%} (cost {_num(a.cost)})"
        for a in group.actions
    ]


def comparative_counterfactual(
    auditor: FactsAuditor, subgroup_id: int, key: str, max_actions: int = 5
) -> ComparativeCounterfactual:
    """Build the CSC of one subgroup under one metric variant of a fitted audit.

    The actions shown per group are those the metric looks at: for Equal Choice for Recourse and
    Equal Cost of Effectiveness the actions reaching ϕ (cheapest first); for Equal Effectiveness
    within Budget the actions within c (most effective first); otherwise the most effective
    actions. At most ``max_actions`` per group. Each distinct action appears once (actions with the
    same effect on the subgroup were merged) and is shown by its changes to the subgroup.

    Args:
        auditor: A fitted :class:`FactsAuditor`.
        subgroup_id: Index of the subgroup (the ``subgroup_id`` column).
        key: A metric variant key (the ``key`` column).
        max_actions: Actions listed per group.

    Raises:
        ConfigError: For an unknown subgroup id or key.
    """
    variants = {v.key: v for v in auditor.variants()}
    if key not in variants:
        raise ConfigError("metric", f"unknown metric key {key!r}", f"use one of {sorted(variants)}")
    n_subgroups = len(auditor.evaluation_.sizes)
    if not 0 <= subgroup_id < n_subgroups:
        raise ConfigError("subgroup_id", f"must be in [0, {n_subgroups}), got {subgroup_id}", "use a listed id")
    variant: MetricVariant = variants[key]
    row = auditor.ranking_[(auditor.ranking_["key"] == key) & (auditor.ranking_["subgroup_id"] == subgroup_id)].iloc[0]
    ev = auditor.evaluation_
    lo, hi = np.searchsorted(ev.pair_subgroup, [subgroup_id, subgroup_id + 1])
    cost = ev.pair_cost[lo:hi]
    groups = []
    for g in (0, 1):
        eff = ev.pair_hits[lo:hi, g] / ev.sizes[subgroup_id, g]
        if variant.metric in ("equal_choice_for_recourse", "equal_cost_of_effectiveness"):
            keep = np.flatnonzero(eff >= variant.parameter - TOLERANCE)
            keep = keep[np.lexsort((-eff[keep], cost[keep]))]
        elif variant.metric == "equal_effectiveness_within_budget":
            keep = np.flatnonzero(cost <= variant.parameter + TOLERANCE)
            keep = keep[np.lexsort((cost[keep], -eff[keep]))]
        else:
            keep = np.flatnonzero(eff > 0)
            keep = keep[np.lexsort((cost[keep], -eff[keep]))]
        shown = tuple(
            ShownAction(auditor.action_label(int(ev.pair_action[lo + i]), subgroup_id), float(eff[i]), float(cost[i]))
            for i in keep[:max_actions]
        )
        value = float(row[f"value_{g}"])
        groups.append(
            GroupRecourse(
                name=auditor.group_names_[g],
                size=int(ev.sizes[subgroup_id, g]),
                coverage=float(row[f"coverage_{g}"]),
                value=value,
                actions=shown,
            )
        )
    note = ""
    if variant.metric == "fair_effectiveness_cost_tradeoff":
        verdict = "fair" if bool(row["ks_fair"]) else "unfair"
        note = (
            f"KS statistic {_num(float(row['score']))}, critical value {_num(float(row['ks_critical']))} "
            f"at alpha = {auditor.alpha:g}: {verdict} by the α-rule."
        )
    bias = row["bias_against"]
    return ComparativeCounterfactual(
        subgroup=str(row["subgroup"]),
        metric=variant.title,
        groups=(groups[0], groups[1]),
        score=float(row["score"]),
        rank=None if pd.isna(row["rank"]) else int(row["rank"]),
        bias_against=None if pd.isna(bias) else str(bias),
        note=note,
    )
