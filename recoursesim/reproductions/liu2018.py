"""Liu, Dean, Rolf, Simchowitz & Hardt (2018), *Delayed Impact of Fair Machine Learning*, on the FICO tables.

For each utility ratio ``u₋/u₊`` (the paper's −4 and −10), each lending criterion and each group
(Black and White by default): the selection rate, the true positive rate, the threshold score,
the expected mean score change ``Δμ`` (repaid +75, default −150) and where that rate falls on the
group's outcome curve (relative improvement, relative harm or active harm, against maximum
utility's rate). Writes the rows (``liu2018.csv``), the Markdown table, the outcome curves
(``outcome_curves.csv``) and the outcome-curve figure (``outcome_curves.png``).

With ``--reference FILE`` (a CSV of ``variant, setting, criterion, group, selection_rate,
delta_mu`` from another implementation) the rows carry the reference's values beside ours; the
docs' table is made from the kept rows in ``experiments/runs/liu2018_delayed_impact.csv.gz`` by
:func:`markdown_table`.

Usage:
    python experiments/liu2018_delayed_impact.py --out results/liu2018
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.cli._common import Parser
from recoursesim.datasets.fico import FicoTables, load_fico
from recoursesim.errors import ConfigError, DataError
from recoursesim.output import atomic_output_dir
from recoursesim.report.document import pipe_table
from recoursesim.selection.lending import (
    CRITERIA,
    LendingGroup,
    Utility,
    selection_rate,
    threshold_score,
    true_positive_rate,
)
from recoursesim.selection.outcome_curve import OutcomeCurve, ScoreChange, delta_mu, outcome_curve

#: The paper's utility ratios u₋/u₊ (u₊ = 1), as setting names.
SETTINGS: dict[str, float] = {"u-4": -4.0, "u-10": -10.0}

#: How the table names the criteria.
LABELS: dict[str, str] = {
    "max_utility": "max utility",
    "max_utility_blind": "max utility, group-blind",
    "demographic_parity": "demographic parity",
    "equal_opportunity": "equal opportunity",
}

#: How figures draw each criterion (colour and line style).
STYLES: dict[str, dict[str, str]] = {
    "max_utility": {"color": "C4", "ls": "-"},
    "max_utility_blind": {"color": "grey", "ls": ":"},
    "demographic_parity": {"color": "C0", "ls": "--"},
    "equal_opportunity": {"color": "C3", "ls": "-."},
}

#: The reference's variants: its code as published, and with its numerical searches' tolerances tightened.
VARIANTS: tuple[str, ...] = ("as published", "tight tolerance")


def lending_groups(tables: FicoTables) -> list[LendingGroup]:
    """One :class:`LendingGroup` per group of ``tables``, on the 300–850 scale, sized by ``totals.csv``."""
    return [
        LendingGroup(g, tables.score, tables.pmf(g), tables.repay[g], float(tables.totals[g])) for g in tables.groups
    ]


def run(tables: FicoTables, settings: dict[str, float], change: ScoreChange) -> tuple[pd.DataFrame, list[OutcomeCurve]]:
    """Every criterion's outcome per setting and group, and each group's outcome curve.

    Args:
        tables: The FICO tables of the groups compared.
        settings: Setting name -> ``u₋`` (with ``u₊ = 1``).
        change: The score change after repayment and default.

    Returns:
        One row per setting, criterion and group, and the groups' outcome curves.
    """
    groups = lending_groups(tables)
    curves = [outcome_curve(group, change) for group in groups]
    rows = []
    for setting, loss in settings.items():
        utility = Utility(repaid=1.0, default=loss)
        best = [selection_rate(g.pmf, p) for g, p in zip(groups, CRITERIA["max_utility"](groups, utility), strict=True)]
        for name, criterion in CRITERIA.items():
            for group, policy, curve, mu_rate in zip(groups, criterion(groups, utility), curves, best, strict=True):
                rate = selection_rate(group.pmf, policy)
                rows.append(
                    {
                        "setting": setting,
                        "criterion": name,
                        "group": group.name,
                        "selection_rate": rate,
                        "true_positive_rate": true_positive_rate(group, policy),
                        "threshold": threshold_score(group.score, policy),
                        "delta_mu": delta_mu(group, policy, change),
                        "region": curve.region(rate, mu_rate),
                    }
                )
    return pd.DataFrame(rows), curves


def read_reference(path: Path) -> pd.DataFrame:
    """A reference implementation's rows: ``variant, setting, criterion, group, selection_rate, delta_mu``.

    Raises:
        DataError: An unreadable file or a missing column.
    """
    try:
        frame = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise DataError("--reference", f"cannot read {path} ({error})", "give a CSV file") from None
    needed = ["variant", "setting", "criterion", "group", "selection_rate", "delta_mu"]
    missing = [column for column in needed if column not in frame.columns]
    if missing:
        raise DataError("--reference", f"{path} has no column {missing[0]}", f"give the columns {', '.join(needed)}")
    return frame[needed]


def with_reference(rows: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with ``<variant> selection_rate`` and ``<variant> delta_mu`` columns from ``reference``."""
    keys = ["setting", "criterion", "group"]
    for variant, part in reference.groupby("variant", sort=False):
        renamed = part.drop(columns="variant").rename(
            columns={"selection_rate": f"{variant} selection_rate", "delta_mu": f"{variant} delta_mu"}
        )
        rows = rows.merge(renamed, on=keys, how="left")
    return rows


