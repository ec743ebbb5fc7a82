"""Equality of effort on the original study's synthetic data (its Figures 2–3), beside the published values.

For alpha in {0, 1, 2, 3} and each seed: n = 1000 individuals, logistic regression on (X2, X3),
minimal-intervention costs, and ACR(q) for q in {0.1, ..., 1} over unfavourable protected
(X1 = 0) and unprotected centres, with 95% t-intervals over centres. Prints the table of means
over seeds, checks the acceptance band on ACR(1), writes CSV tables, the docs' table
(``table.md``, :func:`markdown_table`) and Figures 2–3 (PNG). The per-seed curves
(``acr_curves_per_seed.csv``) are kept in ``experiments/runs/eoe_synthetic.csv.gz``.

Usage:
    python experiments/eoe_synthetic.py --seeds 20 --out results/eoe_synthetic
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from recoursesim.auditors.effort import DEFAULT_QS, make_effort_synthetic, synthetic_auditor
from recoursesim.cli._common import Parser, positive_int, seed_count
from recoursesim.output import atomic_output_dir, check_out
from recoursesim.report.aggregate import mean_ci
from recoursesim.report.document import pipe_table
from recoursesim.stats import format_interval

ALPHAS = (0.0, 1.0, 2.0, 3.0)
#: Acceptance bands of issue 6 on the mean system-level ACR(1) for protected centres.
BANDS = {0.0: (0.9, 1.1), 2.0: (1.7, 2.3)}

#: The quantile levels of the docs' table.
TABLE_QS: tuple[float, ...] = (0.2, 1.0)

#: The published values for (alpha, centres, q), as the original study's text states them (read
#: off its figures; with alpha = 0 "ACR stays at one" at every q). Other cells were not stated.
PUBLISHED: dict[tuple[float, str, float], str] = {
    (0.0, "protected", 0.2): "≈ 1",
    (0.0, "protected", 1.0): "≈ 1",
    (2.0, "protected", 0.2): "≈ 1.5",
    (2.0, "protected", 1.0): "≈ 2",
    (2.0, "unprotected", 0.2): "≤ 0.8",
    (2.0, "unprotected", 1.0): "≈ 0.5",
}


def run(seeds: int, n: int) -> pd.DataFrame:
    """ACR(q) curves for every alpha and seed on the synthetic data (one row per alpha, seed, centres, q)."""
    frames = []
    for alpha in ALPHAS:
        for seed in range(seeds):
            auditor = synthetic_auditor(make_effort_synthetic(n, alpha, seed))
            for centres in ("protected", "unprotected"):
                curve = auditor.curve(DEFAULT_QS, centres)
                curve.insert(0, "centres", centres)
                curve.insert(0, "seed", seed)
                curve.insert(0, "alpha", alpha)
                frames.append(curve)
    return pd.concat(frames, ignore_index=True)


def markdown_table(rows: pd.DataFrame, centres: list[str]) -> str:
    """The docs' table: per alpha and centre group, ACR(0.2) and ACR(1) across seeds and the published values.

    A cell of ours is the mean over seeds of the mean ACR over centres, with a 95% Student-t
    interval across seeds; "–" marks a value the original study does not state.

    Args:
        rows: The per-seed curves (``acr_curves_per_seed.csv``: ``alpha``, ``seed``, ``centres``, ``q``, ``mean``).
        centres: The centre groups shown (``protected``, ``unprotected``), in order.
    """
    chosen = rows[rows["centres"].isin(centres) & rows["q"].isin(TABLE_QS)]
    summary = mean_ci(chosen, ["alpha", "centres", "q"], ["mean"]).set_index(["alpha", "centres", "q"])
    lines = []
    for alpha in sorted(set(chosen["alpha"])):
        for group in centres:
            line = {"α": f"{alpha:g}", "centres": group}
            for q in TABLE_QS:
                cell = summary.loc[(alpha, group, q)]
                ours = format_interval(cell["mean_mean"], cell["mean_low"], cell["mean_high"], int(cell["mean_n"]))
                line[f"ACR({q:g}), ours"] = ours
                line[f"ACR({q:g}), published"] = PUBLISHED.get((alpha, group, q), "–")
            lines.append(line)
    return pipe_table(pd.DataFrame(lines))


def _finish(fig: Figure, axes: np.ndarray, acr_title: str, path: Path) -> None:
    """Label the two panels (ACR(q) left, protected share right), add legends and save ``fig`` to ``path``."""
    axes[0].axhline(1.0, color="grey", lw=0.8, ls="--")
    axes[0].set(xlabel="quantile q", ylabel="ACR(q)", title=acr_title)
    axes[1].set(xlabel="quantile q", ylabel="share of protected in I", title="(b) Protected share of I")
    for ax in axes:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def figure_2(curves: pd.DataFrame, path: Path) -> None:
    """Draw the paper's Figure 2 (one seed, alpha = 2) to ``path``."""
    one = curves[(curves["alpha"] == 2.0) & (curves["seed"] == 0)]
    fig = Figure(figsize=(10, 3.8))
    axes = fig.subplots(1, 2)
    for centres, part in one.groupby("centres"):
        axes[0].plot(part["q"], part["mean"], marker="o", label=f"{centres} centres")
        axes[0].fill_between(part["q"], part["ci_low"], part["ci_high"], alpha=0.25)
        axes[1].plot(part["q"], part["mean_protected_share"], marker="o", label=f"{centres} centres")
    _finish(fig, axes, "(a) Average cost ratio, α = 2 (seed 0)", path)


