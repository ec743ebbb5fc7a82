"""Files a scenario names (a user's CSV, a skops model) start at the scenario file's folder, in every process."""

from __future__ import annotations

import shutil
import tomllib

import pandas as pd
import skops.io as sio
from own_model_helpers import defendants_scenario

from recoursesim.cli import main
from recoursesim.scenario import load_scenario

MODEL_FILE = '[scorer]\nmodel_file = "model.skops"\n'
SCENARIO = defendants_scenario("data/defendants.csv", MODEL_FILE)


def _audit_folder(root, user_csv, user_model):
    folder = root / "audit"
    (folder / "data").mkdir(parents=True)
    shutil.copy(user_csv, folder / "data" / "defendants.csv")
    sio.dump(user_model, folder / "model.skops")
    (folder / "s.toml").write_text(SCENARIO)
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    return folder, elsewhere


def test_relative_paths_start_at_the_scenario_file_and_at_each_base(tmp_path, monkeypatch, user_csv, user_model):
    folder, elsewhere = _audit_folder(tmp_path, user_csv, user_model)
    monkeypatch.chdir(elsewhere)
    spec = load_scenario(folder / "s.toml").spec
    assert spec["population"]["path"] == str(folder.resolve() / "data" / "defendants.csv")
    assert spec["scorer"]["model_file"] == str(folder.resolve() / "model.skops")
    # A child in another folder inherits its base's files, still relative to the base's folder;
    # a path the child states itself starts at the child's folder.
    child = elsewhere / "child"
    child.mkdir()
    (child / "k5.toml").write_text('base = "../../audit/s.toml"\n[selection]\nk = 5\n')
    inherited = load_scenario(child / "k5.toml").spec
    assert inherited["population"]["path"] == spec["population"]["path"]
    assert inherited["scorer"]["model_file"] == spec["scorer"]["model_file"]
    shutil.copy(folder / "model.skops", child / "mine.skops")
    (child / "own.toml").write_text('base = "../../audit/s.toml"\n[scorer]\nmodel_file = "mine.skops"\n')
    assert load_scenario(child / "own.toml").spec["scorer"]["model_file"] == str(child.resolve() / "mine.skops")
    # From Python, a table has no folder: its relative paths start at the working directory.
    monkeypatch.chdir(folder)
    from_dict = load_scenario(tomllib.loads(SCENARIO)).spec
    assert from_dict["population"]["path"] == spec["population"]["path"]


def test_two_worker_sweep_from_other_working_directories(tmp_path, monkeypatch, user_csv, user_model):
    folder, elsewhere = _audit_folder(tmp_path, user_csv, user_model)
    monkeypatch.chdir(elsewhere)  # the workers start here, where no relative path resolves
    scenario = str(folder / "s.toml")
    assert main(["sweep", scenario, "--seeds", "2", "--workers", "2", "--out", str(tmp_path / "first")]) == 0
    monkeypatch.chdir(folder)  # reused workers keep the old working directory
    assert main(["sweep", "s.toml", "--seeds", "2", "--workers", "2", "--out", str(tmp_path / "second")]) == 0
    first = pd.read_parquet(tmp_path / "first" / "summary.parquet")
    second = pd.read_parquet(tmp_path / "second" / "summary.parquet")
    pd.testing.assert_frame_equal(first, second)
    assert len(first) > 0


def test_show_of_a_base_with_a_model_file_prints_a_scenario_that_loads_the_same(
    tmp_path, monkeypatch, capsys, user_csv, user_model
):
    folder, elsewhere = _audit_folder(tmp_path, user_csv, user_model)
    (folder / "k5.toml").write_text('base = "s.toml"\n[selection]\nk = 5\n[scorer]\nmodel_file = "model.skops"\n')
    (folder / "s.toml").write_text(defendants_scenario("data/defendants.csv", '[scorer]\nname = "model"\n'))
    monkeypatch.chdir(elsewhere)
    assert main(["show", str(folder / "k5.toml")]) == 0
    (elsewhere / "shown.toml").write_text(capsys.readouterr().out)
    shown, original = load_scenario(elsewhere / "shown.toml").spec, load_scenario(folder / "k5.toml").spec
    assert (
        shown["scorer"] == original["scorer"] == {"name": "fitted", "model_file": str(folder.resolve() / "model.skops")}
    )
    assert shown["population"] == original["population"] and shown["selection"]["k"] == 5
