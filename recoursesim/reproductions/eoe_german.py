"""Equality of effort on German credit, the setup of Raimondi et al. (§4.2, Figure 5).

Sex is sensitive and immutable (protected: female), age is actionable and may only increase,
credit amount is actionable, duration is mutable but not actionable. The SCM is Karimi et al.'s
graph (credit amount <- sex, age; duration <- credit amount) fitted by least squares; a logistic
regression predicts good credit. Age is a parent of credit amount, so intervention sets are
enumerated (MINT semantics). Prints ACR(0.2) and ACR(1) for protected and unprotected centres
next to the paper's values, for the model with and without sex as an input.

Usage:
    python experiments/eoe_german.py --out results/eoe_german
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from recoursesim.auditors.effort import DEFAULT_QS
from recoursesim.auditors.effort.german import german_auditor
from recoursesim.cli._output import atomic_output_dir
from recoursesim.cli.audit_effort import plot_acr_curves
from recoursesim.datasets import load_german

#: The paper's reported values (read from its text; no table is given).
PAPER = {("protected", 0.2): 3.0, ("protected", 1.0): 1.3, ("unprotected", 1.0): 0.77}


def main(argv: list[str] | None = None) -> int:
    """Run the German credit equality-of-effort experiment; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("results/eoe_german"), help="output directory")
    args = parser.parse_args(argv)
    dataset = load_german()
    rows, curves = [], []
    for uses_sex in (True, False):
        auditor, _ = german_auditor(dataset.frame, target=dataset.target, model_uses_sex=uses_sex)
        variant = "model reads sex" if uses_sex else "model without sex"
        for centres in ("protected", "unprotected"):
            curve = auditor.curve(DEFAULT_QS, centres)
            curve.insert(0, "centres", centres)
            curve.insert(0, "variant", variant)
            curves.append(curve)
            by_q = curve.set_index("q")
            for q in (0.2, 1.0):
                rows.append(
                    {
                        "variant": variant,
                        "centres": centres,
                        "q": q,
                        "ACR": by_q.loc[q, "mean"],
                        "ci_low": by_q.loc[q, "ci_low"],
                        "ci_high": by_q.loc[q, "ci_high"],
                        "n_centres": int(by_q.loc[q, "n_centres"]),
                        "paper": PAPER.get((centres, q), float("nan")),
                    }
                )
    table = pd.DataFrame(rows)
    curve = pd.concat(curves, ignore_index=True)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    with atomic_output_dir(args.out) as tmp:
        table.to_csv(tmp / "german_acr_vs_paper.csv", index=False)
        curve.to_csv(tmp / "german_acr_curves.csv", index=False)
        main_variant = curve[curve["variant"] == "model reads sex"]
        plot_acr_curves(main_variant, tmp / "figure5_german.png")
    print(f"wrote tables and Figure 5 to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
