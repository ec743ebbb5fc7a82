"""Bell et al. (2024) Table 1 baseline: a quick check in the default run, all cells behind -m slow."""

import pytest

from recoursesim.reproductions.bell2024 import PAPER_TABLE1, reproduce


def test_baseline_gap_cell_quick():
    # 20 seeds of the setting with the largest gap (e_a = e_d, q = 3): rETR 1.640, dTTR 1.573 in the paper
    cells = reproduce(["baseline"], 20, settings=[("equal", 3)])
    assert {c.metric: c.reproduced for c in cells} == {"rETR": True, "dTTR": True}
    retr = next(c for c in cells if c.metric == "rETR")
    assert abs(retr.ours_mean - PAPER_TABLE1[("equal", 3, "baseline", "rETR")][0]) < 0.05


@pytest.mark.slow
def test_baseline_all_24_cells_100_seeds():
    cells = reproduce(["baseline"], 100, workers=2)
    failed = [(c.effort, c.q, c.metric) for c in cells if not c.reproduced]
    assert len(cells) == 24 and failed == []
