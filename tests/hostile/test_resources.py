"""Resources: huge sweeps refused at once, hostile sizes refused up front, Ctrl-C, --out checked first."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.hostile.conftest import ROOT, one_line_error, tree


def test_a_sweep_of_a_trillion_runs_is_refused_before_anything_is_written(cli, scenario_file, tmp_path):
    path = str(scenario_file())
    started = time.perf_counter()
    line = one_line_error(*cli("sweep", path, "--seeds", "1000000000000", "--out", "o")[::2])
    assert "--seeds" in line and "1,000,000,000,000 runs" in line
    assert time.perf_counter() - started < 30  # planning 10^12 runs would not end
    values = ",".join(str(k) for k in range(1, 201))
    line = one_line_error(*cli("sweep", path, "--seeds", "1", "--grid", f"selection.k={values}", "--grid",
                               f"run.seed={values}")[::2])  # fmt: skip
    assert "--grid" in line and "40,000 points" in line
    assert tree(tmp_path / "work") == []


@pytest.mark.parametrize("auditor", ["facts", "effort", "ccm"])
def test_audits_check_out_before_the_work(cli, monkeypatch, auditor):
    import recoursesim.auditors.facts.presets as facts_data
    import recoursesim.cli.audit_ccm as ccm_command
    import recoursesim.cli.audit_effort as effort_command

    def never(*args, **kwargs):
        raise AssertionError("the audit started although --out is unusable")

    monkeypatch.setattr(facts_data, "preset", never)  # the first step of each audit
    monkeypatch.setattr(effort_command, "_fit", never)
    monkeypatch.setattr(ccm_command, "_load", never)
    extra = {"facts": ["--protected", "sex"], "effort": [], "ccm": ["--sensitive", "sex"]}[auditor]
    line = one_line_error(*cli("audit", auditor, "--dataset", "german", *extra, "--out", "/proc/recoursesim-x")[::2])
    assert "--out" in line and "cannot create a directory in /proc" in line


def test_ctrl_c_while_loading_is_one_line_and_130(cli, monkeypatch, scenario_file):
    import recoursesim.cli.run as run_command

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_command, "load_scenario", interrupted)
    status, _, err = cli("run", str(scenario_file()), "--no-write")
    assert status == 130 and len(err.strip().splitlines()) == 1 and "interrupted" in err


def test_ctrl_c_after_writing_leaves_no_partial_output(cli, monkeypatch, scenario_file, tmp_path):
    from recoursesim.simulate import RunResult

    real_write = RunResult.write

    def write_then_interrupt(self, directory):
        real_write(self, directory)
        raise KeyboardInterrupt

    monkeypatch.setattr(RunResult, "write", write_then_interrupt)
    status, _, err = cli("run", str(scenario_file()), "--out", "o")
    assert status == 130 and len(err.strip().splitlines()) == 1
    assert tree(tmp_path / "work") == []  # neither o nor a temporary directory


def test_sigint_during_start_up_is_one_line_and_130(tmp_path):
    """SIGINT as soon as the entry point runs: the command is still importing pandas, pyarrow and the model."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    entry = (
        # a shell started in the background ignores SIGINT and its children inherit that: restore the default
        "import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import recoursesim.__main__ as entry\nprint('started', flush=True)\n"
        "sys.argv = ['recoursesim', 'run', '--no-write']\nsys.exit(entry.main())"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", entry], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "started\n"
    time.sleep(0.05)  # into entry.main(): importing the command line takes far longer than this
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert err.strip().splitlines() == [
        "error: interrupted (Ctrl-C); nothing was left half-written (sweeps and studies continue with --resume)"
    ]
    assert list(tmp_path.iterdir()) == []


# -- sizes refused before any work (issue 37) ------------------------------------------------


def _never_read(monkeypatch, path):
    """Fail the test if ``path`` is read as text (a refusal must come from its size on disk)."""
    from pathlib import Path

    real = Path.read_text

    def read_text(self, *args, **kwargs):
        if self.resolve() == path.resolve():
            pytest.fail(f"{path} was read")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)


def test_a_2gb_sparse_scenario_or_base_file_is_refused_from_its_size(cli, scenario_file, tmp_path, monkeypatch):
    big = tmp_path / "work" / "big.toml"
    with open(big, "wb") as handle:
        handle.truncate(2 * 2**30)  # sparse: no disk used
    (tmp_path / "work" / "child.toml").write_text('base = "big.toml"\n')
    _never_read(monkeypatch, big)
    line = one_line_error(*cli("show", "big.toml")[::2])
    assert line == (
        "error: scenario: big.toml has 2.0 GiB; a scenario file has at most 1.0 MiB; fix: give a TOML scenario "
        "file (data goes in a CSV or Parquet file named by population.path)"
    )
    line = one_line_error(*cli("run", "child.toml", "--no-write")[::2])
    assert line.startswith("error: child.toml: base: ") and "2.0 GiB" in line and "at most 1.0 MiB" in line


