"""The auditors run as per-step observers inside a simulation, configured from a scenario."""

import pandas as pd
import pytest

from recoursesim.auditors.effort.recourse import BOUNDARY_TOLERANCE
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate


def test_scenario_observers_record_per_step_rows_and_are_written(tmp_path):
    spec = Scenario.bundled("default").spec | {
        "run": {"steps": 4, "seed": 0},
        "observers": [
            {"name": "ccm", "every": 2},
            {"name": "equality_of_effort", "every": 2},
            {"name": "facts", "every": 4},
        ],
    }
    result = simulate(Scenario.from_dict(spec), 3)
    obs = result.model.observations
    assert set(obs["step"]) == {0, 2, 4}
    assert obs.loc[obs["observer"] == "facts", "step"].unique().tolist() == [0, 4]
    ledger = result.model.ledger
    value = obs.set_index(["observer", "step", "group", "metric"])["value"]
    for t in (0, 2):
        # The agents waiting after step t are those not selected at t; the ledger's step t+1 holds
        # their features after acting, scored by the fixed ranker, and step t holds the cut-off s_t.
        waiting = ledger[(ledger["step"] == t) & ~ledger["selected"]].set_index("agent_id")
        later = ledger[ledger["step"] == t + 1].set_index("agent_id").loc[waiting.index]
        cut_off = ledger.loc[ledger["step"] == t, "threshold"].iloc[0]
        for group in ("advantaged", "disadvantaged"):
            mine = later[later["group"] == group]
            favourable = int((mine["score"] >= cut_off).sum())
            assert value[("ccm", t, group, "n")] == len(mine)
            assert value[("ccm", t, group, "CP")] + value[("ccm", t, group, "SN")] == favourable
            counts = sum(value[("ccm", t, group, cell)] for cell in ("CP", "SN", "SP", "CN"))
            assert counts == len(mine)
            switched = value[("ccm", t, group, "SP")] + value[("ccm", t, group, "SN")]
            assert value[("ccm", t, group, "SR")] == pytest.approx(switched / len(mine))
            # equality of effort counts agents within its boundary tolerance of s_t as favourable
            # (agents who moved exactly onto the boundary)
            reached = int((mine["score"] >= cut_off - BOUNDARY_TOLERANCE).sum())
            assert value[("effort", t, group, "n_unfavourable")] == len(mine) - reached
            assert value[("effort", t, group, "ACR")] > 0
    facts = obs[obs["observer"] == "facts"].set_index(["step", "metric"])["value"]
    for t in (0, 4):
        assert facts[(t, "n_subgroups")] >= 1 and float(facts[(t, "n_subgroups")]).is_integer()
        unfair = facts.loc[t][facts.loc[t].index.str.startswith("n_unfair:")]
        assert len(unfair) > 0 and (unfair >= 0).all() and (unfair <= facts[(t, "n_subgroups")]).all()
    result.write(tmp_path)
    written = pd.read_parquet(tmp_path / "observations.parquet")
    assert len(written) == len(obs)
    pd.testing.assert_series_equal(written["value"], obs["value"], check_names=False)


def test_unknown_observer_name_suggests():
    spec = Scenario.bundled("default").spec | {"observers": [{"name": "fact"}]}
    with pytest.raises(ConfigError, match=r"observers\[0\]\.name: unknown observer 'fact'; fix: did you mean 'facts'"):
        Scenario.from_dict(spec)