def figure_3(curves: pd.DataFrame, path: Path) -> None:
    """Draw the paper's Figure 3 (protected centres' mean ACR(q) and protected share, per alpha) to ``path``."""
    protected = curves[curves["centres"] == "protected"]
    fig = Figure(figsize=(10, 3.8))
    axes = fig.subplots(1, 2)
    for alpha, part in protected.groupby("alpha"):
        mean = part.groupby("q")["mean"].mean()
        sd = part.groupby("q")["mean"].std(ddof=1)
        count = part.groupby("q")["mean"].count()
        half = 1.96 * sd / np.sqrt(count)
        axes[0].plot(mean.index, mean, marker="o", label=f"α = {alpha:g}")
        axes[0].fill_between(mean.index, mean - half, mean + half, alpha=0.2)
        share = part.groupby("q")["mean_protected_share"].mean()
        axes[1].plot(share.index, share, marker="o", label=f"α = {alpha:g}")
    _finish(fig, axes, "(a) ACR, protected centres (mean over seeds)", path)


def main(argv: list[str] | None = None) -> int:
    """Run the synthetic equality-of-effort experiment; return the exit status."""
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=seed_count, default=20, help="seeds per alpha (default 20)")
    parser.add_argument("--n", type=positive_int, default=1000, help="individuals per data set (default 1000)")
    parser.add_argument("--out", type=Path, default=Path("results/eoe_synthetic"), help="output directory")
    args = parser.parse_args(argv)
    check_out(args.out)  # before the runs: a refused folder costs nothing
    start = time.perf_counter()
    curves = run(args.seeds, args.n)
    summary = (
        curves.groupby(["alpha", "centres", "q"])["mean"]
        .agg(["mean", "std", "count"])
        .rename(columns={"mean": "ACR_mean_over_seeds", "std": "sd_over_seeds", "count": "seeds"})
        .reset_index()
    )
    wide = summary.pivot_table(index=["alpha", "centres"], columns="q", values="ACR_mean_over_seeds")
    print(f"ACR(q), mean over {args.seeds} seeds of the mean over centres:")
    print(wide[[0.1, 0.2, 0.5, 1.0]].round(3).to_string())
    ok = True
    for alpha, (low, high) in BANDS.items():
        row = summary[(summary["alpha"] == alpha) & (summary["centres"] == "protected") & (summary["q"] == 1.0)]
        value, sd = float(row["ACR_mean_over_seeds"].iloc[0]), float(row["sd_over_seeds"].iloc[0])
        inside = low < value < high
        ok &= inside
        print(f"alpha = {alpha:g}: mean ACR(1), protected = {value:.3f} (sd {sd:.3f}); band ({low}, {high}): {inside}")
    with atomic_output_dir(args.out) as tmp:
        curves.to_csv(tmp / "acr_curves_per_seed.csv", index=False)
        summary.to_csv(tmp / "acr_summary.csv", index=False)
        figure_2(curves, tmp / "figure2_alpha2.png")
        figure_3(curves, tmp / "figure3_alphas.png")
        markdown = markdown_table(curves, ["protected", "unprotected"])
        (tmp / "table.md").write_text(markdown + "\n", encoding="utf-8")
    print(markdown)
    print(f"wrote tables and figures to {args.out} ({time.perf_counter() - start:.1f} s)")
    return 0 if ok else 1
