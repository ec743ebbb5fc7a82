"""FACTS on the bundled data sets in the paper's setup: the audit's sizes, as the docs print them.

Usage: python -m recoursesim.reproductions.facts_figures

Each case splits its data set 70/30, fits the audited logistic model and audits the test set
(:func:`~recoursesim.auditors.facts.setup.paper_setup`) at the case's support. The table gives
what the audit found: the affected individuals per group, the subgroups common to both groups,
those paired with at least one valid action, the valid (subgroup, action) pairs and the budgets.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.auditors.facts import FactsAuditor, PaperSetup, paper_setup
from recoursesim.auditors.facts.auditor import FactsWarning
from recoursesim.report.document import pipe_table


@dataclass(frozen=True)
class Case:
    """One audit: a bundled data set, its protected attribute (the preset's) and the support."""

    data: str
    title: str
    protected: str
    support: float


CASES = (
    Case("german", "German credit", "sex", 0.2),
    Case("compas", "COMPAS", "race", 0.05),
    Case("adult", "Adult", "sex", 0.1),
    Case("adult", "Adult", "sex", 0.01),
    Case("adult", "Adult", "race", 0.01),
)
#: The cases also audited with the subset rule for candidate actions (``actions="subsets"``).
SUBSET_CASES = CASES[:3]


@dataclass(frozen=True)
class Figures:
    """What one audit found."""

    case: Case
    affected: dict[str, int]
    common_subgroups: int
    subgroups_with_actions: int
    valid_pairs: int
    merged_pairs: int
    budgets: tuple[float, ...]
    budget_rule: str


def audit(case: Case, actions: str = "same_features", setup: PaperSetup | None = None) -> Figures:
    """Run one case's audit and return its figures (a fallback budget rule's warning is recorded, not shown).

    Args:
        case: The case.
        actions: The rule for candidate actions.
        setup: The case's data set in the paper's setup, if already made (:func:`paper_setup`).
    """
    setup = paper_setup(case.data) if setup is None else setup
    auditor = FactsAuditor(min_support=case.support, actions=actions, config=setup.data.config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FactsWarning)
        auditor.fit(setup.X_test, setup.model, case.protected)
    summary, ev = auditor.summary_, auditor.evaluation_
    return Figures(
        case,
        dict(summary["affected_per_group"]),
        int(summary["common_subgroups"]),
        int(np.unique(ev.pair_subgroup).size),
        int(summary["valid_pairs"]),
        int(summary["merged_duplicate_pairs"]),
        tuple(float(b) for b in auditor.budgets_),
        str(summary["budget_rule"]),
    )


def _number(value: float) -> str:
    """A budget as printed: at most two decimals, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def markdown_table(figures: list[Figures]) -> str:
    """The docs' table of the audits' figures, one row per case."""
    rows = []
    for f in figures:
        groups = " / ".join(f"{n:,} {name}" for name, n in f.affected.items())
        budgets = ", ".join(_number(b) for b in f.budgets)
        if f.budget_rule == "valid_action_costs":
            budgets += " (fallback rule, with a warning)"
        rows.append(
            {
                "data set, protected, support": f"{f.case.title}, {f.case.protected}, {f.case.support:.0%}",
                "affected (group 0 / 1)": f"{sum(f.affected.values()):,} ({groups})",
                "common subgroups": f"{f.common_subgroups:,}",
                "subgroups with actions": f"{f.subgroups_with_actions:,}",
                "distinct valid pairs": f"{f.valid_pairs:,}",
                "budgets": budgets,
            }
        )
    return pipe_table(pd.DataFrame(rows))


def _listing(items: list[str]) -> str:
    """``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def subsets_sentence(figures: list[Figures]) -> str:
    """The docs' sentence on the subset rule: distinct pairs and merged repeats of each subset case."""
    pairs = _listing([f"{f.valid_pairs:,} ({f.case.title}, {f.case.support:.0%})" for f in figures])
    merged = _listing([f"{f.merged_pairs:,}" for f in figures])
    return f'With `actions="subsets"` the same runs have {pairs} distinct pairs after merging {merged} repeats.'


def all_figures() -> tuple[list[Figures], list[Figures]]:
    """Every case's figures under the paper's rule, and the subset cases' under the subset rule."""
    setups = {data: paper_setup(data) for data in dict.fromkeys(case.data for case in CASES)}
    paper = [audit(case, setup=setups[case.data]) for case in CASES]
    subsets = [audit(case, "subsets", setups[case.data]) for case in SUBSET_CASES]
    return paper, subsets


def main() -> int:
    """Print the table of every case and the subset rule's sentence."""
    paper, subsets = all_figures()
    print(markdown_table(paper))
    print()
    print(f"Merged repeats under the paper's rule: {[f.merged_pairs for f in paper]}")
    print(subsets_sentence(subsets))
    return 0


if __name__ == "__main__":
    from recoursesim.cli import guarded

    raise SystemExit(guarded(main))
