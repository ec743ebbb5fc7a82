import numpy as np
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.reproductions.bell2024 import reproduce, setting_scenario
from recoursesim.simulate import simulate
from recoursesim.sweep import SweepAbortedError, SweepPlan, SweepStore, execute, run_sweep


def test_executor_failure_keeps_finished_runs_and_resume_completes(small, tmp_path):
    plan = SweepPlan.from_grid(small, {}, n_seeds=6)
    calls = []

    def dies_on_the_fourth(task):
        calls.append(task.seed_index)
        if len(calls) == 4:
            raise MemoryError("worker lost")
        return execute(task)

    with pytest.raises(SweepAbortedError, match=r"failed after 3/6 runs: MemoryError: worker lost.*--resume"):
        run_sweep(plan, tmp_path / "s", progress=False, runner=dies_on_the_fourth)
    assert len(SweepStore(tmp_path / "s").finished()) == 3
    report = run_sweep(plan, tmp_path / "s", resume=True, progress=False)
    assert (report.skipped, report.succeeded, report.ok) == (3, 3, True)


def test_a_second_sweep_cannot_write_into_a_directory_in_use(small, tmp_path):
    plan = SweepPlan.from_grid(small, {}, n_seeds=2)
    run_sweep(plan, tmp_path / "s", progress=False)
    with SweepStore(tmp_path / "s").lock(), pytest.raises(ConfigError, match="another sweep is writing"):
        run_sweep(plan, tmp_path / "s", resume=True, progress=False)


def test_quiet_prints_nothing_and_help_exits_0(small_toml, tmp_path, capsys):
    assert main(["sweep", str(small_toml), "--seeds", "2", "--out", str(tmp_path / "s"), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    for command in ("sweep", "summarise"):
        with pytest.raises(SystemExit) as exit_info:
            main([command, "--help"])
        assert exit_info.value.code == 0
        assert "usage:" in capsys.readouterr().out


def test_reproduce_runs_a_resumable_sweep_with_spawned_seeds(tmp_path):
    cells = reproduce(["baseline"], 3, settings=[("equal", 1)], out=tmp_path / "t")
    assert [(c.metric, c.n_seeds) for c in cells] == [("rETR", 3), ("dTTR", 3)]
    seeds = np.random.SeedSequence(0).spawn(3)
    scenario = setting_scenario("equal", 1, "baseline")
    retr = [simulate(scenario, s).summary.set_index("group").loc["disadvantaged", "retr"] for s in seeds]
    assert cells[0].ours_mean == pytest.approx(np.mean(retr), rel=1e-12)
    again = reproduce(["baseline"], 3, settings=[("equal", 1)], out=tmp_path / "t", resume=True)
    assert again == cells
    with pytest.raises(ConfigError, match="already holds this sweep"):
        reproduce(["baseline"], 3, settings=[("equal", 1)], out=tmp_path / "t")
