"""Domain-, model- and selection-boundary-shift observers inside runs, and their bad input."""

from importlib import resources

import numpy as np
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate


def _spec(observers, steps=6, **changes):
    spec = Scenario.bundled("default").spec | {"run": {"steps": steps, "seed": 0}, "observers": observers}
    spec.update(changes)
    return spec


def _rows(observations, observer, metric, group=None):
    mine = observations[(observations["observer"] == observer) & (observations["metric"] == metric)]
    mine = mine[mine["group"].isna()] if group is None else mine[mine["group"] == group]
    return mine.set_index("step")["value"]


def test_domain_shift_grows_as_agents_move_and_is_reported_per_group():
    spec = _spec([{"name": "domain_shift", "every": 3, "permutations": 99}], steps=9)
    observations = simulate(Scenario.from_dict(spec), 1).model.observations
    mmd = _rows(observations, "domain_shift", "mmd2")
    assert list(mmd.index) == [0, 3, 6, 9]
    assert mmd.loc[9] > mmd.loc[0]  # agents have moved toward the cut-off
    assert _rows(observations, "domain_shift", "p_value").loc[9] < 0.05
    for group in ("advantaged", "disadvantaged"):
        assert _rows(observations, "domain_shift", "mmd2", group).notna().all()
    assert _rows(observations, "domain_shift", "bandwidth").nunique() == 1  # fixed for the run


def test_model_shift_is_zero_for_a_fixed_model_and_positive_when_retrained():
    fixed = simulate(Scenario.from_dict(_spec([{"name": "model_shift", "every": 2}])), 2).model.observations
    assert (_rows(fixed, "model_shift", "disagreement") == 0).all()
    assert (_rows(fixed, "model_shift", "param_change") == 0).all()
    cda = Scenario.bundled("bell2024-cda").spec | {"run": {"steps": 6, "seed": 0}}
    cda["observers"] = [{"name": "model_shift", "every": 2}]
    observations = simulate(Scenario.from_dict(cda), 2).model.observations
    change = _rows(observations, "model_shift", "param_change")
    assert change.loc[0] == 0  # the paper's refit order (refit_then_restate) does not refit at step 0
    assert change.iloc[-1] > 0
    assert np.isfinite(_rows(observations, "model_shift", "decisiveness")).all()


def test_selection_boundary_tracks_the_threshold_in_the_ledger():
    result = simulate(Scenario.from_dict(_spec([{"name": "selection_boundary"}])), 3)
    threshold = _rows(result.model.observations, "selection_boundary", "threshold")
    ledger = result.ledger.groupby("step")["threshold"].first()
    np.testing.assert_allclose(threshold.to_numpy(), ledger.to_numpy())
    drift = _rows(result.model.observations, "selection_boundary", "drift")
    np.testing.assert_allclose(drift.to_numpy(), ledger.to_numpy() - ledger.iloc[0])
    change = _rows(result.model.observations, "selection_boundary", "change")
    assert np.isnan(change.iloc[0])
    np.testing.assert_allclose(change.iloc[1:].to_numpy(), np.diff(ledger.to_numpy()))


def test_per_agent_thresholds_get_per_group_rows():
    spec = _spec([{"name": "selection_boundary"}], steps=2, selection={"name": "cns", "k": 20, "threshold": "group"})
    observations = simulate(Scenario.from_dict(spec), 0).model.observations
    assert set(observations["group"].dropna()) == {"advantaged", "disadvantaged"}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"name": "domain_shift", "bandwidth": 0}, r"observers\[0\]\.bandwidth: must be > 0"),
        ({"name": "domain_shift", "bandwidth": -0.5}, r"observers\[0\]\.bandwidth: must be > 0"),
        ({"name": "domain_shift", "bandwidth": "silverman"}, r"observers\[0\]\.bandwidth: unknown bandwidth rule"),
        ({"name": "domain_shift", "permutations": -1}, r"observers\[0\]\.permutations: must be >= 0"),
        ({"name": "model_shift", "reference_size": 0}, r"observers\[0\]\.reference_size: must be >= 1"),
        ({"name": "selection_boundary", "every": 1.5}, r"observers\[0\]\.every: must be an integer"),
        ({"name": "domain_shift", "population": 3}, r"observers\[0\]\.population: unknown parameter"),
    ],
)
def test_bad_shift_parameters_fail_when_the_scenario_loads(table, message):
    with pytest.raises(ConfigError, match=message):
        Scenario.from_dict(_spec([table]))


BAD_TABLES = {
    "bandwidth": '[[observers]]\nname = "domain_shift"\nbandwidth = 0\n',
    "causal": '[[observers]]\nname = "ground_truth"\nweights = {skill = 1.0}\ncutoff = 0.5\ncausal = ["savings"]\n',
    "labels": '[[observers]]\nname = "ground_truth"\noutcome = "fitted"\n',
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_cli_bad_observer_exit_2_one_line_nothing_written(case, tmp_path, capsys):
    default = resources.files("recoursesim.scenarios").joinpath("default.toml").read_text(encoding="utf-8")
    path = tmp_path / "bad.toml"
    path.write_text(default + "\n" + BAD_TABLES[case])
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "observers[0]." in err and "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]
