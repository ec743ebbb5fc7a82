"""A sweep over the number of lenders and the choice policy: a 2 x 2 grid at tiny sizes.

The summary carries the market measures per cell.
"""

import pandas as pd
import pytest

from recoursesim.report import load_results
from recoursesim.report.build import build_report
from recoursesim.scenario import Scenario
from recoursesim.sweep import SweepPlan, run_sweep, summarise


@pytest.fixture
def market(small):
    spec = small.spec | {
        "population": small.spec["population"] | {"initial": 40, "entrants": 4},
        "selection": {"name": "top_k", "k": 4},
        "market": {"choice": {"name": "all"}, "copies": 1},
        "lenders": [{"name": "bank"}],
    }
    return Scenario.from_dict(spec)


def test_a_grid_over_lenders_and_choice_summarises_the_market_measures(market, tmp_path):
    grid = {"market.copies": [1, 2], "market.choice.name": ["all", "best-odds"]}
    plan = SweepPlan.from_grid(market, grid, n_seeds=2, root_seed=3)
    assert plan.n_runs == 8
    report = run_sweep(plan, tmp_path / "s", progress=False)
    assert report.ok and report.succeeded == 8
    table = summarise(tmp_path / "s")
    pooled = table.loc[table["step"].isna() & (table["group"] == "all")]
    for copies in (1, 2):
        for choice in ("all", "best-odds"):
            cell = pooled.loc[(pooled["market.copies"] == copies) & (pooled["market.choice.name"] == choice)]
            measures = set(cell["metric"])
            assert {"market:systemic_exclusion", "market:homogenization", "market:portability"} <= measures
            homogenization = cell.loc[cell["metric"] == "market:homogenization", "mean"].item()
            if copies == 1 or choice == "best-odds":  # one application per applicant: exactly 1
                assert homogenization == pytest.approx(1.0)
            lenders = {m.split(":")[0] for m in measures} - {"market"}
            assert lenders == ({"bank-1"} if copies == 1 else {"bank-1", "bank-2"})
    # one lender: systemic exclusion is that lender's rejection rate, at every step and pooled
    one = table.loc[(table["market.copies"] == 1) & (table["market.choice.name"] == "all") & (table["group"] == "all")]
    exclusion = one.loc[one["metric"] == "market:systemic_exclusion", "mean"].to_numpy()
    rate = one.loc[one["metric"] == "bank-1:selection_rate", "mean"].to_numpy()
    assert exclusion == pytest.approx(1 - rate)


def test_a_market_sweeps_report_has_the_market_sections(market, tmp_path):
    plan = SweepPlan.from_grid(market, {"market.copies": [2]}, n_seeds=2)
    run_sweep(plan, tmp_path / "s", progress=False)
    report = build_report(load_results(tmp_path / "s"))
    ids = [section.id for section in report.sections]
    assert "lenders" in ids and "market" in ids
    lenders = next(s for s in report.sections if s.id == "lenders").tables[0]
    assert list(pd.unique(lenders["lender"])) == ["bank-1", "bank-2", "market"]
