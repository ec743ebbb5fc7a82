"""The recovery experiment: its scenarios' free parameters are fields of the scenario, and kept rows accumulate."""

import gzip

import pandas as pd
import pytest

from recoursesim.calibration import PanelSimulator
from recoursesim.policy.space import parse_ranges
from recoursesim.reproductions import calibration_recovery as experiment
from recoursesim.scenario import Scenario


@pytest.mark.parametrize("label", ["bell2024", "fico"])
def test_each_free_parameter_changes_the_panel(label):
    table, items = experiment.SCENARIOS[label]
    scenario = Scenario.from_dict({**table, "run": {"steps": 4, "seed": 0}})
    ranges = tuple(parse_ranges(items))
    groups = tuple(scenario.build_model(0).group_names)
    simulator = PanelSimulator(scenario, ranges, ("approvals", "reapplicants", "mean_score"), 4, groups)
    low = {r.key: r.low for r in ranges}
    at_low = simulator.panel(low, [5])
    for r in ranges:
        moved = simulator.panel({**low, r.key: r.high}, [5])
        assert not moved["mean_score"].equals(at_low["mean_score"]), r.key


def test_collect_keeps_the_rows_of_scenarios_not_run_now(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "panels").mkdir(parents=True)
    row = {c: 0 for c in experiment.COLUMNS} | {"particles": 5, "generations": 2, "truth": 0.5, "low": 0.1, "high": 0.9}
    earlier = pd.DataFrame([row | {"scenario": "bell2024", "parameter": "population.q"},
                            row | {"scenario": "fico", "parameter": "old"}])  # fmt: skip
    (out / "calibration_recovery.csv.gz").write_bytes(gzip.compress(earlier.to_csv(index=False).encode()))
    now = pd.DataFrame([row | {"scenario": "fico", "parameter": "population.effort.scale", "covered": True}])
    now.to_csv(out / "panels" / "fico-000.csv", index=False)
    assert experiment.main(["--scenario", "fico", "--panels", "1", "--collect", "--out", str(out)]) == 0
    kept = pd.read_csv(out / "calibration_recovery.csv.gz")
    assert kept[["scenario", "parameter"]].values.tolist() == [
        ["bell2024", "population.q"],
        ["fico", "population.effort.scale"],
    ]
    assert "| fico | population.effort.scale | 1 | 5 × 2 |" in capsys.readouterr().out
