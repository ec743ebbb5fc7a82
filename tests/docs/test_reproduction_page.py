"""docs/reproduction.md's Table 1 figures are those of the kept cells (experiments/runs/bell2024_table1.csv.gz)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from recoursesim.reproductions.bell2024 import markdown_table

ROOT = Path(__file__).resolve().parents[2]
CELLS = ROOT / "experiments" / "runs" / "bell2024_table1.csv.gz"
#: The five cells the page follows across refit orders: (strategy, effort, q, metric).
FOLLOWED = [
    ("cda", "adv_more", 0, "rETR"),
    ("cda", "adv_more", 1, "rETR"),
    ("cns+cda", "adv_more", 2, "rETR"),
    ("cns+cda", "adv_more", 3, "rETR"),
    ("cns+cda", "dis_more", 3, "rETR"),
]


def test_markdown_table_by_hand() -> None:
    rows = pd.DataFrame(
        {
            "strategy": ["cns", "cns", "cns", "gupta"],
            "metric": ["rETR", "rETR", "dTTR", "rETR"],
            "reproduced": [True, False, None, None],
        }
    )
    assert markdown_table(rows, ["cns", "gupta"]).splitlines() == [
        "| strategy | rETR cells | dTTR cells |",
        "|---|---|---|",
        "| CNS | 1/2 | 0/0 |",
        "| Gupta | 0/0 | 0/0 |",
    ]


def test_the_followed_cells_are_the_kept_ones() -> None:
    cells = pd.read_csv(CELLS).set_index(["strategy", "effort", "q", "metric"])
    quoted = []
    for i, key in enumerate(FOLLOWED):
        cell = cells.loc[key]
        z = (cell.ours_mean - cell.paper_mean) / math.hypot(cell.ours_sem, cell.paper_sem)
        quoted.append(
            f"{cell.ours_mean:.3f} ± {cell.ours_sem:.3f} ({'z ' if i == 0 else ''}{z:+.1f})".replace("-", "−")
        )
    text = " ".join((ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8").split())
    listed = ", ".join(quoted[:-1]) + " and " + quoted[-1]
    assert f"With `refit_then_restate` they give {listed}" in text
    mitigated = cells.loc[["cda", "cns+cda"]]
    z = (mitigated.ours_mean - mitigated.paper_mean) / (mitigated.ours_sem**2 + mitigated.paper_sem**2) ** 0.5
    assert (
        f"CDA and CNS + CDA {int(mitigated.reproduced.sum())}/{len(mitigated)} cells, largest |z| {z.abs().max():.1f}"
        in text
    )
