import json

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.policy.sensitivity import design, run_sensitivity, seed_noise_share
from recoursesim.policy.space import ParamRange, parse_metric, parse_ranges
from recoursesim.scenario import load_scenario
from tests.hostile.conftest import one_line_error
from tests.policy._fake_runs import NOISE_SD, known_runner
from tests.policy._outputs import study_outputs

pytestmark = pytest.mark.policy

RANGES = [
    ParamRange("selection.k", 10, 200, integer=True),
    ParamRange("population.entrants", 10, 200, integer=True),
    ParamRange("scorer.intercept", 0.0, 0.1),
]


def _analyse(tmp_path, method, n, *, seed, n_seeds, metric, expected_samples):
    """Run the known-answer analysis; return the result and its indices by parameter."""
    the_design = design(RANGES, method, n, seed=seed)
    assert len(the_design.params) == expected_samples
    result = run_sensitivity(
        load_scenario("default"),
        the_design,
        parse_metric(metric),
        tmp_path / "sweep",
        n_seeds=n_seeds,
        runner=known_runner,
    )
    return result, result.indices.set_index("parameter")


def test_sobol_recovers_a_known_answer(tmp_path):
    # y = 4·x1 + x2 (x uniform on [0, 1]) + seed noise; x3 inert. Var(y) = (16 + 1)/12, so
    # ST(x1) = 16/17 ≈ 0.94, ST(x2) = 1/17 ≈ 0.06, ST(x3) = 0.
    result, table = _analyse(tmp_path, "sobol", 64, seed=3, n_seeds=3, metric="dTTR:a", expected_samples=64 * 5)
    assert table.loc["selection.k", "rank"] == 1
    assert table.loc["population.entrants", "rank"] == 2
    inert = table.loc["scorer.intercept"]
    assert inert["ST_low"] <= 0 <= inert["ST_high"] or abs(inert["ST"]) < 1e-12
    assert abs(inert["ST"]) < 0.01 and abs(inert["S1"]) < 0.05
    assert table.loc["selection.k", "ST_low"] <= 16 / 17 <= table.loc["selection.k", "ST_high"]
    assert table.loc["selection.k", "ST"] == pytest.approx(16 / 17, abs=0.1)
    assert table.loc["population.entrants", "ST"] == pytest.approx(1 / 17, abs=0.05)
    # Every sample runs the same three seeds, so its seed variance is that of the same three noise draws.
    seeds = np.random.SeedSequence(load_scenario("default").seed).spawn(3)
    draws = [np.random.default_rng(s.generate_state(1)).normal(0.0, NOISE_SD) for s in seeds]
    samples = result.samples
    assert samples["var"].to_numpy() == pytest.approx(np.var(draws, ddof=1))
    assert result.noise_share == pytest.approx(np.var(draws, ddof=1) / 3 / samples["mean"].var(ddof=1))
    assert result.noise_share < 0.01
    assert list(samples.columns[:4]) == ["sample", "selection.k", "population.entrants", "scorer.intercept"]
    assert (samples["n_seeds"] == 3).all()


def test_morris_ranks_the_dominant_parameter_first(tmp_path):
    _, table = _analyse(tmp_path, "morris", 12, seed=1, n_seeds=2, metric="dttr:a", expected_samples=12 * 4)
    assert table.loc["selection.k", "rank"] == 1
    assert table.loc["scorer.intercept", "mu_star"] == pytest.approx(0.0, abs=1e-9)
    assert table.loc["selection.k", "mu_star"] == pytest.approx(4.0, rel=0.1)  # effect of the full range


def test_seed_noise_share_by_hand():
    frame = pd.DataFrame({"mean": [1.0, 2.0, 3.0], "var": [0.3, 0.6, np.nan], "n_seeds": [3, 3, 1]})
    # noise = mean(0.1, 0.2) = 0.15; Var(1, 2, 3) = 1
    assert seed_noise_share(frame) == pytest.approx(0.15)


