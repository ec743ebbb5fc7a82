"""The experiments' worker processes: results in order, and no worker outlives a killed experiment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recoursesim.reproductions.parallel import parallel_map


def test_results_come_back_in_the_order_of_the_jobs_in_and_out_of_workers() -> None:
    jobs = [(base, 3) for base in range(7)]
    assert parallel_map(pow, jobs, 1) == [b**3 for b in range(7)]
    assert parallel_map(pow, jobs, 2) == [b**3 for b in range(7)]


def _children(pid: int) -> list[int]:
    """The process ids whose parent is ``pid`` (Linux: read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:  # it has just ended
        return b""


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process parents from /proc (Linux)")
def test_a_killed_experiments_workers_stop_instead_of_finishing_their_jobs() -> None:
    # The experiment: two workers, each given a job of a minute.
    script = (
        "import time\n"
        "from recoursesim.reproductions.parallel import parallel_map\n"
        "parallel_map(time.sleep, [(60,), (60,)], 2)\n"
    )
    experiment = subprocess.Popen([sys.executable, "-c", script])
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            children = _children(experiment.pid)
            workers = [pid for pid in children if b"LokyProcess" in _cmdline(pid)]
            if len(workers) == 2:
                break
            time.sleep(0.2)
        assert len(workers) == 2, "the experiment did not start its two workers"
        time.sleep(2)  # the workers have their jobs
        os.kill(experiment.pid, signal.SIGKILL)
        experiment.wait()
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(pid) for pid in workers), "a worker outlived its experiment"
    finally:
        if experiment.poll() is None:
            experiment.kill()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
