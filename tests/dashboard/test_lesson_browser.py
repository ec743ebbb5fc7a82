"""End-to-end: a lesson page opened from disk in headless Chromium with the network off.

Needs the ``lesson`` and ``browser`` extras and Debian's ``chromium``. The page must draw every
panel without a single request leaving it, and moving a slider must change the data the charts
draw, read through the Vega view API (``view.data``), not from pixels. The page is a lesson over two
scenarios, so its first control is the ``policy`` drop-down whose values are whole scenarios.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recoursesim.cli import main
from tests.dashboard.conftest import UI_TIMEOUT_MS, missing

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).parent / "artifacts"
PANELS = ["outcomes", "lever", "selection", "durability", "compare"]

#: Every data set of a panel's view derived from the page's data (so after the setting-A filter):
#: {data set name: rows}. The names come from the compiled Vega spec vega-embed returns.
READ_DATA = """key => {
  const result = window.lessonViews[key];
  const names = [];
  const walk = node => {
    (node.data || []).filter(d => d.source).forEach(d => names.push(d.name));  // derived, not the raw input
    (node.marks || []).forEach(walk);
  };
  walk(result.vgSpec);
  const out = {};
  for (const name of names) {
    let rows;
    try { rows = result.view.data(name); } catch (e) { continue; }
    if (rows.length && rows.every(r => r.v0 !== undefined && r.mean !== undefined)) {
      out[name] = rows.map(r => ({v0: r.v0, v1: r.v1, step: r.step, group: r.group, metric: r.metric, mean: r.mean}));
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def lesson_page(tmp_path_factory) -> Path:
    try:
        import altair  # noqa: F401
        import vl_convert  # noqa: F401
    except ImportError:
        missing("the lesson extra is not installed (pip install 'recoursesim[lesson]')")
    folder = tmp_path_factory.mktemp("lesson")
    page = folder / "lesson.html"
    status = main([
        "lesson", "bell2024-baseline", "bell2024-cns", "--label", "top-k", "--label", "CNS",
        "--vary", "population.q=0,1,2", "--vary", "run.steps=8", "--seeds", "2", "--runs", str(folder / "runs"),
        "--out", str(page), "--quiet", "--workers", "1",
    ])  # fmt: skip
    assert status == 0
    return page


def test_lesson_page_offline_slider_changes_chart_data(lesson_page, browser_page):
    page = browser_page
    leaving: list[str] = []

    def refuse(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            leaving.append(route.request.url)
            route.abort()

    page.context.route("**/*", refuse)
    page.context.set_offline(True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(lesson_page.as_uri(), timeout=UI_TIMEOUT_MS)
    page.wait_for_function("() => window.lessonReady !== undefined", timeout=UI_TIMEOUT_MS)
    page.evaluate("() => window.lessonReady")
    assert sorted(page.evaluate("() => Object.keys(window.lessonViews)")) == sorted(PANELS)
    for key in PANELS:
        assert page.locator(f"#chart-{key} svg").count() == 1, f"the {key} panel did not draw"

    before = page.evaluate(READ_DATA, "outcomes")
    assert before, "no filtered data set found in the outcomes view"
    assert all(row["v0"] == 0 and row["v1"] == 0 for rows in before.values() for row in rows)  # top-k, q = 0

    page.fill("#ctl-v1", "2")  # the population.q slider to its third value
    assert page.locator("#ctl-v1-value").inner_text() == "2"
    after = _wait_for(page, "outcomes", lambda row: row["v1"] == 2)
    assert set(after) == set(before)
    for name in before:
        assert after[name], f"{name} is empty after moving the slider"
        assert all(row["v1"] == 2 for row in after[name]), f"{name} still holds rows of another q"
        assert all(row["v0"] == 0 for row in after[name]), f"{name} lost the policy setting"
    assert any(_means(before[name]) != _means(after[name]) for name in before), "the chart's numbers did not change"

    # the policy drop-down swaps the whole scenario: CNS's rows, q still at 2
    assert page.locator("#ctl-v0 option").all_inner_texts() == ["top-k", "CNS"]
    page.select_option("#ctl-v0", "1")
    cns = _wait_for(page, "outcomes", lambda row: row["v0"] == 1)
    for name in before:
        assert cns[name] and all(row["v0"] == 1 and row["v1"] == 2 for row in cns[name]), name
    assert any(_means(after[name]) != _means(cns[name]) for name in before), "the policy did not change the numbers"

    # the lever panel keeps every q (its x axis) and follows the other controls (CNS)
    lever = page.evaluate(READ_DATA, "lever")
    assert {row["v1"] for rows in lever.values() for row in rows} == {0, 1, 2}
    assert {row["v0"] for rows in lever.values() for row in rows} == {1}

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "lesson.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"\nscreenshot: {shot}")
    assert not errors, errors
    assert leaving == [], f"the page made network requests: {leaving}"


def _wait_for(page, key: str, holds) -> dict:
    """The panel's data once every row satisfies ``holds`` (the views update asynchronously; up to 10 s)."""
    rows = {}
    for _ in range(50):
        rows = page.evaluate(READ_DATA, key)
        if rows and all(holds(row) for data in rows.values() for row in data):
            break
        page.wait_for_timeout(200)
    return rows


def _means(rows: list[dict]) -> list[tuple]:
    return [(r["metric"], r["group"], r["step"], r["mean"]) for r in rows]
