"""ABC-SMC calibration recovers a known parameter; the command writes its files and resumes (needs pyabc)."""

import json

import pandas as pd
import pytest

from recoursesim.calibration import PanelSimulator, calibrate, read_posterior
from recoursesim.cli import main
from recoursesim.policy.space import parse_ranges
from recoursesim.scenario import Scenario, load_scenario
from tests.hostile.conftest import one_line_error

pytestmark = pytest.mark.calibrate

TRUTH = 0.5
SMALL = {"base": "bell2024-baseline", "name": "bell2024-small", "run": {"steps": 4, "seed": 0}}


def observed_panel(scenario: Scenario) -> pd.DataFrame:
    ranges = tuple(parse_ranges(["population.adaptation=0.1:1.0"]))
    statistics = ("applicants", "approvals", "reapplicants", "mean_score")
    simulator = PanelSimulator(scenario, ranges, statistics, 4, ("advantaged", "disadvantaged"))
    return simulator.panel({"population.adaptation": TRUTH}, [12345])


def test_one_parameter_posterior_covers_the_truth_and_is_narrower_than_the_prior(tmp_path):
    scenario = Scenario.from_dict(SMALL)
    ranges = parse_ranges(["population.adaptation=0.1:1.0"])
    result = calibrate(
        scenario, observed_panel(scenario), ranges, tmp_path, particles=30, generations=3, progress=False, seed=1
    )
    estimate = result.estimates.iloc[0]
    assert estimate["low"] <= TRUTH <= estimate["high"]
    assert estimate["high"] - estimate["low"] < 0.5 * (1.0 - 0.1)
    assert abs(estimate["median"] - TRUTH) < 0.15
    assert len(result.notes["generations"]) == 3
    assert result.sample["weight"].sum() == pytest.approx(1.0)


def test_command_writes_every_file_and_resume_adds_generations(tmp_path, capsys):
    scenario_file = tmp_path / "small.toml"
    scenario_file.write_text('base = "bell2024-baseline"\nname = "small"\n[run]\nsteps = 4\n', encoding="utf-8")
    data = tmp_path / "observed.csv"
    observed_panel(load_scenario(scenario_file)).to_csv(data, index=False)
    out = tmp_path / "out"
    argv = ["calibrate", str(scenario_file), "--data", str(data), "--param", "population.adaptation=0.1:1.0"]
    argv += ["--particles", "10", "--draws", "4", "--out", str(out)]
    assert main([*argv, "--generations", "1"]) == 0
    for name in ("posterior.parquet", "estimates.parquet", "pairs.png", "marginals.png", "predictive.png"):
        assert (out / name).is_file(), name
    assert main([*argv, "--generations", "2", "--resume"]) == 0
    err = capsys.readouterr().err
    assert "generation 2/2" in err and "runs/s" in err and "generation 1/2" not in err
    notes = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert [g["t"] for g in notes["generations"]] == [1]
    assert len(read_posterior(out / "posterior.toml")) == 4
    best = load_scenario(out / "best.toml")
    median = pd.read_parquet(out / "estimates.parquet")["median"].iloc[0]
    assert best.spec["population"]["adaptation"] == pytest.approx(median)
    assert "<img" in (out / "report.html").read_text(encoding="utf-8")
    line = one_line_error(main([*argv, "--generations", "2"]), capsys.readouterr().err)
    assert "--out" in line
    other = [a.replace("population.adaptation", "population.q") for a in argv]
    line = one_line_error(main([*other, "--generations", "3", "--resume"]), capsys.readouterr().err)
    assert "other parameters" in line