def _gap(rows: pd.DataFrame, variant: str) -> pd.Series:
    """Per row, the larger of the absolute differences in selection rate and in Δμ to the reference ``variant``."""
    rate = (rows["selection_rate"] - rows[f"{variant} selection_rate"]).abs()
    mu = (rows["delta_mu"] - rows[f"{variant} delta_mu"]).abs()
    return np.maximum(rate, mu)


def _ordered(rows: pd.DataFrame, settings: list[str]) -> pd.DataFrame:
    """The rows of ``settings``, in that order (criteria and groups as run)."""
    part = rows[rows["setting"].isin(settings)].copy()
    part["order"] = part["setting"].map({s: i for i, s in enumerate(settings)})
    return part.sort_values(["order"], kind="stable")


def _first_columns(part: pd.DataFrame) -> dict[str, pd.Series]:
    """The columns both tables start with: setting, criterion, group and our selection rate."""
    return {
        "u₋/u₊": part["setting"].str.removeprefix("u"),
        "criterion": part["criterion"].map(LABELS),
        "group": part["group"],
        "selection rate": part["selection_rate"].map("{:.6f}".format),
    }


def ours_table(rows: pd.DataFrame, settings: list[str]) -> str:
    """The printed table: per setting, criterion and group, the selection rate, TPR, threshold, Δμ and region."""
    part = _ordered(rows, settings)
    table = pd.DataFrame(
        {
            **_first_columns(part),
            "TPR": part["true_positive_rate"].map("{:.4f}".format),
            "threshold score": part["threshold"].map("{:.1f}".format),
            "Δμ": part["delta_mu"].map("{:.4f}".format),
            "region": part["region"],
        }
    )
    return pipe_table(table)


def markdown_table(rows: pd.DataFrame, settings: list[str]) -> str:
    """The docs' table: per setting, criterion and group, our rate and Δμ beside the reference's.

    Args:
        rows: The kept rows (with the reference's columns, :func:`with_reference`).
        settings: The settings shown (``u-4``, ``u-10``), in order.
    """
    part = _ordered(rows, settings)
    part = part[part[f"{VARIANTS[0]} selection_rate"].notna()]
    table = pd.DataFrame(
        {
            **_first_columns(part),
            "reference": part[f"{VARIANTS[0]} selection_rate"].map("{:.6f}".format),
            "Δμ": part["delta_mu"].map("{:.4f}".format),
            "reference Δμ": part[f"{VARIANTS[0]} delta_mu"].map("{:.4f}".format),
            "region": part["region"],
            "largest difference": _gap(part, VARIANTS[0]).map("{:.1e}".format),
            "with tight tolerance": _gap(part, VARIANTS[1]).map("{:.1e}".format),
        }
    )
    return pipe_table(table)


def curves_frame(curves: Sequence[OutcomeCurve]) -> pd.DataFrame:
    """The outcome curves as rows ``group, selection_rate, delta_mu``."""
    return pd.concat(
        [pd.DataFrame({"group": c.group, "selection_rate": c.rate, "delta_mu": c.delta_mu}) for c in curves],
        ignore_index=True,
    )


