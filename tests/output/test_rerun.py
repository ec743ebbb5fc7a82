"""Running the same command twice replaces its own results; a user's file is never a reason to suggest --overwrite."""

from __future__ import annotations

import pandas as pd

from recoursesim.output import record as ownership
from recoursesim.sweep.store import SweepStore
from tests.hostile.conftest import one_line_error


def test_the_same_run_twice_replaces_its_own_results(cli, tmp_path, scenario_file):
    path = str(scenario_file())
    out = tmp_path / "work" / "results" / "small" / "seed-0"
    assert cli("run", path)[0] == 0  # the default --out, as the README's first command
    first = pd.read_parquet(out / "summary.parquet")
    assert ownership.recorded_command(out) == {"command": "run", "scenario": "small", "seed": 0}
    status, stdout, err = cli("run", path)
    assert (status, err) == (0, ""), err
    assert "replacing what this command wrote there before" in stdout
    pd.testing.assert_frame_equal(first, pd.read_parquet(out / "summary.parquet"))
    assert not [p for p in out.parent.iterdir() if p.name != "seed-0"]  # no working or kept folder is left


def test_another_command_into_the_folder_still_needs_overwrite(cli, tmp_path, scenario_file):
    path = str(scenario_file())
    assert cli("run", path, "--out", "out")[0] == 0
    line = one_line_error(*cli("run", path, "--seed", "3", "--out", "out")[::2])  # another seed: other results
    assert "already holds files" in line and "--overwrite" in line
    other = scenario_file(name="other", filename="other.toml")
    line = one_line_error(*cli("run", str(other), "--out", "out")[::2])
    assert "already holds files" in line


def test_a_rerun_never_deletes_a_file_of_the_user(cli, tmp_path, scenario_file):
    path = str(scenario_file())
    out = tmp_path / "work" / "out"
    assert cli("run", path, "--out", "out")[0] == 0
    (out / "notes.txt").write_text("mine")
    line = one_line_error(*cli("run", path, "--out", "out")[::2])
    assert "notes.txt" in line and "did not write" in line
    assert (out / "notes.txt").read_text() == "mine"


def test_a_folder_of_the_users_files_suggests_another_out_not_overwrite(cli, tmp_path, scenario_file):
    (tmp_path / "work" / "mine").mkdir()
    (tmp_path / "work" / "mine" / "thesis.tex").write_text("mine")
    line = one_line_error(*cli("run", str(scenario_file()), "--out", "mine")[::2])
    assert "thesis.tex" in line and "choose a new --out" in line
    assert "add --overwrite" not in line  # it would refuse as well
    assert (tmp_path / "work" / "mine" / "thesis.tex").read_text() == "mine"


def test_a_recorded_command_in_a_hand_written_record_does_not_vouch_for_other_files(cli, tmp_path, scenario_file):
    out = tmp_path / "work" / "out"
    out.mkdir()
    (out / "data.csv").write_text("precious")
    ownership.record_command(out, {"command": "run", "scenario": "small", "seed": 0})
    line = one_line_error(*cli("run", str(scenario_file()), "--out", "out")[::2])
    assert "data.csv" in line and "did not write" in line
    assert (out / "data.csv").read_text() == "precious"


def test_a_released_lock_leaves_no_lock_file(tmp_path):
    store = SweepStore(tmp_path / "s")
    store.directory.mkdir(parents=True)
    with store.lock():
        assert (store.directory / ownership.LOCK).is_file()
    assert not (store.directory / ownership.LOCK).exists()
    with store.lock():  # and it can be taken again
        pass
    assert ownership.foreign_file(store.directory) is None  # nothing unrecorded is left behind


def test_a_finished_sweep_leaves_no_lock_file(cli, tmp_path, scenario_file):
    assert cli("sweep", str(scenario_file()), "--seeds", "2", "--out", "sw", "--quiet")[0] == 0
    folder = tmp_path / "work" / "sw"
    assert (folder / "manifest.json").is_file() and not (folder / ownership.LOCK).exists()
    assert ownership.foreign_file(folder) is None
