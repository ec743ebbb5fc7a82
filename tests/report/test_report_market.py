"""The report's Lenders and Market sections, on run directories whose ledger is a hand-made two-lender market.

The market ledger is made from a real single-lender run: its rows are lender A's, and a second
lender B decides the same applicants by a fixed rule (every agent with an odd id is accepted).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recoursesim.metrics.market_table import market_table
from recoursesim.report import load_results
from recoursesim.report.build import build_report
from recoursesim.report.market import pooled_per_run
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate


def two_lender_ledger(ledger: pd.DataFrame) -> pd.DataFrame:
    """Lender A = the run's own decisions; lender B accepts the odd agent ids; A's advice is the one acted on."""
    a = ledger.assign(acted=~ledger["selected"] & (ledger["effort"] > 0))
    odd = (ledger["agent_id"] % 2 == 1).to_numpy()
    rec = [c for c in ledger.columns if c.startswith("rec_")]
    b = ledger.assign(selected=odd, acted=False, threshold=0.5, effort=0.0)
    b.loc[odd, rec] = np.nan
    b.loc[~odd, rec] = ledger.loc[~odd, [c[4:] for c in rec]].to_numpy() + 0.1
    a["lender"], b["lender"] = "A", "B"
    both = pd.concat([a, b], ignore_index=True).sort_values(["step", "agent_id", "lender"], kind="stable")
    both["lender"] = pd.Categorical(both["lender"], categories=["A", "B"])
    return both.reset_index(drop=True)


@pytest.fixture(scope="module")
def market_runs(tmp_path_factory):
    scenario = Scenario.bundled("default").with_overrides({"run.steps": 5, "population.initial": 80})
    root = tmp_path_factory.mktemp("market")
    for seed in (0, 1, 2):
        result = simulate(scenario, seed)
        result.__dict__["ledger"] = two_lender_ledger(result.model.ledger)
        (root / f"seed-{seed}").mkdir()
        result.write(root / f"seed-{seed}")
    return root


def test_a_market_run_writes_its_market_table(market_runs):
    directory = market_runs / "seed-0"
    written = pd.read_parquet(directory / "market.parquet")
    ledger = pd.read_parquet(directory / "ledger.parquet")
    expected = market_table(ledger, reference_group="advantaged")
    pd.testing.assert_frame_equal(written, expected, check_categorical=False)
    # metrics.parquet is the market's: one row per (step, group), selected = by any lender applied to
    metrics = pd.read_parquet(directory / "metrics.parquet")
    market = written.loc[(written["lender"] == "market") & (written["group"] != "all")]
    assert np.allclose(metrics["selection_rate"], market["selection_rate"].to_numpy())


def test_report_has_lender_and_market_sections(market_runs):
    report = build_report(load_results(market_runs))
    ids = [section.id for section in report.sections]
    assert ids.index("utility") < ids.index("lenders") < ids.index("market") < ids.index("auditors")
    lenders = next(s for s in report.sections if s.id == "lenders")
    table = lenders.tables[0]
    assert list(dict.fromkeys(table["lender"])) == ["A", "B", "market"]
    assert [f.name for f in lenders.figures] == ["lenders_over_time"]
    market = next(s for s in report.sections if s.id == "market")
    assert list(market.tables[0]["group"]) == ["advantaged", "disadvantaged", "all"]
    assert [f.name for f in market.figures] == ["market_over_time"]
    boundary = next(s for s in report.sections if s.id == "boundary")
    assert "own decision boundary" in boundary.paragraphs[0]


def test_pooled_values_match_the_table(market_runs):
    results = load_results(market_runs)
    run = results.runs[0]
    pooled = pooled_per_run(
        run.market.assign(seed="0", lender=run.market["lender"].astype(str), group=run.market["group"].astype(str))
    )
    b = pooled.loc[(pooled["lender"] == "B") & (pooled["group"] == "all")].iloc[0]
    b_rows = run.market.loc[(run.market["lender"] == "B") & (run.market["group"] == "all")]
    assert b.selection_rate == b_rows["n_selected"].sum() / b_rows["n_applicants"].sum()


def test_a_single_lender_report_has_no_market_sections(tmp_path):
    scenario = Scenario.bundled("default").with_overrides({"run.steps": 3, "population.initial": 40})
    simulate(scenario, 0).write(tmp_path)
    assert not (tmp_path / "market.parquet").exists()
    ids = [section.id for section in build_report(load_results(tmp_path)).sections]
    assert "lenders" not in ids and "market" not in ids
