"""The iterated delayed-impact experiment: one step by hand, its kept rows, the figures its docs page quotes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import guarded
from recoursesim.datasets import load_fico
from recoursesim.datasets.fico import nearest_repay
from recoursesim.reproductions import delayed_impact_over_time as over_time
from recoursesim.reproductions.liu2018 import SETTINGS
from recoursesim.selection.lending import LendingGroup, Utility
from recoursesim.selection.outcome_curve import ScoreChange

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "experiments" / "runs" / "delayed_impact_over_time.csv.gz"
SCORES = np.array([300.0, 500.0, 700.0])


def test_one_step_by_hand() -> None:
    # Lend at 500 and 700: repaid mass 0.21 -> 575 and 0.19 -> 775, defaulted 0.09 -> 350 and 0.01 -> 550.
    group = LendingGroup("A", SCORES, np.array([0.5, 0.3, 0.2]), np.array([0.5, 0.7, 0.95]), 1.0)
    score, mass, defaults = over_time.step_distribution(group, np.array([0.0, 1.0, 1.0]), ScoreChange())
    assert defaults == pytest.approx(0.10)
    assert mass.sum() == pytest.approx(1.0)
    assert np.sum(score * mass) == pytest.approx(0.5 * 300 + 0.21 * 575 + 0.19 * 775 + 0.09 * 350 + 0.01 * 550)


def test_each_outcome_stays_within_the_scale() -> None:
    group = LendingGroup("B", np.array([320.0, 800.0]), np.array([0.5, 0.5]), np.array([0.4, 0.9]), 1.0)
    score, mass, _ = over_time.step_distribution(group, np.ones(2), ScoreChange())
    np.testing.assert_allclose(score[mass > 0], [395.0, 850.0, 300.0, 650.0])


def test_repayment_off_the_grid_is_the_nearest_table_scores() -> None:
    table, repay = np.array([300.0, 500.0]), np.array([0.2, 0.8])
    got = nearest_repay(table, repay, np.array([0.0, 399.0, 400.0, 401.0, 1000.0]))
    np.testing.assert_array_equal(got, [0.2, 0.2, 0.2, 0.8, 0.8])


def test_the_first_step_moves_each_group_by_its_per_outcome_delta_mu() -> None:
    tables = load_fico(groups=["Black", "White"])
    rows = over_time.simulate(tables, "max_utility", Utility(1.0, -4.0), ScoreChange(), steps=1)
    for name in ("Black", "White"):
        g = tables.select([name])
        score, repay, pmf = g.score, g.repay[name], g.pmf(name)
        lent = pmf * (repay >= 0.8)
        expected = np.sum(
            lent
            * (repay * (np.minimum(score + 75, 850) - score) + (1 - repay) * (np.maximum(score - 150, 300) - score))
        )
        means = rows[rows["group"] == name].set_index("step")["mean_score"]
        assert means[1] - means[0] == pytest.approx(expected, abs=1e-6)


def test_the_kept_rows_are_what_the_code_gives_now() -> None:
    kept = pd.read_csv(KEPT, dtype={"group": str})
    rows = over_time.run(load_fico(groups=["Black", "White"]), SETTINGS, ScoreChange(), steps=20)
    assert list(rows["criterion"]) == list(kept["criterion"])
    for column in ("mean_score", "selection_rate", "defaults", "default_burden"):
        np.testing.assert_allclose(rows[column], kept[column], rtol=0, atol=1e-9, err_msg=column)


def test_the_figures_the_page_quotes() -> None:
    rows = pd.read_csv(KEPT, dtype={"group": str})
    means = rows.pivot_table(index=["setting", "criterion", "group"], columns="step", values="mean_score")
    assert f"{(means[20] - means[5]).abs().max():.1f}" == "5.2"
    black = rows[(rows["group"] == "Black") & (rows["setting"] == "u-4")]
    dp = black[black["criterion"] == "demographic_parity"]
    assert f"{dp['selection_rate'].min():.2f}" == "0.55" and f"{dp['selection_rate'].max():.2f}" == "0.58"
    falls = means[means[20] < means[0]].index.tolist()
    assert falls == [("u-4", "demographic_parity", "Black")]
    mu = black[black["criterion"] == "max_utility"].set_index("step")["mean_score"]
    assert f"{mu[1] - mu[0]:.1f}" == "8.3"
    last = rows[(rows["step"] == 20) & (rows["setting"] == "u-10") & (rows["group"] == "Black")]
    burden = last.set_index("criterion")["default_burden"]
    ratios = sorted(round(burden[c] / burden["max_utility"]) for c in ("demographic_parity", "equal_opportunity"))
    assert ratios == [7, 13]


def test_the_script_writes_its_table_and_figures(tmp_path) -> None:
    out = tmp_path / "di"
    assert guarded(lambda: over_time.main(["--out", str(out), "--steps", "2"])) == 0
    assert {"delayed_impact.csv", "table.md", "over_time_u-4.png", "over_time_u-10.png"} <= {
        p.name for p in out.iterdir()
    }
    assert guarded(lambda: over_time.main(["--out", str(tmp_path / "bad"), "--steps", "0"])) == 2
    assert not (tmp_path / "bad").exists()
