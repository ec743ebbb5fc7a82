"""Browser tests run only when asked for with ``-m browser`` (as ``.ci/run`` does)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``browser``-marked tests unless the marker expression names ``browser``."""
    if "browser" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="browser test: run with -m browser (needs the dashboard and browser extras)")
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(skip)


# ---------------------------------------------------------------------- shared by the browser tests

#: Debian's Chromium (``apt-get install chromium``); Playwright drives it, no browser download.
CHROMIUM = os.environ.get("RECOURSESIM_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SERVER_START_TIMEOUT = 120.0
UI_TIMEOUT_MS = 60_000


def missing(reason: str) -> None:
    """Skip for a missing piece, or fail when CI requires the browser tests (``RECOURSESIM_REQUIRE_BROWSER=1``)."""
    if os.environ.get("RECOURSESIM_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(url: str, server: subprocess.Popen) -> None:
    """Wait until ``url`` answers 200 (fail if the server exits or takes too long)."""
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"the server exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"the server did not answer on {url} within {SERVER_START_TIMEOUT:.0f} s")


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[list[str]], str]]:
    """``serve(command)`` starts a server on a free port (``{port}`` in ``command``) and returns its URL.

    Every server started is stopped afterwards (its whole process group).
    """
    try:
        import solara  # noqa: F401
    except ImportError:
        missing("solara is not installed (pip install 'recoursesim[dashboard]')")
    started: list[subprocess.Popen] = []
    logs = []

    def start(command: list[str]) -> str:
        port = free_port()
        log = (tmp_path / f"server-{len(started)}.log").open("w")
        logs.append(log)
        server = subprocess.Popen(
            [part.format(port=port) for part in command], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        started.append(server)
        url = f"http://127.0.0.1:{port}/"
        wait_for(url, server)
        return url

    try:
        yield start
    finally:
        for server in started:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                try:
                    server.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait(timeout=15)
        for log in logs:
            log.close()


@pytest.fixture
def browser_page() -> Iterator[Any]:
    """A Playwright page in headless Debian Chromium (1500 x 1300)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install 'recoursesim[browser]')")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="recoursesim-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=FLAGS, viewport={"width": 1500, "height": 1300}
            )
            try:
                page = context.new_page()
                page.set_default_timeout(UI_TIMEOUT_MS)
                yield page
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