def test_equal_rounded_samples_share_a_point():
    the_design = design([ParamRange("selection.k", 1, 3, integer=True)], "sobol", 16, seed=0)
    assert the_design.n_points <= 3
    plan = the_design.plan(load_scenario("default"), 2)
    assert len(plan.points) == the_design.n_points


@pytest.mark.parametrize(
    ("items", "field"),
    [(["selection.k=10"], "--param"), (["selection.k=a:b"], "--param selection.k"), (["k=5:1"], "--param k")],
)
def test_bad_ranges_name_the_field(items, field):
    with pytest.raises(ConfigError) as error:
        parse_ranges(items)
    assert error.value.field == field


def test_cli_morris_writes_the_outputs_and_resumes(tmp_path, capsys):
    out = tmp_path / "sens"
    argv = [
        "sensitivity", "default", "--param", "selection.k=10:40", "--param", "population.entrants=5:30",
        "--param", "run.steps=3:6", "--metric", "dTTR:disadvantaged", "--method", "morris", "--samples", "2",
        "--seeds", "2", "--resamples", "50", "--out", str(out), "--quiet",
    ]  # fmt: skip
    assert main(argv) == 0
    for name in ("samples.parquet", "indices.parquet", "sensitivity.png", "sensitivity.json", "sweep/manifest.json"):
        assert (out / name).is_file(), name
    first = pd.read_parquet(out / "indices.parquet")
    assert set(first["parameter"]) == {"selection.k", "population.entrants", "run.steps"}
    assert main(argv) == 2  # --out holds files
    assert "already holds files" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    pd.testing.assert_frame_equal(first, pd.read_parquet(out / "indices.parquet"))
    assert main([*argv, "--overwrite"]) == 0  # every file is recorded (the sweep's in its own record)
    pd.testing.assert_frame_equal(first, pd.read_parquet(out / "indices.parquet"))
    capsys.readouterr()
    pd.DataFrame({"mine": [1]}).to_parquet(out / "indices.parquet")
    line = one_line_error(main([*argv, "--resume"]), capsys.readouterr().err)
    assert "indices.parquet was not written by recoursesim" in line
    assert pd.read_parquet(out / "indices.parquet").columns.tolist() == ["mine"]


def test_cli_rejects_an_unknown_metric_in_one_line(tmp_path, capsys):
    argv = [
        "sensitivity", "default", "--param", "selection.k=10:40", "--metric", "nope:disadvantaged",
        "--method", "morris", "--samples", "2", "--seeds", "1", "--out", str(tmp_path / "s"), "--quiet",
    ]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'nope' is not a pooled metric" in err[0] and "dttr" in err[0]


def test_the_package_example_runs_and_writes_every_file(tmp_path, monkeypatch):
    import re

    import recoursesim.policy
    from recoursesim.output import record as ownership
    from recoursesim.policy.sensitivity import SENSITIVITY_FILES

    example = re.search(r"```python\n(.*?)```", recoursesim.policy.__doc__ or "", re.S)
    assert example is not None
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(example.group(1), names)
    out = tmp_path / "results" / "sens"
    assert {p.name + "/" * p.is_dir() for p in out.iterdir()} == {*SENSITIVITY_FILES, ownership.RECORD}
    assert ownership.foreign_file(out) is None  # all recorded: --overwrite may replace it
    notes = json.loads((out / "sensitivity.json").read_text(encoding="utf-8"))
    assert notes["n_samples"] == 16 * (2 + 2) and notes["seeds"] == 4 and notes["scenario"] == "default"
    pd.testing.assert_frame_equal(pd.read_parquet(out / "indices.parquet"), names["result"].indices)


