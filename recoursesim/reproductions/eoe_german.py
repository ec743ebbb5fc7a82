"""Equality of effort on German credit, in the setup of the original study's German credit experiment.

Sex is sensitive and immutable (protected: female), age is actionable and may only increase,
credit amount is actionable, duration is mutable but not actionable. The SCM is the graph
credit amount <- sex, age; duration <- credit amount, fitted by least squares; a logistic
regression predicts good credit. Age is a parent of credit amount, so intervention sets are
enumerated (MINT semantics). Computes ACR(0.2) and ACR(1) for protected and unprotected centres,
for the model with and without sex as an input, and prints them beside the published values.

The rows (``german_acr.csv``: per variant, centres and q the mean ACR, its 95% t-interval over
centres and the number of centres) are kept in ``experiments/runs/eoe_german.csv.gz``;
:func:`markdown_table` makes the docs' table from them.

Usage:
    python experiments/eoe_german.py --out results/eoe_german
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from recoursesim.auditors.effort import DEFAULT_QS
from recoursesim.auditors.effort.german import german_auditor
from recoursesim.cli._common import Parser
from recoursesim.cli.audit_effort import plot_acr_curves
from recoursesim.datasets import load_german
from recoursesim.output import atomic_output_dir
from recoursesim.report.document import pipe_table

#: The published values for (centres, q), as the original study's text states them (it gives no
#: table; the values are read off its figure).
PUBLISHED: dict[tuple[str, float], str] = {
    ("protected", 0.2): "≈ 3",
    ("protected", 1.0): "≈ 1.3",
    ("unprotected", 0.2): "< 0.8",
    ("unprotected", 1.0): "≈ 0.77",
}

#: The model variants (the ``variant`` column), in table order: with and without sex as an input.
VARIANTS: tuple[str, ...] = ("model reads sex", "model without sex")

#: The quantile levels kept and tabled.
TABLE_QS: tuple[float, ...] = (0.2, 1.0)


def run(frame: pd.DataFrame, target: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ACR(q) of every variant and centre group; return the table rows (``TABLE_QS``) and the full curves.

    Args:
        frame: The German credit data.
        target: Its label column.

    Returns:
        One row per variant, centres and q of :data:`TABLE_QS` (``ACR``, ``ci_low``, ``ci_high``,
        ``n_centres``), and the ACR(q) curves of every variant and centre group.
    """
    curves = []
    for variant in VARIANTS:
        auditor, _ = german_auditor(frame, target=target, model_uses_sex=variant == VARIANTS[0])
        for centres in ("protected", "unprotected"):
            curve = auditor.curve(DEFAULT_QS, centres)
            curve.insert(0, "centres", centres)
            curve.insert(0, "variant", variant)
            curves.append(curve)
    curve = pd.concat(curves, ignore_index=True)
    rows = curve[curve["q"].isin(TABLE_QS)].rename(columns={"mean": "ACR"})
    columns = ["variant", "centres", "q", "ACR", "ci_low", "ci_high", "n_centres"]
    return rows[columns].reset_index(drop=True), curve


def _acr(row: pd.Series) -> str:
    """``ACR [low, high]`` with two decimals; the ACR alone when both bounds print the same (as at q = 1).

    At q = 1 every neighbourhood is the whole data set, so the interval has width zero up to rounding.
    """
    low, high = f"{row['ci_low']:.2f}", f"{row['ci_high']:.2f}"
    return f"{row['ACR']:.2f}" if low == high else f"{row['ACR']:.2f} [{low}, {high}]"


def markdown_table(rows: pd.DataFrame, centres: list[str]) -> str:
    """The docs' table: per centre group and q, both variants' ACR [95% CI over centres] and the published value.

    Args:
        rows: The kept rows (``german_acr.csv``).
        centres: The centre groups shown (``protected``, ``unprotected``), in order.
    """
    indexed = rows.set_index(["variant", "centres", "q"])
    lines = []
    for group in centres:
        for q in TABLE_QS:
            cells = [indexed.loc[(variant, group, q)] for variant in VARIANTS]
            lines.append(
                {
                    "centres": group,
                    "q": f"{q:g}",
                    "n (reads sex / no sex)": " / ".join(str(int(cell["n_centres"])) for cell in cells),
                    "ours (model reads sex)": _acr(cells[0]),
                    "ours (no sex)": _acr(cells[1]),
                    "published": PUBLISHED[(group, q)],
                }
            )
    return pipe_table(pd.DataFrame(lines))


def main(argv: list[str] | None = None) -> int:
    """Run the German credit equality-of-effort experiment; return the exit status."""
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("results/eoe_german"), help="output directory")
    args = parser.parse_args(argv)
    dataset = load_german()
    with atomic_output_dir(args.out) as tmp:
        rows, curve = run(dataset.frame, dataset.target)
        markdown = markdown_table(rows, ["protected", "unprotected"])
        rows.to_csv(tmp / "german_acr.csv", index=False)
        curve.to_csv(tmp / "german_acr_curves.csv", index=False)
        (tmp / "table.md").write_text(markdown + "\n", encoding="utf-8")
        plot_acr_curves(curve[curve["variant"] == VARIANTS[0]], tmp / "figure5_german.png")
    print(markdown)
    print(f"wrote german_acr.csv, german_acr_curves.csv, table.md and Figure 5 to {args.out}")
    return 0
