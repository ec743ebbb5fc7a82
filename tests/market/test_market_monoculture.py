"""The monoculture experiment's runs, table and figure, at tiny sizes (the full run is kept in experiments/runs)."""

import numpy as np
import pandas as pd
import pytest

from recoursesim.reproductions.market_monoculture import (
    Condition,
    Sizes,
    conditions,
    figure,
    markdown_table,
    run_condition,
    scenario_of,
)

TINY = Sizes(initial=40, steps=2)


def test_the_grid_is_the_budgeted_one():
    cells = conditions(["german-credit", "adult"])
    assert len(cells) == 2 * 5 * 2 * 3  # data sets x lenders x cultures x choice policies


def test_scenarios_are_small_linear_markets():
    spec = scenario_of(Condition("german-credit", 3, "polyculture", "sequential"), TINY).spec
    assert spec["scorer"] == {"name": "model", "model": "logistic"}
    assert spec["market"]["copies"] == 3 and spec["market"]["choice"]["name"] == "sequential"
    assert spec["selection"] == {"name": "top_k", "k": 2} and spec["population"]["initial"] == 40
    adult = scenario_of(Condition("adult", 2, "monoculture", "all"), TINY).spec
    assert adult["selection"]["name"] == "threshold" and "observers" not in adult


@pytest.fixture(scope="module")
def rows():
    cells = [Condition("german-credit", n, "monoculture", choice) for n in (1, 2) for choice in ("all", "best-odds")]
    return pd.concat([run_condition(c, seed, TINY) for c in cells for seed in (0, 1)], ignore_index=True)


def test_runs_give_one_row_per_group(rows):
    assert set(rows["group"]) == {"female", "male", "all"}
    assert rows["dttr"][rows["group"] == "all"].isna().all()
    shares = rows[["systemic_exclusion", "portability"]].to_numpy(dtype=float)
    assert np.nanmin(shares) >= 0 and np.nanmax(shares) <= 1


def test_one_lender_and_best_odds_give_homogenization_one(rows):
    one = rows.loc[(rows["lenders"] == 1) & (rows["group"] == "all")]
    assert np.allclose(one["homogenization"], 1.0)
    assert np.allclose(one["systemic_exclusion"], 1 - one["selection_rate"])
    best = rows.loc[rows["choice"] == "best-odds"]  # one application each: observed = expected
    assert np.allclose(best["homogenization"].dropna(), 1.0)
    assert one["portability"].isna().all()  # no other lender


def test_identical_lenders_with_everybody_applying_exclude_as_one(rows):
    # a monoculture of two top-k lenders selects the same applicants: the market excludes what one lender does
    mono = rows.loc[(rows["choice"] == "all") & (rows["group"] == "all")].pivot(
        index="seed", columns="lenders", values="systemic_exclusion"
    )
    assert np.allclose(mono[1], mono[2])


def test_table_and_figure(rows):
    text = markdown_table(rows, ["german-credit"], lenders=2)
    lines = text.splitlines()
    assert lines[0].startswith("| choice | culture | group | systemic exclusion | homogenization |")
    assert len(lines) == 2 + 2 * 3  # header, rule, 2 choices x (female, male, all)
    fig = figure(rows)
    assert fig.axes[0].get_xlabel() == "number of lenders"


def test_the_kept_runs_hold_what_the_docs_say_of_five_lenders():
    from pathlib import Path

    from recoursesim.reproductions.market_monoculture import summarise

    kept = Path(__file__).resolve().parents[2] / "experiments" / "runs" / "market_monoculture.csv.gz"
    rows = pd.read_csv(kept, dtype={"group": str})
    assert len(rows) == 2 * 5 * 2 * 3 * 30 * 3  # conditions x seeds x (two groups and all)
    summary = summarise(rows.loc[(rows["group"] == "all") & (rows["lenders"] == 5)]).set_index(
        ["dataset", "culture", "choice"]
    )
    german = summary.loc[("german-credit", "monoculture", "all")]
    # identical top-k lenders and everybody applying everywhere: exclusion r = 0.95, homogenization r^(1-L)
    assert german["systemic_exclusion_mean"] == pytest.approx(0.95)
    assert german["homogenization_mean"] == pytest.approx(0.95**-4, abs=5e-4)
    assert round(summary.loc[("adult", "monoculture", "all"), "homogenization_mean"]) == 3
