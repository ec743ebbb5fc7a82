"""Invariants of market runs over random markets (hypothesis): rows, departures, who acts on what."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recoursesim.ledger import by_applicant
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate

CHOICES = ["all", "best-odds", "cheapest", "random", "sequential"]


@st.composite
def markets(draw):
    n_lenders = draw(st.integers(1, 4))
    lenders = []
    for i in range(n_lenders):
        w = draw(st.floats(0.1, 0.9))
        lenders.append(
            {
                "name": f"l{i}",
                "scorer": {"name": "linear", "weights": [w, 1 - w]},
                "selection": {"name": "top_k", "k": draw(st.integers(1, 8))},
            }
        )
    choice = {"name": draw(st.sampled_from(CHOICES))}
    if choice["name"] == "sequential":
        choice["cost"] = draw(st.sampled_from([0.0, 0.02, 0.5]))
    spec = Scenario.bundled("default").spec
    spec = spec | {"run": {"steps": 3, "seed": draw(st.integers(0, 2**16))}}
    spec["population"] = spec["population"] | {"initial": 30, "entrants": 5}
    market = {"choice": choice, "culture": draw(st.sampled_from(["polyculture", "monoculture"]))}
    if market["culture"] == "monoculture":  # lender 0's model is everybody's
        lenders = [lenders[0]] + [{k: v for k, v in lender.items() if k != "scorer"} for lender in lenders[1:]]
    return Scenario.from_dict(spec | {"market": market, "lenders": lenders})


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markets())
def test_market_ledger_invariants(scenario):
    result = simulate(scenario)
    ledger = result.ledger
    n_lenders = len(scenario.spec["lenders"])
    rows = ledger.groupby(["step", "agent_id"], observed=True)
    # At most one row per (step, agent, lender), so at most L rows per (step, agent).
    assert not ledger.duplicated(["step", "agent_id", "lender"]).any()
    assert rows.size().max() <= n_lenders
    # An agent accepted by any lender at step t has no row after t.
    chosen = rows["selected"].any()
    last = ledger.groupby("agent_id")["step"].max()
    accepted = chosen[chosen].reset_index()
    assert (last.loc[accepted["agent_id"]].to_numpy() == accepted["step"].to_numpy()).all()
    # Exactly the agents refused everywhere they applied act, each on one row with a recommendation.
    acted = rows["acted"].sum()
    np.testing.assert_array_equal(acted.to_numpy(), (~chosen).to_numpy().astype(int))
    assert ledger.loc[ledger["acted"], [c for c in ledger if c.startswith("rec_")]].notna().all().all()
    assert not (ledger["acted"] & ledger["selected"]).any()
    # Effort is never negative; the folded ledger has one row per (step, agent).
    assert (ledger["effort"] >= 0).all()
    folded = by_applicant(ledger)
    assert len(folded) == len(chosen) and folded["selected"].sum() == chosen.sum()
