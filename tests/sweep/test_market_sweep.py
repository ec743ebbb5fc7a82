"""Sweeps keep a market run's measures: long rows named <lender>:<measure>, summarised per grid point."""

import numpy as np
import pandas as pd
import pytest

from recoursesim.metrics.market_table import COUNTS
from recoursesim.simulate import simulate
from recoursesim.sweep.market_rows import is_market_metric, market_rows, market_table_from_rows
from tests.report.test_report_market import two_lender_ledger


@pytest.fixture
def fake_market_result(small):
    result = simulate(small, 0)
    result.__dict__["ledger"] = two_lender_ledger(result.model.ledger)
    return result


def test_market_rows_round_trip_to_the_table(fake_market_result):
    rows = market_rows(fake_market_result)
    assert is_market_metric(rows["metric"]).all()
    assert {"market:systemic_exclusion", "A:selection_rate", "B:portability", "market:dttr"} <= set(rows["metric"])
    rebuilt = market_table_from_rows(rows.assign(step=rows["step"].where(rows["step"] >= 0)), ["A", "B"])
    table = fake_market_result.market
    assert list(rebuilt["lender"].drop_duplicates()) == ["A", "B", "market"]
    for column in (*COUNTS, "systemic_exclusion", "homogenization", "portability", "etr"):
        assert np.allclose(rebuilt[column].to_numpy(), table[column].to_numpy(dtype=float), equal_nan=True), column


def test_pooled_rows_are_the_market_summary(fake_market_result):
    rows = market_rows(fake_market_result, per_step=False)
    assert (rows["step"] == -1).all()
    table = fake_market_result.market
    market = table.loc[(table["lender"] == "market") & (table["group"] == "all")]
    pooled = rows.set_index(["group", "metric"])["value"]
    assert pooled[("all", "market:systemic_exclusion")] == pytest.approx(
        market["n_excluded"].sum() / market["n_applicants"].sum()
    )


def test_a_single_lender_run_has_no_market_rows(small):
    assert market_rows(simulate(small, 0)) is None


def test_single_lender_shards_are_unchanged(small):
    from recoursesim.sweep.plan import SweepPlan
    from recoursesim.sweep.worker import execute

    task = next(SweepPlan.from_grid(small, n_seeds=1).tasks())
    outcome = execute(task)
    shard = pd.read_parquet(__import__("io").BytesIO(outcome.shard))
    assert not is_market_metric(shard["metric"]).any()
