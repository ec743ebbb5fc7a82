"""Liu et al.'s one-step delayed impact iterated for ``T`` steps on the FICO tables, in expectation.

Every applicant re-applies at every step. At each step the lender recomputes each criterion's
policy from the groups' *current* score distributions (the repayment probability at a score is
the group's published rate at the nearest table score, as in the one-step reproduction); a loan
is repaid with that probability, raising the score by ``c₊``, or defaults, lowering it by
``|c₋|``, each outcome's new score kept within 300–850; applicants turned down keep their score.
The distributions are followed exactly (a mean-field, expected-value calculation: no sampling,
hence no seeds): each group's mass sits on a finite set of scores, and a step moves each score's
lent mass to at most two new scores.

Per step, criterion and group it records the mean score, the selection rate, and the defaults
(share of the group defaulting that step) and their running total, the *default burden*.

Usage:
    python experiments/delayed_impact_over_time.py --out results/delayed_impact --steps 20
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim._validate import check_int
from recoursesim.cli._common import Parser
from recoursesim.datasets.fico import FicoTables, load_fico, nearest_repay
from recoursesim.output import atomic_output_dir
from recoursesim.report.document import pipe_table
from recoursesim.reproductions.liu2018 import LABELS, SETTINGS, STYLES, lending_groups, save_figure
from recoursesim.selection.lending import CRITERIA, LendingGroup, Utility, selection_rate
from recoursesim.selection.outcome_curve import ScoreChange

#: Scores closer than this are one score (the moves are whole multiples of the score changes).
_MERGE = 1e-6


def _on_grid(score: np.ndarray, mass: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The mass of ``score`` atoms summed on ``grid`` (every score is on it, to within :data:`_MERGE`)."""
    index = np.searchsorted(grid, score - _MERGE)
    return np.bincount(index, weights=mass, minlength=grid.size)


def step_distribution(
    group: LendingGroup, policy: np.ndarray, change: ScoreChange
) -> tuple[np.ndarray, np.ndarray, float]:
    """One step of a group's score distribution under ``policy``: the new scores, their mass, and the defaults.

    Args:
        group: The group now (scores, shares, repayment probabilities).
        policy: The probability of a loan at each of its scores.
        change: The score changes after repayment and default.

    Returns:
        The new scores (unsorted, possibly repeated), their shares, and the share of the group defaulting.
    """
    lent = group.pmf * policy
    low, high = change.bounds
    score = np.concatenate(
        [group.score, np.minimum(group.score + change.repaid, high), np.maximum(group.score + change.default, low)]
    )
    mass = np.concatenate([group.pmf - lent, lent * group.repay, lent * (1.0 - group.repay)])
    return score, mass, float(np.sum(lent * (1.0 - group.repay)))


def simulate(tables: FicoTables, criterion: str, utility: Utility, change: ScoreChange, steps: int) -> pd.DataFrame:
    """Run one criterion for ``steps`` steps; one row per step and group.

    Returns:
        Columns ``step, group, mean_score, selection_rate, defaults, default_burden``; step ``t``
        describes the distribution at ``t`` and the lending decided on it.
    """
    table_groups = lending_groups(tables)
    atoms = [(g.score, g.pmf) for g in table_groups]
    burden = np.zeros(len(table_groups))
    rows = []
    for t in range(steps + 1):
        grid = np.unique(np.round(np.concatenate([score for score, _ in atoms]) / _MERGE) * _MERGE)
        groups = [
            LendingGroup(g.name, grid, _on_grid(score, mass, grid), nearest_repay(g.score, g.repay, grid), g.size)
            for g, (score, mass) in zip(table_groups, atoms, strict=True)
        ]
        policies = CRITERIA[criterion](groups, utility)
        atoms = []
        for i, (group, policy) in enumerate(zip(groups, policies, strict=True)):
            score, mass, defaults = step_distribution(group, policy, change)
            burden[i] += defaults
            rows.append(
                {
                    "step": t,
                    "group": group.name,
                    "mean_score": float(np.sum(group.pmf * group.score)),
                    "selection_rate": selection_rate(group.pmf, policy),
                    "defaults": defaults,
                    "default_burden": burden[i],
                }
            )
            atoms.append((score, mass))
    return pd.DataFrame(rows)


