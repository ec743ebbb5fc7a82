"""End-to-end: ``examples/mesa_solaraviz.py`` (Mesa's SolaraViz over ScenarioModel) in headless Chromium.

Needs the ``dashboard`` and ``browser`` extras and Debian's ``chromium``; ``.ci/run`` runs it in
its browser stage.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

APP = Path(__file__).resolve().parents[2] / "examples" / "mesa_solaraviz.py"
ARTIFACTS = Path(__file__).parent / "artifacts"


def _parameters(page) -> dict[str, str]:
    """The "Model built with" table: name -> value."""
    rows = page.locator(".rs-parameters tr").all_inner_texts()
    return dict(row.split("\t", 1) for row in rows if "\t" in row and row.split("\t", 1)[0])


def _wait_parameter(page, name: str, value: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _parameters(page).get(name) == value:
            return
        page.wait_for_timeout(300)
    raise AssertionError(f"{name} did not become {value}: {_parameters(page)}")


def _plots(page, attempts: int = 10) -> list[bytes]:
    """Screenshots of the four plots (retried: a plot redrawn mid-screenshot is replaced in the page)."""
    from playwright.sync_api import Error

    images = page.locator(".vue-grid-item img")
    images.first.wait_for(state="visible")
    for attempt in range(attempts):
        try:
            assert images.count() == 4, "the four plots are missing"
            shots = []
            for i in range(4):
                width = images.nth(i).evaluate("img => img.complete ? img.naturalWidth : 0")
                assert width > 100, f"plot {i} has not drawn (natural width {width})"
                shots.append(images.nth(i).screenshot())
            return shots
        except Error:
            if attempt == attempts - 1:
                raise
            page.wait_for_timeout(500)
    raise AssertionError("unreachable")


def test_mesa_solaraviz_example_in_a_real_browser(serve, browser_page):
    url = serve([sys.executable, "-m", "solara", "run", str(APP), "--port", "{port}", "--production", "--no-open"])
    page = browser_page
    page.goto(url)
    page.get_by_text("recoursesim in Mesa SolaraViz").first.wait_for(state="visible")
    _wait_parameter(page, "steps run", "0")
    assert _parameters(page)["k"] == "20" and _parameters(page)["T"] == "20"
    for label in ("favourable outcomes per step k", "time steps T", "effort scale", "seed"):
        page.get_by_text(label, exact=True).first.wait_for(state="visible")
    before = _plots(page)

    step = page.get_by_role("button", name="Step")
    for t in (1, 2, 3):
        step.click()
        _wait_parameter(page, "steps run", str(t))
    page.wait_for_timeout(2000)  # let the last plots arrive
    after = _plots(page)
    assert sum(a != b for a, b in zip(before, after, strict=True)) >= 3, "the plots did not change with the steps"

    # move the k slider five notches, then Reset builds the model with the new value
    slider = page.locator(".v-input", has_text="favourable outcomes per step k").locator("[role=slider]").first
    slider.focus()
    for _ in range(5):
        slider.press("ArrowRight")
    page.get_by_role("button", name="Reset").click()
    _wait_parameter(page, "k", "25")
    _wait_parameter(page, "steps run", "0")
    for t in (1, 2, 3, 4):
        step.click()
        _wait_parameter(page, "steps run", str(t))
    page.wait_for_timeout(2000)

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "solaraviz.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    print(f"\nscreenshot: {shot}")
