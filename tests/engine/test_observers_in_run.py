"""The auditors run as per-step observers inside a simulation, configured from a scenario."""

import pandas as pd
import pytest

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
    assert {"ccm", "effort", "facts"} <= set(obs["observer"])
    assert obs.loc[obs["observer"] == "facts", "step"].unique().tolist() == [0, 4]
    assert obs["value"].notna().any()
    result.write(tmp_path)
    assert len(pd.read_parquet(tmp_path / "observations.parquet")) == len(obs)


def test_unknown_observer_name_suggests():
    spec = Scenario.bundled("default").spec | {"observers": [{"name": "fact"}]}
    with pytest.raises(ConfigError, match=r"observers\[0\]\.name: unknown observer 'fact'; fix: did you mean 'facts'"):
        Scenario.from_dict(spec)
