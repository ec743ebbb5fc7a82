"""`recoursesim dashboard` never leaves its Solara server behind: not on Ctrl-C, not when killed.

Needs the ``dashboard`` extra (Solara); runs in ``.ci/run``'s browser stage with the other
``browser``-marked tests (no browser is needed here).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

START_TIMEOUT = 120.0
GONE_TIMEOUT = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _group(pgid: int) -> list[int]:
    """Live processes of process group ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


@pytest.fixture
def dashboard():
    """Start ``recoursesim dashboard``; yield (parent process, server pid); clean up whatever is left."""
    pytest.importorskip("solara") if os.environ.get("RECOURSESIM_REQUIRE_BROWSER") != "1" else None
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux's /proc")
    port = _free_port()
    parent = subprocess.Popen(
        [sys.executable, "-m", "recoursesim", "dashboard", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # the test's own signals reach only the processes it means
    )
    server = None
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert parent.poll() is None, f"the dashboard exited with status {parent.returncode}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            raise AssertionError("the dashboard did not start")
        (server,) = _children(parent.pid)
        yield parent, server
    finally:
        for pid in ([server] if server else []) + [parent.pid]:
            for member in _group(pid):
                os.kill(member, signal.SIGKILL)
        parent.wait(timeout=30)


def _gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_server_stops_with_its_parent(dashboard, how):
    parent, server = dashboard
    members = _group(server)
    assert server in members
    os.kill(parent.pid, how)  # Ctrl-C (or a polite kill) of the `recoursesim dashboard` process
    assert parent.wait(timeout=GONE_TIMEOUT) == 0
    assert _gone_within(members, GONE_TIMEOUT), f"still running: {[p for p in members if _alive(p)]}"


def test_server_stops_when_its_parent_is_killed(dashboard):
    parent, server = dashboard
    members = _group(server)
    os.kill(parent.pid, signal.SIGKILL)  # no chance to clean up: the kernel tells the server
    parent.wait(timeout=GONE_TIMEOUT)
    assert _gone_within(members, GONE_TIMEOUT), f"still running: {[p for p in members if _alive(p)]}"
