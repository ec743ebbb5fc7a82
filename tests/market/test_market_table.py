"""The market table of a ledger against hand-computed values (the ledger in conftest.py), and its properties."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.errors import ConfigError
from recoursesim.ledger import by_applicant
from recoursesim.metrics import recourse_over_time
from recoursesim.metrics.market import homogenization, systemic_exclusion
from recoursesim.metrics.market_ledger import lender_view, market_masks
from recoursesim.metrics.market_table import market_summary, market_table, portability_pairs


def cell(table: pd.DataFrame, step: int, lender: str, group: str) -> pd.Series:
    rows = table.loc[
        (table["step"] == step) & (table["lender"].astype(str) == lender) & (table["group"].astype(str) == group)
    ]
    assert len(rows) == 1
    return rows.iloc[0]


def test_layout(hand_ledger):
    table = market_table(hand_ledger)
    # 2 steps x (A, B, market) x (g0, g1, all)
    assert len(table) == 2 * 3 * 3
    assert list(table["lender"].cat.categories) == ["A", "B", "market"]
    assert list(table["group"].cat.categories) == ["g0", "g1", "all"]


def test_lender_rows_by_hand(hand_ledger):
    table = market_table(hand_ledger)
    a0 = cell(table, 0, "A", "g0")  # agents 0 (accepted) and 1 (refused with advice, acted on it)
    assert (a0.n_applicants, a0.n_selected, a0.n_refused, a0.n_recommended, a0.n_acted) == (2, 1, 1, 1, 1)
    assert a0.selection_rate == 0.5 and a0.recourse_rate == 1.0 and a0.acted_rate == 1.0
    b1 = cell(table, 0, "B", "g1")  # agent 2 accepted, agent 3 refused without advice
    assert (b1.n_applicants, b1.n_selected, b1.n_refused, b1.n_recommended) == (2, 1, 1, 0)
    assert b1.recourse_rate == 0.0 and b1.acted_rate == 0.0
    assert np.isnan(a0.systemic_exclusion) and np.isnan(a0.homogenization)


def test_market_rows_by_hand(hand_ledger):
    table = market_table(hand_ledger)
    m0 = cell(table, 0, "market", "g0")  # agent 0 accepted by A; agent 1 refused by both
    assert (m0.n_applicants, m0.n_selected, m0.n_excluded, m0.n_recommended, m0.n_acted) == (2, 1, 1, 1, 1)
    assert m0.systemic_exclusion == 0.5
    # g0 at step 0: A rejects 1/2, B rejects 2/2: expected exclusion 2 * (1/2 * 1) = 1, observed 1
    assert m0.expected_excluded == pytest.approx(1.0) and m0.homogenization == pytest.approx(1.0)
    # all groups: A and B each reject 3/4: expected 4 * 9/16 = 2.25, observed 2 (agents 1, 3)
    all0 = cell(table, 0, "market", "all")
    assert all0.systemic_exclusion == 0.5 and all0.homogenization == pytest.approx(2 / 2.25)
    # step 1, g0: A rejects nobody, so independent lenders would exclude nobody: NaN
    assert np.isnan(cell(table, 1, "market", "g0").homogenization)
    assert cell(table, 1, "market", "g1").systemic_exclusion == 1.0


def test_portability_by_hand(hand_ledger):
    table = market_table(hand_ledger)
    # A advised agents 1 and 3 at step 0; B refused both at step 1: 0 of 2
    a = cell(table, 0, "A", "all")
    assert (a.n_ported, a.n_pairs, a.portability) == (0, 2, 0.0)
    # B advised agent 1; A accepted it at step 1: 1 of 1
    assert cell(table, 0, "B", "all").portability == 1.0
    # pooled over the advising lenders: 1 of 3; per group, g0 1 of 2 (agent 1 twice), g1 0 of 1
    assert cell(table, 0, "market", "all").portability == pytest.approx(1 / 3)
    assert cell(table, 0, "market", "g0").portability == 0.5
    assert cell(table, 0, "market", "g1").portability == 0.0
    assert np.isnan(cell(table, 1, "market", "all").portability)  # no step after the last


def test_recourse_by_view_by_hand(hand_ledger):
    table = market_table(hand_ledger, reference_group="g0")
    # agent 1: refused everywhere at step 0 after spending 0.5, selected by A at step 1
    market = cell(table, 1, "market", "g0")
    assert (market.n_recourse, market.etr, market.ttr) == (1, 0.5, 1.0)
    assert cell(table, 1, "A", "g0").etr == 0.5
    assert cell(table, 1, "B", "g0").n_recourse == 0  # B never selected agent 1
    assert np.isnan(cell(table, 1, "market", "g1").dttr)  # no recourse in g1


def test_views(hand_ledger):
    market = by_applicant(hand_ledger)  # the market view
    assert len(market) == 6 and "lender" not in market and "acted" not in market
    # the advice acted on (agents 1 and 3 followed A at step 0), else the first lender's row's
    assert np.allclose(market["rec_x"].to_numpy(dtype=float), [np.nan, 0.6, np.nan, 0.6, np.nan, 0.6], equal_nan=True)
    assert market.loc[market["agent_id"] == 2, "selected"].tolist() == [True]  # selected by B only
    assert market.loc[market["agent_id"] == 3, "effort"].tolist() == [0.25, 0.0]
    b = lender_view(hand_ledger, "B")
    assert b["selected"].tolist() == [False, False, True, False, False, False]  # B selected agent 2 only
    # agent 1's effort at step 0 (spent on A's advice) counts in B's view too
    assert b.loc[(b["agent_id"] == 1) & (b["step"] == 0), "effort"].item() == 0.5
    with pytest.raises(ConfigError, match="lender"):
        lender_view(hand_ledger, "C")


def test_masks_match_the_mask_measures(hand_ledger):
    masks = market_masks(hand_ledger)
    rows = masks.at(0)
    applied, accepted = masks.applied[rows], masks.accepted[rows]
    table = market_table(hand_ledger)
    assert systemic_exclusion(applied, accepted)["all"] == cell(table, 0, "market", "all").systemic_exclusion
    assert homogenization(applied, accepted)["all"] == pytest.approx(cell(table, 0, "market", "all").homogenization)


def test_duplicate_rows_refused(hand_ledger):
    with pytest.raises(ConfigError, match="two rows"):
        market_masks(pd.concat([hand_ledger, hand_ledger.iloc[:1]], ignore_index=True))


def test_summary_pools_counts(hand_ledger):
    summary = market_summary(hand_ledger, reference_group="g0")
    m = summary.loc[(summary["lender"] == "market") & (summary["group"] == "all")].iloc[0]
    # excluded: 2 at step 0 + 1 at step 1 over 4 + 2 applicants; expected 2.25 + 1 (step 1: A 1/2, B 1)
    assert m.systemic_exclusion == pytest.approx(3 / 6)
    assert m.homogenization == pytest.approx(3 / 3.25)
    g0 = summary.loc[(summary["lender"] == "market") & (summary["group"] == "g0")].iloc[0]
    assert (g0.n_recourse, g0.etr, g0.ttr, g0.dttr) == (1, 0.5, 1.0, 0.0)


def test_single_lender_ledger_is_a_market_of_one(hand_ledger):
    one = lender_view(hand_ledger, "A")  # an ordinary single-lender ledger (no lender column)
    table = market_table(one)
    assert list(table["lender"].cat.categories) == ["lender", "market"]
    market = table.loc[table["lender"] == "market"]
    lender = table.loc[table["lender"] == "lender"]
    assert np.allclose(market["systemic_exclusion"], 1 - lender["selection_rate"].to_numpy(), equal_nan=True)
    # the market view of one lender is that lender's ledger: the same ETR/TTR as the single-lender metrics
    single = recourse_over_time(one)
    ours = table.loc[(table["lender"] == "market") & (table["group"] != "all")]
    assert np.allclose(ours["etr"].to_numpy(), single["etr"].to_numpy(), equal_nan=True)


@st.composite
def random_ledgers(draw):
    n_lenders = draw(st.integers(1, 3))
    n_agents = draw(st.integers(1, 12))
    n_steps = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    lenders = tuple("ABC"[:n_lenders])
    rows = []
    for step in range(n_steps):
        for agent in range(n_agents):
            applied = rng.random(n_lenders) < 0.7
            for j in np.flatnonzero(applied):
                selected = bool(rng.random() < 0.4)
                rec = np.nan if selected or rng.random() < 0.2 else 1.0
                rows.append(
                    (step, agent, "g0" if agent % 2 else "g1", lenders[j], selected, rec, 0.1, False, rng.random())
                )
    return lenders, rows


@settings(max_examples=60, deadline=None)
@given(random_ledgers())
def test_properties(make_market_ledger, drawn):
    lenders, rows = drawn
    if not rows:
        return
    ledger = make_market_ledger(rows, lenders=lenders)
    table = market_table(ledger)
    for column in ("selection_rate", "recourse_rate", "acted_rate", "systemic_exclusion", "portability"):
        values = table[column].dropna()
        assert ((values >= 0) & (values <= 1)).all(), column
    assert (table["homogenization"].dropna() >= 0).all()
    if len(lenders) == 1:
        market = table.loc[table["lender"] == "market"]
        lender = table.loc[table["lender"] == "A"]
        homog = market["homogenization"].dropna()
        assert np.allclose(homog, 1.0)
        assert np.allclose(market["systemic_exclusion"], 1 - lender["selection_rate"].to_numpy(), equal_nan=True)


def test_portability_per_pair_by_hand(hand_ledger):
    pairs = portability_pairs(hand_ledger).set_index(["source", "target"])
    # A advised agents 1 and 3 at step 0, B refused both at step 1; B advised agent 1, A accepted it
    assert (pairs.loc[("A", "B"), "n_ported"], pairs.loc[("A", "B"), "n_pairs"]) == (0, 2)
    assert pairs.loc[("B", "A"), "portability"] == 1.0
    assert len(pairs) == 2  # no diagonal
    # pooled over the pairs, it is the market's portability over the run
    summary = market_summary(hand_ledger)
    market = summary.loc[(summary["lender"] == "market") & (summary["group"] == "all")].iloc[0]
    assert market.portability == pairs["n_ported"].sum() / pairs["n_pairs"].sum()