def test_a_million_column_csv_is_refused_from_its_header(cli, tmp_path, monkeypatch):
    """The header is read up to 1 MiB (a million names are 6.9 MB) and counted; the file is never parsed."""
    import recoursesim.datasets.user as user

    work = tmp_path / "work"
    (work / "wide.csv").write_text(",".join(f"c{i}" for i in range(1_000_000)) + "\n")
    (work / "many.csv").write_text(",".join(f"c{i}" for i in range(20_000)) + "\n1" + ",1" * 19_999 + "\n")
    monkeypatch.setattr(user.pd, "read_csv", lambda *a, **k: pytest.fail("the CSV was parsed"))
    ccm = ("audit", "ccm", "--sensitive", "c0", "--target", "c1", "--csv")
    line = one_line_error(*cli(*ccm, "wide.csv")[::2])
    assert line.startswith("error: --csv: wide.csv: the header line is longer than 1.0 MiB")
    line = one_line_error(*cli(*ccm, "many.csv")[::2])
    assert line.startswith("error: --csv: many.csv has 20,000 columns; at most 10,000 are read; fix: keep the")


def test_a_csv_too_large_for_memory_is_refused_from_its_size(cli, tmp_path, monkeypatch):
    import recoursesim.datasets.user as user
    import recoursesim.resources as resources

    (tmp_path / "work" / "p.csv").write_text("a,b,g,y\n" + "1,2,x,0\n" * 1000)  # 8,008 bytes
    monkeypatch.setattr(resources, "available_memory", lambda: 50_000)  # < 10 bytes per byte of the file
    monkeypatch.setattr(user.pd, "read_csv", lambda *a, **k: pytest.fail("the CSV was parsed"))
    line = one_line_error(*cli("audit", "ccm", "--csv", "p.csv", "--sensitive", "g", "--target", "y")[::2])
    assert line.startswith("error: --csv: needs about 78.2 KiB of memory (reading 7.8 KiB of CSV) but 48.8 KiB")


@pytest.mark.policy
@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (
            ["optimise", "--objective", "min |dTTR:disadvantaged|", "--trials", "1000000000000", "--seeds", "1"],
            "error: --trials: gives 1,000,000,000,000 trials; at most 10,000 are allowed; fix: give fewer --trials",
        ),
        (
            ["optimise", "--objective", "min |dTTR:disadvantaged|", "--trials", "2000", "--seeds", "1000"],
            "error: --seeds: 2,000 trials x 1,000 seeds = 2,000,000 runs;",
        ),
        (
            ["sensitivity", "--metric", "dTTR:disadvantaged", "--samples", str(2**40), "--seeds", "1"],
            "error: --samples: gives 3,298,534,883,328 samples (N·(D+2) for Sobol, N·(D+1) for Morris)",
        ),
        (
            ["sensitivity", "--metric", "dTTR:disadvantaged", "--samples", "1024", "--seeds", "1000"],
            "error: --seeds: 2,048 samples x 1,000 seeds = 2,048,000 runs;",  # distinct samples (AB = B for one field),
        ),
        (
            ["sensitivity", "--metric", "dTTR:disadvantaged", "--method", "morris", "--samples", "2", "--levels", "1"],
            "error: --levels: must be an even number from 2 to 1,000, got 1; fix: give 4",
        ),
        (
            ["sensitivity", "--metric", "dTTR:disadvantaged", "--method", "morris", "--levels", "1000000000000"],
            "error: --levels: must be an even number from 2 to 1,000, got 1000000000000",
        ),
    ],
    ids=["trials", "trials-x-seeds", "samples", "samples-x-seeds", "levels-1", "levels-huge"],
)
def test_count_options_are_bounded_before_any_work(cli, scenario_file, tmp_path, argv, start):
    """Each count is refused in one line naming it, before a sample is drawn or a study opened (no files)."""
    command, *rest = argv
    param = ["--param", "scorer.intercept=0.0:0.1"]
    line = one_line_error(*cli(command, str(scenario_file()), *param, *rest, "--out", "o", "--quiet")[::2])
    assert line.startswith(start), line
    assert "out of memory" not in line
    assert tree(tmp_path / "work") == []


@pytest.mark.policy
@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["sensitivity", "--metric", "nope:disadvantaged", "--samples", "2", "--method", "morris"], "--metric: 'nope'"),
        (["optimise", "--objective", "min |dTTR:martians|", "--trials", "2"], "--objective: 'martians' is not a group"),
        (
            ["optimise", "--objective", "min |dTTR:disadvantaged|", "--constraint", "etr:nobody >= 1", "--trials", "2"],
            "--constraint: 'nobody' is not a group",
        ),
    ],
    ids=["sensitivity-metric", "optimise-objective", "optimise-constraint"],
)
def test_a_misspelt_metric_is_refused_before_any_run(cli, scenario_file, tmp_path, monkeypatch, argv, start):
    """Checked against a zero-step run of the scenario: no sweep starts (it used to fail after the whole sweep)."""
    from recoursesim.sweep import runner

    monkeypatch.setattr(runner.SweepStore, "prepare", lambda *a, **k: pytest.fail("a sweep started"))
    command, *rest = argv
    param = ["--param", "selection.k=2:6"]
    line = one_line_error(*cli(command, str(scenario_file()), *param, *rest, "--seeds", "1", "--out", "o")[::2])
    assert line.startswith(f"error: {start}"), line
    assert tree(tmp_path / "work") == []
