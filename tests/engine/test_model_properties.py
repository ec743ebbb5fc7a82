"""Invariants of the loop, as hypothesis properties over random scenarios."""

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recoursesim.engine.agent_table import Status
from recoursesim.scenario import Scenario

GROUP = {"qualification": [{"means": [0.4], "sds": [0.2]}, {"means": [0.5], "sds": [0.1]}]}


@st.composite
def scenarios(draw):
    n_groups = draw(st.integers(1, 3))
    shares = np.full(n_groups, 1 / n_groups)
    groups = [
        {
            "name": f"g{i}",
            "share": float(shares[i]) if i < n_groups - 1 else float(1 - shares[:-1].sum()),
            "effort": {"mean": draw(st.floats(0, 2)), "sd": 1.0, "scale": draw(st.floats(0, 0.2))},
            **GROUP,
        }
        for i in range(n_groups)
    ]
    steps = draw(st.integers(0, 6))
    entrants = draw(st.integers(0, 15) | st.lists(st.integers(0, 15), min_size=steps, max_size=steps))
    behaviour = draw(
        st.sampled_from(
            [{"name": "bounded_effort"}, {"name": "bounded_effort", "adaptation": "binary"}, {"name": "follow_exactly"}]
        )
    )
    selection = draw(
        st.sampled_from([{"name": "top_k", "k": draw(st.integers(1, 40))}, {"name": "threshold", "threshold": 0.5}])
    )
    spec = {
        "run": {"steps": steps},
        "population": {"name": "mixture", "initial": draw(st.integers(1, 60)), "entrants": entrants, "groups": groups},
        "scorer": {"name": "linear", "weights": [0.5, 0.5]},
        "selection": selection,
        "recourse": {
            "name": "linear",
            "norm": draw(st.sampled_from(["l1", "l2"])),
            "action_set": {"lower": [0, 0], "upper": [1, 1]},
        },
        "behaviour": behaviour,
    }
    if draw(st.booleans()):
        spec["model"] = {"patience": draw(st.integers(1, 4))}
    return Scenario.from_dict(spec)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), seed=st.integers(0, 2**32 - 1))
def test_loop_invariants(scenario, seed):
    model = scenario.build_model(seed).run()
    ledger = model.ledger
    table = model.table
    # agents conserved: entered = selected + gave up + still waiting
    status = table.status
    assert table.n == model.n_initial + int(model.entrants.sum())
    assert (status == Status.SELECTED).sum() + (status == Status.GAVE_UP).sum() + (
        status == Status.WAITING
    ).sum() == table.n
    assert set(model.waiting_ids.tolist()) == set(np.flatnonzero(status == Status.WAITING).tolist())
    # exactly min(k, n) selected per step (top-k)
    per_step = ledger.groupby("step")["selected"].agg(["size", "sum"])
    if scenario.spec["selection"]["name"] == "top_k":
        k = scenario.spec["selection"]["k"]
        assert (per_step["sum"] == np.minimum(k, per_step["size"])).all()
    # a selected agent never reappears, and appears selected exactly once
    selected_at = ledger.loc[ledger["selected"]].groupby("agent_id")["step"].agg(["size", "first"])
    assert (selected_at["size"] == 1).all()
    last_seen = ledger.groupby("agent_id")["step"].max()
    assert (last_seen.loc[selected_at.index] == selected_at["first"]).all()
    # each agent appears in consecutive steps from its entry step
    spans = ledger.groupby("agent_id").agg(
        first=("step", "min"), last=("step", "max"), n=("step", "size"), entry=("entry_step", "first")
    )
    assert (spans["n"] == spans["last"] - spans["first"] + 1).all()
    assert (spans["first"] == spans["entry"]).all()
    # effort spent is non-negative, and zero for the selected
    assert (ledger["effort"] >= 0).all()
    assert (ledger.loc[ledger["selected"], "effort"] == 0).all()
    # metrics stay in range
    from recoursesim.metrics import recourse_over_time

    m = recourse_over_time(ledger, reference_group="g0")
    assert ((m["selection_rate"].dropna() >= 0) & (m["selection_rate"].dropna() <= 1)).all()
    assert (m["etr"].dropna() >= 0).all() and (m["ttr"].dropna() >= 1).all()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), seed=st.integers(0, 2**32 - 1))
def test_same_seed_same_ledger(scenario, seed):
    a = scenario.build_model(seed).run().ledger
    b = scenario.build_model(seed).run().ledger
    pd.testing.assert_frame_equal(a, b)


def test_different_seeds_different_ledgers():
    scenario = Scenario.bundled("default")
    a = scenario.build_model(1).run().ledger
    b = scenario.build_model(2).run().ledger
    # same shape of run: the same columns, steps and initial population size ...
    assert list(a.columns) == list(b.columns)
    assert a["step"].max() == b["step"].max() == scenario.steps
    first_a = a.loc[a["step"] == 0].sort_values("agent_id")
    first_b = b.loc[b["step"] == 0].sort_values("agent_id")
    assert len(first_a) == len(first_b) == scenario.spec["population"]["initial"]
    # ... but different agents: other initial features, so other scores and other selections
    for column in ("skill", "experience", "score"):
        assert not np.allclose(first_a[column].to_numpy(), first_b[column].to_numpy()), column
    assert not np.array_equal(first_a["selected"].to_numpy(), first_b["selected"].to_numpy())


def test_step_order_entrants_scored_next_step_and_run_until():
    scenario = Scenario.bundled("default")
    model = scenario.build_model(0)
    model.run(until=3)
    assert model.t == 4 and model.running
    ledger = model.ledger
    assert ledger["step"].max() == 3
    # 20 entrants join after each step and are first scored one step later
    assert (ledger.loc[ledger["step"] == 1, "entry_step"] == 1).sum() == 20
    model.run()
    assert not model.running and model.t == scenario.steps + 1


def test_a_spawned_seed_sequence_gives_the_same_run_twice():
    import numpy as np

    scenario = Scenario.bundled("default").with_overrides({"run.steps": 3})
    seed = np.random.SeedSequence(11).spawn(3)[2]
    a = scenario.build_model(seed).run().ledger
    b = scenario.build_model(seed).run().ledger
    pd.testing.assert_frame_equal(a, b)
    assert seed.n_children_spawned == 0  # the caller's sequence is left untouched
