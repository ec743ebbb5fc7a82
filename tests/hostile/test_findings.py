"""One regression test per finding of the hostile-input review (each reproduced before the fix)."""

from __future__ import annotations

import errno
import math
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.simulate import simulate
from tests.hostile.conftest import ROOT, one_line_error, tree


# 1. The scenario name cannot direct output outside results/.
@pytest.mark.parametrize("name", ["/tmp/pwned", "../../x", "x/../../../y", "..", ""])
def test_1_scenario_name_cannot_escape_results(cli, scenario_file, tmp_path, name):
    path = scenario_file(name)
    status, _, err = cli("run", str(path))
    assert status == 0, err
    work = tmp_path / "work"
    written = tree(work)
    assert written and all(p.startswith("results") for p in written)
    assert {p.split(os.sep)[1] for p in written if p.count(os.sep) >= 1} <= {"tmp-pwned", "x", "x-y", "scenario"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml", "work"]  # nothing next to work/


def test_1_sweep_default_directory_uses_the_slug(cli, scenario_file, tmp_path):
    status, _, err = cli("sweep", str(scenario_file("x/../../../y")), "--seeds", "1", "--quiet")
    assert status == 0, err
    assert (tmp_path / "work" / "results" / "sweep-x-y" / "manifest.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml", "work"]


# 2. Resource limits: refused before allocating, with the estimate and the fix.
def test_2_huge_step_count_is_refused_at_once(cli):
    started = time.perf_counter()
    line = one_line_error(*cli("run", "--steps", "1000000000")[::2])
    assert time.perf_counter() - started < 5
    assert "memory" in line and "--steps" in line and "--force" in line


@pytest.mark.parametrize("initial", [30_000_000, 2**63 - 1])
def test_2_huge_population_is_refused(cli, scenario_file, initial):
    path = scenario_file(extra="")
    path.write_text(path.read_text().replace("initial = 40", f"initial = {initial}"))
    line = one_line_error(*cli("run", str(path))[::2])
    assert "run size" in line and "population.initial" in line


def test_2_absurd_size_is_refused_even_with_force(cli, scenario_file):
    path = scenario_file()
    path.write_text(path.read_text().replace("initial = 40", f"initial = {2**63 - 1}"))
    one_line_error(*cli("run", str(path), "--force")[::2])
    with pytest.raises(ConfigError, match="run size"):
        simulate(Scenario.from_file(path), 0, force=True)


def test_2_workers_are_capped_with_a_note(cli, scenario_file):
    status, _, err = cli("sweep", str(scenario_file()), "--seeds", "1", "--workers", "1000", "--quiet", "--out", "s")
    assert status == 0
    assert err.strip() == "note: --workers 1000 capped at 1 (1 runs)"


def test_2_out_is_checked_before_simulating(cli, scenario_file, monkeypatch):
    import recoursesim.cli.run as run_command

    def no_simulation(*args, **kwargs):
        raise AssertionError("simulated before checking --out")

    monkeypatch.setattr(run_command, "simulate", no_simulation)
    (scenario_file().parent / "work" / "afile").write_text("x")
    line = one_line_error(*cli("run", str(scenario_file()), "--out", "afile")[::2])
    assert "--out" in line and "not a directory" in line


# 3. Operating-system errors a user can cause: one line, exit 2.
def test_3_out_under_proc(cli, scenario_file):
    line = one_line_error(*cli("run", str(scenario_file()), "--out", "/proc/recoursesim-test")[::2])
    assert line.startswith("error: --out: /proc/recoursesim-test")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_3_unreadable_scenario_and_read_only_directory(cli, scenario_file, tmp_path):
    path = scenario_file()
    path.chmod(0)
    one_line_error(*cli("run", str(path))[::2])
    path.chmod(0o644)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    line = one_line_error(*cli("run", str(path), "--out", str(locked / "r"))[::2])
    assert "Permission denied" in line


def test_3_full_disk_leaves_nothing(cli, scenario_file, tmp_path, monkeypatch):
    import recoursesim.simulate as simulate_module

    def full(frame, path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(simulate_module, "write_parquet", full)
    line = one_line_error(*cli("run", str(scenario_file()), "--out", "r")[::2])
    assert "No space left on device" in line and "--out" in line
    assert tree(tmp_path / "work") == []


def test_3_device_paths_for_report_and_summarise(cli, scenario_file, tmp_path):
    assert cli("run", str(scenario_file()), "--out", "r")[0] == 0
    one_line_error(*cli("report", "r", "--html", "/dev/full/x.html")[::2])
    assert cli("sweep", str(scenario_file()), "--seeds", "1", "--out", "sw", "--quiet")[0] == 0
    one_line_error(*cli("summarise", "sw", "--out", "/dev/full/x.parquet")[::2])
    # A special file is refused, never replaced (as root an atomic rename would replace the device
    # node itself); a FIFO stands in for /dev/full so that a regression cannot damage the machine.
    fifo = tmp_path / "work" / "pipe"
    os.mkfifo(fifo)
    for argv in (("summarise", "sw", "--out", str(fifo)), ("report", "r", "--html", str(fifo))):
        assert "not a regular file" in one_line_error(*cli(*argv)[::2])
    assert not fifo.is_file()


@pytest.mark.parametrize("name", ["n" * 5000, "a\x00b", "tab\there"])
def test_3_long_or_nul_names_are_written_under_a_slug(cli, scenario_file, tmp_path, name):
    status, _, err = cli("run", str(scenario_file(name)))
    assert status == 0, err
    (folder,) = (tmp_path / "work" / "results").iterdir()
    assert len(folder.name) <= 64 and "\x00" not in folder.name


def test_3_empty_csv_for_every_audit(cli, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    header = tmp_path / "header.csv"
    header.write_text("a,b,y\n")
    for csv in (empty, header):
        ccm = ("audit", "ccm", "--csv", str(csv), "--target", "y", "--sensitive", "a")
        line = one_line_error(*cli(*ccm)[::2])
        assert "--csv" in line
        effort = (
            *("audit", "effort", "--csv", str(csv), "--sensitive", "a", "--protected", "1", "--target", "y"),
            *("--variables", "a", "b", "--actionable", "b"),
        )
        assert "--csv" in one_line_error(*cli(*effort)[::2])
    assert tree(tmp_path / "work") == []


@pytest.mark.parametrize("value", ["nan", "inf", "[1,nan]"])
def test_3_non_finite_grid_values(cli, scenario_file, value):
    line = one_line_error(*cli("sweep", str(scenario_file()), "--seeds", "1", "--grid", f"run.steps={value}")[::2])
    assert "--grid run.steps" in line


# 4. Reusing --out never mixes runs.
def test_4_reused_out_is_refused_and_overwrite_replaces_everything(cli, scenario_file, tmp_path):
    observed = scenario_file(extra='\n[[observers]]\nname = "ccm"\n', filename="obs.toml")
    plain = scenario_file(filename="plain.toml")
    assert cli("run", str(observed), "--seed", "3", "--out", "mix")[0] == 0
    assert (tmp_path / "work" / "mix" / "observations.parquet").is_file()
    line = one_line_error(*cli("run", str(plain), "--seed", "5", "--out", "mix")[::2])
    assert "--overwrite" in line
    assert cli("run", str(plain), "--seed", "5", "--out", "mix", "--overwrite")[0] == 0
    assert not (tmp_path / "work" / "mix" / "observations.parquet").exists()
    assert '"seed": 5' in (tmp_path / "work" / "mix" / "scenario.json").read_text()
    assert not [p for p in (tmp_path / "work").iterdir() if p.name.startswith(".")]


def test_4_empty_out_is_refused(cli, scenario_file, tmp_path):
    status, _, err = cli("run", str(scenario_file()), "--out", "")
    one_line_error(status, err)
    assert tree(tmp_path / "work") == []


# 5. Leftovers after a kill are cleaned by the next run in the same place.
def test_5_killed_run_leaves_a_folder_the_next_run_removes(scenario_file, tmp_path):
    path = scenario_file(steps=20)
    path.write_text(path.read_text().replace("initial = 40", "initial = 200000").replace("k = 4", "k = 20000"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "recoursesim.cli", "run", str(path), "--out", "r", "--force"]
    child = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not [p for p in tmp_path.iterdir() if ".tmp-" in p.name] and time.monotonic() < deadline:
        time.sleep(0.05)
    child.kill()
    child.wait()
    left = [p for p in tmp_path.iterdir() if ".tmp-" in p.name]
    assert left, "the run was killed before it created its working directory"
    small = scenario_file(filename="small.toml")
    done = subprocess.run([*command[:4], str(small), "--out", "r2"], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


# 6. simulate() validates seeds and accepts names and paths.
@pytest.mark.parametrize("seed", [-1, "abc", math.nan, 1.5, True, 2.0, np.float64(3)])
def test_6_bad_seeds_raise_config_error(seed):
    with pytest.raises(ConfigError, match=r"^seed"):
        simulate(load_scenario("default"), seed)


def test_6_simulate_accepts_a_name_a_path_and_a_seed_sequence(scenario_file):
    by_name = simulate("default", 0, steps=1)
    by_path = simulate(scenario_file(), np.int64(2))
    by_sequence = simulate(scenario_file(), np.random.SeedSequence(2))
    assert by_name.scenario.name == "default" and len(by_path.ledger) > 0 and len(by_sequence.ledger) > 0
    pd.testing.assert_frame_equal(by_path.ledger, simulate(str(scenario_file()), 2).ledger)
    with pytest.raises(ConfigError, match="scenario"):
        simulate(42)  # type: ignore[arg-type]


def test_5_sweep_workers_end_when_the_driver_is_killed(scenario_file, tmp_path):
    psutil = pytest.importorskip("psutil")
    path = scenario_file(steps=20)
    path.write_text(path.read_text().replace("initial = 40", "initial = 20000").replace("k = 4", "k = 2000"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "recoursesim.cli", "sweep", str(path), "--seeds", "40", "--workers", "2"]
    driver = subprocess.Popen(
        [*command, "--out", "o", "--quiet"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    workers = []
    while time.monotonic() < deadline and not list((tmp_path / "o" / "runs").glob("*.parquet")):
        time.sleep(0.1)  # wait until the workers are busy with runs
    workers = psutil.Process(driver.pid).children(recursive=True)
    assert len(workers) >= 2, "no worker processes found"
    driver.kill()
    driver.wait()
    _, alive = psutil.wait_procs(workers, timeout=20)
    for process in alive:
        process.kill()
    assert not alive, f"{len(alive)} worker processes outlived the driver by 20 s"


# 8. Optional protocol members and every component parameter are checked when the scenario loads.
@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ('\n[[observers]]\nname = "ccm"\nevery = 0\n', "observers[0].every"),
        ('\n[[observers]]\nname = "facts"\nmin_support = 0\n', "observers[0].min_support"),
        ('\n[[observers]]\nname = "facts"\nmin_support = nan\n', "observers[0].min_support"),
        ('\n[[observers]]\nname = "equality_of_effort"\nintervention = "zzz"\n', "observers[0].intervention"),
        ('\n[training]\nname = "cda"\norder = "sometimes"\n', "training.order"),
        ('\n[training]\nname = "cda"\ndrop_short = 1\n', "training.drop_short"),
        ('\n[training]\nname = "refit"\nestimator_params = 3\n', "training.estimator_params"),
        ('\n[[observers]]\nname = "equality_of_effort"\nactionable = "x0"\n', "observers[0].actionable"),
        ('\n[[observers]]\nname = "ground_truth"\nweights = 3\n', "observers[0].weights"),
    ],
)
def test_8_component_parameters_are_checked_at_load(cli, scenario_file, extra, field):
    path = scenario_file(extra=extra)
    with pytest.raises(ConfigError) as caught:
        Scenario.from_file(path)
    assert caught.value.field == field
    line = one_line_error(*cli("run", str(path))[::2])
    assert field in line


def test_8_scorer_with_a_model_scores_an_empty_population():
    from recoursesim.checks.scorer import check_score_shape
    from recoursesim.registry import build

    check_score_shape(lambda: build("scorer", {"name": "model"}))


def test_4_sweep_overwrite_replaces_the_whole_directory(cli, scenario_file, tmp_path):
    path = str(scenario_file())
    assert cli("sweep", path, "--seeds", "1", "--out", "sw", "--quiet")[0] == 0
    (tmp_path / "work" / "sw" / "runs" / "stale.parquet").write_text("not from this sweep")
    assert "--out" in one_line_error(*cli("sweep", path, "--seeds", "2", "--out", "sw", "--quiet")[::2])
    assert "stale.parquet" in one_line_error(*cli("sweep", path, "--seeds", "2", "--out", "sw", "--overwrite")[::2])
    (tmp_path / "work" / "sw" / "runs" / "stale.parquet").unlink()  # only recorded files may be replaced
    status, _, err = cli("sweep", path, "--seeds", "2", "--out", "sw", "--overwrite", "--quiet")
    assert status == 0, err
    folder = tmp_path / "work" / "sw"
    assert len(list((folder / "runs").glob("*.parquet"))) == 2
    assert (folder / "summary.parquet").is_file()
    assert not [p for p in (tmp_path / "work").iterdir() if p.name.startswith(".")]
    one_line_error(*cli("sweep", path, "--seeds", "2", "--out", "sw", "--overwrite", "--resume")[::2])