def run(tables: FicoTables, settings: dict[str, float], change: ScoreChange, steps: int) -> pd.DataFrame:
    """Every setting and criterion; rows ``setting, criterion, step, group, ...``."""
    parts = []
    for setting, loss in settings.items():
        for criterion in CRITERIA:
            part = simulate(tables, criterion, Utility(1.0, loss), change, steps)
            part.insert(0, "criterion", criterion)
            part.insert(0, "setting", setting)
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def markdown_table(rows: pd.DataFrame, settings: list[str]) -> str:
    """The docs' table: per setting, criterion and group, the mean score at 0, 1 and T, and the burden by T."""
    lines = []
    for setting in settings:
        part = rows[rows["setting"] == setting]
        last = int(part["step"].max())
        for (criterion, group), line in part.groupby(["criterion", "group"], sort=False):
            at = line.set_index("step")
            lines.append(
                {
                    "u₋/u₊": setting.removeprefix("u"),
                    "criterion": LABELS[str(criterion)],
                    "group": group,
                    "mean score at 0": f"{at.loc[0, 'mean_score']:.1f}",
                    "at 1": f"{at.loc[1, 'mean_score']:.1f}",
                    f"at {last}": f"{at.loc[last, 'mean_score']:.1f}",
                    "selection rate at 0": f"{at.loc[0, 'selection_rate']:.3f}",
                    f"rate at {last}": f"{at.loc[last, 'selection_rate']:.3f}",
                    f"default burden by {last}": f"{at.loc[last, 'default_burden']:.3f}",
                }
            )
    return pipe_table(pd.DataFrame(lines))


def plot(rows: pd.DataFrame, setting: str, path: Path) -> None:
    """Mean score and default burden per group over time, one line per criterion."""
    from matplotlib.figure import Figure

    part = rows[rows["setting"] == setting]
    groups = list(dict.fromkeys(part["group"]))
    fig = Figure(figsize=(5.0 * len(groups), 6.4))
    axes = fig.subplots(2, len(groups), sharex=True, squeeze=False)
    for j, group in enumerate(groups):
        for criterion, line in part[part["group"] == group].groupby("criterion", sort=False):
            name = str(criterion)
            axes[0, j].plot(line["step"], line["mean_score"], label=LABELS[name], **STYLES[name])
            axes[1, j].plot(line["step"], line["default_burden"], label=LABELS[name], **STYLES[name])
    label_score_panels(axes, groups, int(part["step"].max()), "defaults per member")
    save_figure(
        fig,
        axes[0, 0],
        f"Re-applying every step, FICO tables, u₋/u₊ = {setting.removeprefix('u')} (expected values)",
        path,
    )


def label_score_panels(axes: Any, groups: list[str], last_step: int, burden_unit: str) -> None:
    """Titles, ranges and labels of a 2 × groups grid: mean score above, default burden below, steps 0 … last."""
    from matplotlib.ticker import MaxNLocator

    for j, group in enumerate(groups):
        axes[0, j].set_title(group)
        axes[0, j].set_ylim(300, 850)
        axes[1, j].set_ylim(bottom=0)
        axes[1, j].set_xlabel("step t")
        axes[1, j].set_xlim(0, last_step)
        axes[1, j].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0, 0].set_ylabel("mean score (FICO points)")
    axes[1, 0].set_ylabel(f"default burden ({burden_unit})")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the iterated delayed-impact experiment; return the exit status."""
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("results/delayed_impact"), help="output directory")
    parser.add_argument("--overwrite", action="store_true", help="replace an --out this command wrote before")
    parser.add_argument("--steps", type=int, default=20, help="T: steps after the first (default 20)")
    parser.add_argument("--groups", nargs="+", default=["Black", "White"], help="groups (default Black White)")
    args = parser.parse_args(argv)
    steps = check_int("--steps", args.steps, minimum=1)
    tables = load_fico(groups=args.groups)
    with atomic_output_dir(args.out, overwrite=args.overwrite) as tmp:
        rows = run(tables, SETTINGS, ScoreChange(), steps)
        rows.to_csv(tmp / "delayed_impact.csv", index=False)
        text = markdown_table(rows, list(SETTINGS))
        (tmp / "table.md").write_text(text + "\n", encoding="utf-8")
        for setting in SETTINGS:
            plot(rows, setting, tmp / f"over_time_{setting}.png")
    print(text)
    print(f"wrote delayed_impact.csv, table.md and the figures to {args.out}")
    return 0