def plot_outcome_curves(curves: Sequence[OutcomeCurve], rows: pd.DataFrame, setting: str, path: Path) -> None:
    """One panel per group: Δμ against the selection rate, the regions shaded, each criterion's rate marked."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2 * len(curves), 4.2))
    axes = fig.subplots(1, len(curves), sharey=True, squeeze=False)
    low = min(float(c.delta_mu.min()) for c in curves)
    high = max(float(c.delta_mu.max()) for c in curves)
    for ax, curve in zip(axes[0], curves, strict=True):
        part = rows[(rows["setting"] == setting) & (rows["group"] == curve.group)].set_index("criterion")
        reference = curve.at(float(part.loc["max_utility", "selection_rate"]))
        grid = np.linspace(0.0, 1.0, 1001)
        values = np.interp(grid, curve.rate, curve.delta_mu)
        ax.fill_between(grid, low, high, where=values > reference, color="C2", alpha=0.12, label="relative improvement")
        ax.fill_between(grid, low, high, where=(values <= reference) & (values >= 0), color="C1", alpha=0.12,
                        label="relative harm")  # fmt: skip
        ax.fill_between(grid, low, high, where=values < 0, color="C3", alpha=0.12, label="active harm")
        ax.plot(curve.rate, curve.delta_mu, color="black", lw=1.5, label="outcome curve")
        ax.axhline(0.0, color="grey", lw=0.7)
        for name, label in LABELS.items():
            ax.axvline(part.loc[name, "selection_rate"], lw=1.3, label=label, **STYLES[name])
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(low - 2, high + 2)
        ax.set_title(curve.group)
        ax.set_xlabel("selection rate β (share of the group lent to)")
    axes[0, 0].set_ylabel("expected change of mean score Δμ (FICO points)")
    save_figure(
        fig,
        axes[0, 0],
        f"Outcome curves, FICO tables, u₋/u₊ = {setting.removeprefix('u')}, score change +75 / −150",
        path,
    )


def save_figure(fig: Any, legend_from: Any, title: str, path: Path) -> None:
    """Give ``fig`` the legend of ``legend_from`` below the panels and ``title``; write it to ``path``."""
    handles, labels = legend_from.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
    fig.suptitle(title)
    fig.set_layout_engine("constrained")
    fig.savefig(path, dpi=110)


def _inputs(args: argparse.Namespace) -> tuple[FicoTables, dict[str, float], ScoreChange]:
    """The tables, settings and score change the options give; an invalid one names its option."""
    try:
        change = ScoreChange(repaid=args.score_repaid, default=args.score_default)
        settings = {f"u{loss:g}": Utility(1.0, loss).default for loss in args.utility_default}
    except ConfigError as error:
        option = {"score_change.repaid": "--score-repaid", "score_change.default": "--score-default"}
        raise ConfigError(option.get(error.field, "--utility-default"), error.problem, error.fix) from None
    return load_fico(args.tables, groups=args.groups), settings, change


def main(argv: list[str] | None = None) -> int:
    """Run the reproduction; return the exit status."""
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("results/liu2018"), help="output directory")
    parser.add_argument("--overwrite", action="store_true", help="replace an --out this command wrote before")
    parser.add_argument("--tables", type=Path, default=None, help="a folder of FICO tables (default: bundled)")
    parser.add_argument("--groups", nargs="+", default=["Black", "White"], help="groups compared (default Black White)")
    parser.add_argument("--utility-default", type=float, nargs="+", default=list(SETTINGS.values()),
                        help="u₋ per loan defaulted, with u₊ = 1 (default: the paper's -4 and -10)")  # fmt: skip
    parser.add_argument("--score-repaid", type=float, default=75.0, help="c₊, score change after repayment")
    parser.add_argument("--score-default", type=float, default=-150.0, help="c₋ (< 0), score change after default")
    parser.add_argument("--reference", type=Path, default=None, help="another implementation's rows, to compare")
    args = parser.parse_args(argv)
    tables, settings, change = _inputs(args)
    reference = None if args.reference is None else read_reference(args.reference)
    with atomic_output_dir(args.out, overwrite=args.overwrite) as tmp:
        rows, curves = run(tables, settings, change)
        if reference is not None:
            rows = with_reference(rows, reference)
        rows.to_csv(tmp / "liu2018.csv", index=False)
        curves_frame(curves).to_csv(tmp / "outcome_curves.csv", index=False)
        first = next(iter(settings))
        plot_outcome_curves(curves, rows, first, tmp / "outcome_curves.png")
        text = ours_table(rows, list(settings))
        if reference is not None:
            text += "\n\nBeside the reference:\n\n" + markdown_table(rows, list(settings))
        (tmp / "table.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"wrote liu2018.csv, outcome_curves.csv, outcome_curves.png and table.md to {args.out}")
    return 0