def test_a_stopped_analysis_can_be_replaced(tmp_path, monkeypatch):
    import recoursesim.cli.sensitivity as command
    from tests.policy._fake_runs import CrashingRunner

    out = tmp_path / "sens"
    argv = [
        "sensitivity", "default", "--param", "selection.k=10:40", "--metric", "dTTR:disadvantaged",
        "--method", "morris", "--samples", "2", "--seeds", "2", "--out", str(out), "--quiet",
    ]  # fmt: skip
    real = command.run_sensitivity
    with monkeypatch.context() as patch:  # stopped after two runs: only the sweep's files are there
        patch.setattr(command, "run_sensitivity", lambda *a, **kw: real(*a, **kw, runner=CrashingRunner(after=2)))
        assert main(argv) == 2
    assert not (out / "indices.parquet").exists() and (out / "sweep" / "runs").is_dir()
    assert main([*argv, "--overwrite"]) == 0
    assert (out / "indices.parquet").is_file()


def test_overwrite_never_removes_a_data_file_the_scenario_names(tmp_path, capsys):
    from recoursesim.output import record as ownership
    from tests.user_csv import people, user_scenario_text

    out = tmp_path / "sens"
    study = ["--param", "selection.k=10:40", "--method", "morris", "--samples", "2", "--seeds", "1", "--quiet"]
    assert main(["sensitivity", "default", "--metric", "dTTR:disadvantaged", *study, "--out", str(out)]) == 0
    people().to_csv(out / "people.csv", index=False)  # a table in the study's directory, then used as data
    ownership.record_file(out, out / "people.csv")
    scenario = tmp_path / "user.toml"
    scenario.write_text(user_scenario_text(out / "people.csv"), encoding="utf-8")
    capsys.readouterr()
    status = main(["sensitivity", str(scenario), "--metric", "dTTR:m", *study, "--out", str(out), "--overwrite"])
    line = one_line_error(status, capsys.readouterr().err)
    assert "people.csv, which is an input of this run" in line
    assert pd.read_csv(out / "people.csv").equals(people())


@pytest.mark.parametrize("method", ["sobol", "morris"])
def test_two_identical_runs_write_identical_files(tmp_path, method):
    # Everything but the session's wall time (sensitivity.json's seconds_this_session) is the same.
    # The default scenario's seed is 0, which SALib's Sobol analysis used to take for "unseeded":
    # the point estimates agreed and the bootstrap intervals (and the figure) did not.
    argv = [
        "sensitivity", "default", "--param", "selection.k=10:40", "--param", "population.entrants=5:30",
        "--param", "run.steps=3:6", "--metric", "dTTR:disadvantaged", "--method", method, "--samples", "2",
        "--seeds", "1", "--resamples", "50", "--quiet",
    ]  # fmt: skip
    assert load_scenario("default").seed == 0
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        assert main([*argv, "--out", str(out)]) == 0
    first, second = (study_outputs(out, "sensitivity.json") for out in outs)
    assert set(first["record"]) == {"sweep/", "samples.parquet", "indices.parquet", "sensitivity.png"}
    assert {"indices.parquet", "sensitivity.png", "samples.parquet"} <= set(first["files"])
    assert any(name.startswith("sweep/runs/") for name in first["files"])
    assert sorted(first["files"]) == sorted(second["files"])
    for name in first["files"]:
        assert first["files"][name] == second["files"][name], name
    assert first["notes"] == second["notes"] and first["record"] == second["record"]
    low = "S1_low" if method == "sobol" else "mu_star_low"
    assert pd.read_parquet(outs[0] / "indices.parquet")[low].notna().all()


def test_the_bootstrap_follows_the_root_seed():
    from recoursesim.policy.sensitivity import analyse

    the_design = design(RANGES, "sobol", 8, seed=3)
    y = np.random.default_rng(1).normal(size=len(the_design.params))
    frame = pd.DataFrame({"mean": y})
    one = analyse(the_design, frame, resamples=40, root_seed=0)
    pd.testing.assert_frame_equal(one, analyse(the_design, frame, resamples=40, root_seed=0))
    other = analyse(the_design, frame, resamples=40, root_seed=1)
    pd.testing.assert_series_equal(one["S1"], other["S1"])  # the estimates do not resample
    assert not np.allclose(one["S1_low"], other["S1_low"])  # the intervals do, from the root seed's stream
    pd.testing.assert_frame_equal(analyse(the_design, frame, resamples=40), analyse(the_design, frame, resamples=40))
