"""The recovery experiment: its scenarios' free parameters are fields of the scenario, and kept rows accumulate."""

import gzip

import pandas as pd
import pytest

from recoursesim.calibration import PanelSimulator
from recoursesim.policy.space import parse_ranges
from recoursesim.reproductions import calibration_recovery as experiment
from recoursesim.scenario import Scenario


@pytest.mark.parametrize("label", ["bell2024", "german-credit", "german-credit-threshold", "fico", "fico-repayment"])
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


def test_collect_keeps_the_rows_of_scenarios_and_run_lengths_not_run_now(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "panels").mkdir(parents=True)
    row = {c: 0 for c in experiment.COLUMNS} | {"particles": 5, "generations": 2, "truth": 0.5, "low": 0.1, "high": 0.9}
    earlier = pd.DataFrame([row | {"scenario": "bell2024", "parameter": "population.q", "steps": 8},
                            row | {"scenario": "fico", "parameter": "old", "steps": 8},
                            row | {"scenario": "fico", "parameter": "longer", "steps": 20}])  # fmt: skip
    (out / "calibration_recovery.csv.gz").write_bytes(gzip.compress(earlier.to_csv(index=False).encode()))
    now = pd.DataFrame(
        [row | {"scenario": "fico", "parameter": "population.effort.scale", "covered": True, "steps": 8}]
    )
    now.to_csv(out / "panels" / experiment.panel_file("fico", 0, 8), index=False)
    argv = ["--scenario", "fico", "--panels", "1", "--steps", "8", "--collect", "--out", str(out)]
    assert experiment.main(argv) == 0
    kept = pd.read_csv(out / "calibration_recovery.csv.gz")
    assert kept[["scenario", "steps", "parameter"]].values.tolist() == [
        ["bell2024", 8, "population.q"],
        ["fico", 20, "longer"],
        ["fico", 8, "population.effort.scale"],
    ]
    assert "| fico | 8 | population.effort.scale | 1 | 5 × 2 |" in capsys.readouterr().out


def test_german_credit_lends_k_a_step_whatever_the_effort_so_its_counts_pin_k_and_not_the_effort():
    # Why the recovery identifies k and hardly the effort scale: top-k lending approves exactly k of the
    # waiting applicants each step, so the totals of approvals, applicants and re-applicants are set by k
    # and the entrants alone, whatever the effort; effort shows only in how the loans split between the
    # groups and in the mean scores.
    table, items = experiment.SCENARIOS["german-credit"]
    scenario = Scenario.from_dict({**table, "run": {"steps": 4, "seed": 0}})
    simulator = PanelSimulator(scenario, tuple(parse_ranges(items)), ("applicants",), 4, ("female", "male"))
    initial, entrants = 200, 10
    for k in (6, 13):
        panels = [simulator.panel({"population.effort.scale": e, "selection.k": k}, [3]) for e in (0.02, 0.3)]
        for panel in panels:
            totals = panel.groupby("step")[["applicants", "approvals", "reapplicants"]].sum()
            steps = totals.index.to_numpy()
            assert totals["approvals"].tolist() == [k] * len(steps)
            assert totals["applicants"].tolist() == (initial + steps * (entrants - k)).tolist()
            assert totals["reapplicants"].tolist() == [0, *(initial + steps[1:] * (entrants - k) - entrants)]
        assert not panels[0]["mean_score"].equals(panels[1]["mean_score"])
