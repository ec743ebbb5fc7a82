"""End-to-end: the dashboard served on localhost, driven by headless Chromium through Playwright.

Needs the ``dashboard`` and ``browser`` extras and Debian's ``chromium`` (``.ci/run`` installs
them). Without them the test is skipped, unless ``RECOURSESIM_REQUIRE_BROWSER=1`` (set by CI),
which turns a missing piece into a failure.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = os.environ.get("RECOURSESIM_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SERVER_START_TIMEOUT = 120.0
UI_TIMEOUT_MS = 60_000


def _missing(reason: str) -> None:
    if os.environ.get("RECOURSESIM_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"the dashboard server exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"the dashboard did not answer on {url} within {SERVER_START_TIMEOUT:.0f} s")


@pytest.fixture
def dashboard_url(tmp_path):
    """Start ``recoursesim dashboard`` on a free port; always stop it afterwards."""
    try:
        import solara  # noqa: F401
    except ImportError:
        _missing("solara is not installed (pip install 'recoursesim[dashboard]')")
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "recoursesim", "dashboard", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_for(url, server)
        yield url
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=15)
        log.close()


def _image(page, selector: str) -> bytes:
    """Return a screenshot of the figure under ``selector`` (PNG bytes), checking it has drawn."""
    locator = page.locator(f"{selector} img").first
    locator.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    width = locator.evaluate("img => img.complete ? img.naturalWidth : 0")
    assert width > 100, f"{selector}: the figure has not drawn (natural width {width})"
    return locator.screenshot(timeout=UI_TIMEOUT_MS)


def _changes(page, selector: str, before: bytes, seconds: float = 30.0) -> bool:
    """Wait until the figure under ``selector`` differs from ``before`` (a slow machine redraws late)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page.wait_for_timeout(500)
        if _image(page, selector) != before:
            return True
    return False


def _metrics(page) -> str:
    return page.locator(".rs-metrics").first.inner_text(timeout=UI_TIMEOUT_MS)


def _wait_text(page, needle: str) -> None:
    page.locator(".rs-metrics", has_text=needle).first.wait_for(state="visible", timeout=UI_TIMEOUT_MS)


def test_dashboard_in_a_real_browser(dashboard_url):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install 'recoursesim[browser]')")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="recoursesim-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=FLAGS, viewport={"width": 1500, "height": 1300}
            )
            try:
                page = context.new_page()
                page.set_default_timeout(UI_TIMEOUT_MS)
                page.goto(dashboard_url, timeout=UI_TIMEOUT_MS)
                _wait_text(page, "steps run: 0")
                initial_scatter = _image(page, ".rs-scatter")
                initial_metrics_figure = _image(page, ".rs-etr-ttr")
                assert "adaptation continuous" in _metrics(page)

                # change a control: binary adaptation rebuilds the run
                page.locator(".rs-adaptation button", has_text="binary").first.click()
                _wait_text(page, "adaptation binary")

                # step the model three times
                for t in (1, 2, 3):
                    page.locator(".rs-step").first.click()
                    _wait_text(page, f"steps run: {t}")
                page.locator(".rs-story", has_text="Anne").first.wait_for(state="visible")
                page.wait_for_timeout(1500)  # let the last figures arrive
                stepped = _metrics(page)
                assert "steps run: 3" in stepped and "adaptation binary" in stepped
                assert "advantaged" in stepped and "disadvantaged" in stepped, stepped
                assert "No step run yet" not in stepped
                assert _image(page, ".rs-scatter") != initial_scatter, "the scatter did not change"
                assert _image(page, ".rs-etr-ttr") != initial_metrics_figure, "the ETR/TTR figure did not change"
                _image(page, ".rs-story")
                _image(page, ".rs-auditor")

                # the ground-truth toggle recolours the agents without resetting the run
                by_group = _image(page, ".rs-scatter")
                page.locator(".rs-ground-truth button", has_text="ground truth").first.click()
                assert _changes(page, ".rs-scatter", by_group), "the ground-truth toggle did not recolour the scatter"
                assert "steps run: 3" in _metrics(page), "the ground-truth toggle reset the run"
                page.locator(".rs-ground-truth button", has_text="group").first.click()
                page.wait_for_timeout(1000)
                story = page.locator(".rs-story").first.inner_text()
                assert "Anne" in story and "Dawn" in story

                # play runs further steps on its own; pause stops it
                page.locator(".rs-play").first.click()
                _wait_text(page, "steps run: 5")
                page.locator(".rs-play", has_text="Pause").first.click()
                page.locator(".rs-play", has_text="Play").first.wait_for(state="visible")
                page.wait_for_timeout(1500)  # let the last figures arrive

                ARTIFACTS.mkdir(exist_ok=True)
                shot = ARTIFACTS / "dashboard.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 10_000
                print(f"\nscreenshot: {shot}")
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
