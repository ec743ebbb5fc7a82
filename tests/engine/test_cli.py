import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from recoursesim import __version__
from recoursesim.cli import main
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate


def test_run_default_prints_summary_and_writes_parquet(tmp_path, capsys):
    assert main(["run", "--out", str(tmp_path / "r"), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    for word in ("advantaged", "disadvantaged", "successes", "censored", "ETR", "TTR", "rETR", "dTTR"):
        assert word in out
    ledger = pd.read_parquet(tmp_path / "r" / "ledger.parquet")
    metrics = pd.read_parquet(tmp_path / "r" / "metrics.parquet")
    summary = pd.read_parquet(tmp_path / "r" / "summary.parquet").set_index("group")
    # the files hold exactly the run simulate() makes for the same scenario and seed
    expected = simulate(Scenario.bundled("default"), 3)
    for column in ("step", "agent_id", "score", "selected", "effort"):
        np.testing.assert_array_equal(ledger[column].to_numpy(), expected.ledger[column].to_numpy(), err_msg=column)
    np.testing.assert_allclose(metrics["etr"].to_numpy(), expected.metrics["etr"].to_numpy(), equal_nan=True)
    # the default scenario: steps 0..20, 200 agents at step 0, top-20 selection every step
    assert ledger["step"].min() == 0 and ledger["step"].max() == 20
    assert (ledger["step"] == 0).sum() == 200
    assert (ledger.groupby("step")["selected"].sum() == 20).all()
    # the printed table is the summary file: each group's successes and censored counts appear on its line
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip().startswith(("adv", "dis"))}
    for group in ("advantaged", "disadvantaged"):
        assert str(int(summary.loc[group, "recourse"])) in lines[group]
        assert str(int(summary.loc[group, "censored"])) in lines[group]
    assert summary["entered"].sum() == ledger["agent_id"].nunique()
    assert not [p for p in (tmp_path).iterdir() if p.name.startswith(".")]  # no temporary leftovers


def test_same_seed_byte_identical_parquet(tmp_path):
    scenario = "default"  # a bundled scenario, by name
    assert main(["run", scenario, "--seed", "7", "--out", str(tmp_path / "A")]) == 0
    assert main(["run", scenario, "--seed", "7", "--out", str(tmp_path / "B")]) == 0
    names = sorted(p.name for p in (tmp_path / "A").iterdir())
    assert "ledger.parquet" in names and "metrics.parquet" in names
    for name in names:
        assert (tmp_path / "A" / name).read_bytes() == (tmp_path / "B" / name).read_bytes(), name


def test_steps_override(tmp_path):
    assert main(["run", "--steps", "3", "--out", str(tmp_path / "r")]) == 0
    assert pd.read_parquet(tmp_path / "r" / "ledger.parquet")["step"].max() == 3


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["audit", "--help"]])
def test_help(argv):
    proc = subprocess.run([sys.executable, "-m", "recoursesim.cli", *argv], capture_output=True, text=True)
    assert proc.returncode == 0 and "usage:" in proc.stdout


def test_version():
    proc = subprocess.run([sys.executable, "-m", "recoursesim.cli", "--version"], capture_output=True, text=True)
    assert proc.stdout.strip() == f"recoursesim {__version__}"


def test_bundled_scenarios_all_load_and_run_briefly():
    from recoursesim.scenario import Scenario, bundled_names

    for name in bundled_names():
        scenario = Scenario.bundled(name)
        model = scenario.build_model(0)
        model.run(until=1)  # steps 0 and 1
        assert set(model.ledger["step"]) == {0, 1}, name
        ledger = model.ledger[model.ledger["step"] == 0]
        assert len(ledger) == model.n_initial, name  # every initial agent scored once at step 0
        selected = ledger["selected"].to_numpy(dtype=bool)
        assert 0 < selected.sum() < len(ledger), name  # somebody got the outcome, somebody did not
        scores = ledger["score"].to_numpy(dtype=float)
        assert np.isfinite(scores).all(), name
        assert np.isfinite(ledger["threshold"].to_numpy(dtype=float)).all(), name
        rec = [c for c in ledger.columns if c.startswith("rec_")]
        assert rec and ledger.loc[~selected, rec].notna().any(axis=1).all(), name  # the rejected got recommendations


def test_help_fills_the_description_and_keeps_the_table_of_files_as_written():
    import argparse

    from recoursesim.cli._common import FilesHelpFormatter, with_files

    description = with_files("one two three four five six", {"a.csv": "the rows", "figure.png": "the plot"}, "Files")
    parser = argparse.ArgumentParser(
        prog="p", description=description, formatter_class=lambda prog: FilesHelpFormatter(prog, width=20)
    )
    # 18 columns of text (argparse keeps 2 of the 20 free); names padded to the longest, then two spaces
    expected = "one two three four\nfive six\n\nFiles:\n  a.csv       the rows\n  figure.png  the plot\n"
    assert expected in parser.format_help()


def _files_of(command):
    from recoursesim.calibration import CALIBRATION_FILES
    from recoursesim.cli.compare import COMPARE_FILES
    from recoursesim.policy.search_files import OPTIMISE_FILES
    from recoursesim.policy.sensitivity import SENSITIVITY_FILES
    from recoursesim.simulate import RESULT_FILES

    tables = {"run": RESULT_FILES, "compare": COMPARE_FILES, "optimise": OPTIMISE_FILES}
    return {**tables, "sensitivity": SENSITIVITY_FILES, "calibrate": CALIBRATION_FILES}[command]


@pytest.mark.parametrize("command", ["run", "compare", "optimise", "sensitivity", "calibrate"])
def test_help_lists_the_files_a_command_writes(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    for name, what in _files_of(command).items():
        assert [name, *what.split()] in lines, name
