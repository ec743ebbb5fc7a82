"""End-to-end: the dashboard served on localhost, driven by headless Chromium through Playwright.

Needs the ``dashboard`` and ``browser`` extras and Debian's ``chromium`` (``.ci/run`` installs
them). Without them the test is skipped, unless ``RECOURSESIM_REQUIRE_BROWSER=1`` (set by CI),
which turns a missing piece into a failure.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.dashboard.conftest import UI_TIMEOUT_MS

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).parent / "artifacts"


@pytest.fixture
def dashboard_url(serve):
    """``recoursesim dashboard`` on a free port (stopped afterwards)."""
    return serve([sys.executable, "-m", "recoursesim", "dashboard", "--port", "{port}"])


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


def test_dashboard_in_a_real_browser(dashboard_url, browser_page):
    page = browser_page
    page.goto(dashboard_url, timeout=UI_TIMEOUT_MS)
    _wait_text(page, "steps run: 0")
    initial_scatter = _image(page, ".rs-scatter")
    initial_metrics_figure = _image(page, ".rs-etr-ttr")
    initial_durability = _image(page, ".rs-durability")
    assert "adaptation continuous" in _metrics(page)
    # every slider shows its value on its thumb, not only while dragged
    thumbs = page.locator(".rs-controls .v-slider__thumb-label")
    thumbs.first.wait_for(state="visible")
    assert thumbs.first.inner_text().strip() == "200", "the initial-agents slider does not show its value"

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
    assert _image(page, ".rs-durability") != initial_durability, "the durability panel did not change"

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
    playing = _image(page, ".rs-durability")
    _wait_text(page, "steps run: 6")  # Play goes on with the durability panel on the page
    assert _changes(page, ".rs-durability", playing), "the durability panel did not follow Play"
    page.locator(".rs-play", has_text="Pause").first.click()
    page.locator(".rs-play", has_text="Play").first.wait_for(state="visible")
    page.wait_for_timeout(1500)  # let the last figures arrive

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "dashboard.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    print(f"\nscreenshot: {shot}")
