import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from recoursesim import __version__
from recoursesim.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_run_default_prints_summary_and_writes_parquet(tmp_path, capsys):
    assert main(["run", "--out", str(tmp_path / "r"), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    for word in ("advantaged", "disadvantaged", "successes", "censored", "ETR", "TTR", "rETR", "dTTR"):
        assert word in out
    ledger = pd.read_parquet(tmp_path / "r" / "ledger.parquet")
    metrics = pd.read_parquet(tmp_path / "r" / "metrics.parquet")
    assert len(ledger) > 0 and {"etr", "ttr", "retr", "dttr"} <= set(metrics.columns)
    assert not [p for p in (tmp_path).iterdir() if p.name.startswith(".")]  # no temporary leftovers


def test_same_seed_byte_identical_parquet(tmp_path):
    scenario = str(ROOT / "scenarios" / "default.toml")
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
        model = Scenario.bundled(name).build_model(0)
        model.run(until=1)
        assert len(model.ledger) > 0
