"""Resources: huge sweeps refused at once, shards verified on resume, a full disk, Ctrl-C, --out checked first."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time

import pytest

from recoursesim.sweep import store as sweep_store
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


def test_resume_reruns_a_truncated_or_changed_shard(cli, scenario_file, tmp_path):
    path = str(scenario_file())
    assert cli("sweep", path, "--seeds", "3", "--out", "o", "--quiet")[0] == 0
    runs = tmp_path / "work" / "o" / "runs"
    shards = sorted(runs.glob("*.parquet"))
    original = {p.name: p.read_bytes() for p in shards}
    shards[0].write_bytes(original[shards[0].name][: len(original[shards[0].name]) // 2])  # truncated
    data = bytearray(original[shards[1].name])
    data[len(data) // 2] ^= 0xFF  # same size, one byte changed
    shards[1].write_bytes(bytes(data))
    status, _, err = cli("sweep", path, "--seeds", "3", "--out", "o", "--resume")
    assert status == 0, err
    assert "2 shard(s)" in err and "run again" in err
    assert {p.name: p.read_bytes() for p in runs.glob("*.parquet")} == original  # reruns are deterministic
    assert cli("summarise", "o", "--quiet")[0] == 0


def test_a_full_disk_stops_the_sweep_in_one_line_and_it_resumes(cli, scenario_file, tmp_path, monkeypatch):
    path = str(scenario_file())
    real_write = sweep_store.write_atomic
    calls = []

    def full_after_two(target, data):
        calls.append(target)
        if len(calls) == 3:  # the manifest and one shard fit, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        return real_write(target, data)

    monkeypatch.setattr(sweep_store, "write_atomic", full_after_two)
    line = one_line_error(*cli("sweep", path, "--seeds", "4", "--out", "o", "--quiet")[::2])
    assert "No space left on device" in line and "--resume" in line and "1 finished runs are kept" in line
    runs = tmp_path / "work" / "o" / "runs"
    assert len(list(runs.glob("*.parquet"))) == 1 and not list(runs.glob(".*"))  # no partial shard
    monkeypatch.setattr(sweep_store, "write_atomic", real_write)
    status, _, err = cli("sweep", path, "--seeds", "4", "--out", "o", "--quiet", "--resume")
    assert status == 0, err
    assert len(list(runs.glob("*.parquet"))) == 4


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
