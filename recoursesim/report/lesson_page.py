"""A lesson in one file: a sweep's results as a self-contained, explorable HTML page.

The page holds the aggregated results (:mod:`~recoursesim.report.lesson_data`), the Vega-Lite
panels (:mod:`~recoursesim.report.lesson_charts`), the controls they are bound to, a short text
beside each panel, and the Vega, Vega-Lite and vega-embed JavaScript itself (from
``vl-convert-python``), so it opens from a USB stick or any static site without a network.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.report import lesson_charts as charts
from recoursesim.report.document import GENERATOR_TAG
from recoursesim.report.figures import effort_label
from recoursesim.report.lesson_data import Control, controls_of, lesson_rows
from recoursesim.report.scenario_table import scenario_table
from recoursesim.scenario import Scenario
from recoursesim.sweep import SweepStore, summarise
from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.worker import DURABILITY_METRICS


@dataclass(frozen=True)
class Panel:
    """One panel of the page: its id, heading, the text beside it and its Vega-Lite spec."""

    key: str
    heading: str
    story: list[str]
    spec: dict[str, Any]


def require_extra() -> None:
    """Refuse, before any work, when the ``lesson`` extra (Altair, vl-convert) is missing.

    Raises:
        ConfigError: naming the missing package and the ``pip install`` that brings it.
    """
    try:
        import altair  # noqa: F401
        import vl_convert  # noqa: F401
    except ImportError as error:
        raise ConfigError(
            "lesson", f"needs the lesson extra ({error.name} is not installed)", "pip install 'recoursesim[lesson]'"
        ) from None


def lever_of(controls: Sequence[Control], field: str | None) -> Control:
    """The control the lever panel puts on its x axis: ``field``, else the first numeric one, else the first."""
    if field is not None:
        return next(c for c in controls if c.field == field)
    return next((c for c in controls if c.numeric), controls[0])


def build_lesson(
    directory: str | Path,
    scenario: Scenario | Mapping[str, Scenario],
    grid: Mapping[str, Sequence[Any]],
    *,
    lever: str | None = None,
    title: str | None = None,
    intro: str | None = None,
) -> str:
    """The lesson page of a finished sweep, as one HTML document.

    Args:
        directory: The sweep's output directory (its runs are summarised, not re-run).
        scenario: The scenario the sweep varied, or several by policy label (a sweep whose points
            carry a ``policy`` parameter, as ``recoursesim lesson A B ...`` runs; they share their
            groups, reference group, effort measure and steps, and the first one's are used).
        grid: The varied fields and their values, in the order the controls are shown (with
            several scenarios, ``policy`` and the labels among them).
        lever: The field on the x axis of the rETR/dTTR panel (default: the first numeric one).
        title: The page's title (default: from the scenario's name).
        intro: A paragraph under the title (default: the scenario's ``description``).

    Returns:
        The page.
    """
    require_extra()
    policies = dict(scenario) if isinstance(scenario, Mapping) else {scenario.name: scenario}
    scenario = next(iter(policies.values()))
    summary = summarise(directory, write=False)
    controls = controls_of(grid)
    groups = list(dict.fromkeys(summary["group"].astype(str)))
    reference = scenario.reference_group or groups[0]
    n_seeds = int(SweepStore(directory).read_manifest()["n_seeds"])
    panels = make_panels(summary, controls, lever_of(controls, lever), groups, reference, scenario)
    if _score_scales_differ(list(policies.values())):
        panels[0].story.append(
            "The policies score agents with different models (one is refitted as the run goes), and effort here "
            "is a gain in a model's score, so its scale differs between them: compare the groups within a policy, "
            "and across policies compare the ratio rETR below rather than ETR itself."
        )
    rows = lesson_rows(summary, controls)
    names = [s.name for s in policies.values()]
    intro = intro or (
        scenario.spec.get("description") or f"The scenario {scenario.name}."
        if len(policies) == 1
        else f"The scenarios {_listed(names)}, on the same seeds."
    )
    about = {
        "scenario": scenario.name,
        **({"scenarios": names} if len(policies) > 1 else {}),
        "seeds": n_seeds,
        "groups": groups,
        "reference": reference,
        "controls": [[c.field, list(c.values)] for c in controls],
    }
    title = title or f"A lesson on {_listed(names)}"
    return render(title, str(intro), policies, controls, panels, rows, about)


def _score_scales_differ(scenarios: Sequence[Scenario]) -> bool:
    """Whether effort measured as score gain is on different scales: other scorers, or a refitted model."""
    models = {canonical_json([s.spec["scorer"], s.spec.get("training")]) for s in scenarios}
    return len(models) > 1 and scenarios[0].effort_measure == "score_gain"


def _listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]


def make_panels(
    summary: pd.DataFrame,
    controls: Sequence[Control],
    lever: Control,
    groups: Sequence[str],
    reference: str,
    scenario: Scenario,
) -> list[Panel]:
    """The five panels, each with its plain-words explanation naming the scenario's groups."""
    effort = effort_label(scenario.effort_measure)
    others = [g for g in groups if g != reference]
    other = others[0] if others else reference
    has_durability = bool(summary["metric"].isin(DURABILITY_METRICS).any())
    initial_b = [0] * len(controls)
    initial_b[controls.index(lever)] = len(lever.values) - 1
    durability_story = [
        "Advice (a recommendation) is still valid h steps after it was given if, carried out exactly, it "
        "would be accepted then, under the model and the cut-off in force at that later step. A share of 1 "
        "means advice never goes stale; a rising cut-off or a retrained model makes it expire. Each h counts "
        "the advice given at least h steps before the run ended, and advice judged one step can pass again "
        "later, so the share need not fall as h grows.",
        "A share of 0 already at h = 1 can also mean the advice was never enough on its own: some scenarios "
        "aim it short of the cut-off on purpose, so agents keep competing for the places.",
    ]
    if not has_durability:
        durability_story = ["These runs kept no recommendations to judge, so this panel is empty."]
    stories = {
        "outcomes": [
            f"ETR_t is the effort ({effort}) that the agents selected at step t had spent since they were first "
            "turned down; TTR_t is how many steps they waited. Agents selected on their first try needed no "
            "recourse and are left out.",
            f"Compare the {' and '.join(groups)} lines. The shaded band is the 95% interval across the seeds: "
            "where the bands do not overlap, the gap between the groups is larger than the run-to-run noise.",
        ],
        "lever": [
            f"rETR divides the effort to recourse of {other} agents over the whole run by that of {reference} "
            f"agents: 1 is equal effort, 2 twice the effort. dTTR subtracts their waiting times: +2 means {other} "
            f"agents waited two steps longer than {reference} agents.",
            f"The x axis is {lever.field}; the other controls still apply. The bars are 95% intervals across seeds; "
            "the dashed line is parity.",
        ],
        "selection": [
            "The share of each group's waiting agents that is selected at each step. Equal lines are demographic "
            f"parity; a {other} line below the {reference} one means {other} agents are chosen less often for "
            "each step they wait.",
        ],
        "compare": [
            "Setting A is the controls at the top; choose setting B and the measure just below. The left chart "
            "shows A solid and B dashed; the right one the difference B minus A at each step (a difference of the "
            "means across seeds, without an interval).",
            "Every setting runs with the same seeds, so the difference comes from the setting, not from luck.",
        ],
    }
    outcomes = charts.outcomes_panel(controls, groups, effort)
    disparity = charts.lever_panel(controls, lever, groups, reference)
    comparison = charts.comparison_panel(controls, groups, initial_b)
    return [
        Panel("outcomes", "Effort and time to recourse over time", stories["outcomes"], outcomes),
        Panel("lever", f"Disparity against {lever.field}", stories["lever"], disparity),
        Panel("selection", "Who is selected", stories["selection"], charts.selection_panel(controls, groups)),
        Panel("durability", "How long advice stays valid", durability_story, charts.durability_panel(controls, groups)),
        Panel("compare", "Two settings side by side", stories["compare"], comparison),
    ]


def render(
    title: str,
    intro: str,
    policies: Mapping[str, Scenario],
    controls: Sequence[Control],
    panels: Sequence[Panel],
    rows: list[dict[str, Any]],
    about: dict[str, Any],
) -> str:
    """The HTML document: head, description, controls, panels, then the data and the JavaScript.

    ``policies`` are the scenarios by label (one, or the values of the ``policy`` control); each
    gets a fold-out table of its settings. ``about`` (the scenario's name, the seeds, the groups,
    the reference group and the controls) is stored beside the rows, so a reader (or a test) can
    tell what the page holds.
    """
    import vl_convert

    body = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p class='description'>{html.escape(intro)}</p>",
        f"<p>Each line is the mean over {about['seeds']} seeded runs; move the controls to change the setting.</p>",
        *(_settings(label, scenario, len(policies) > 1) for label, scenario in policies.items()),
        f"<div class='controls' id='controls-a'><b>Setting A</b>{_controls(controls)}</div>",
    ]
    for panel in panels:
        extra = ""
        if panel.key == "compare":
            extra = f"<div class='controls' id='controls-b'><b>Setting B</b>{_controls(controls, 'b_', panel)}</div>"
        story = "".join(f"<p>{html.escape(p)}</p>" for p in panel.story)
        body.append(
            f"<section id='panel-{panel.key}'><h2>{html.escape(panel.heading)}</h2>{extra}"
            f"<div class='panel'><div class='chart' id='chart-{panel.key}'></div>"
            f"<div class='story'>{story}</div></div></section>"
        )
    data = _script_json({"lesson": about, "rows": rows, "specs": {p.key: p.spec for p in panels}})
    bundle = vl_convert.javascript_bundle(_GLOBALS, vl_version=_vl_version()).replace("</script", "<\\/script")
    return (
        f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>{GENERATOR_TAG}"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body>{''.join(body)}"
        f"<script id='lesson-data' type='application/json'>{data}</script>"
        f"<script>{bundle}</script><script>{_START}</script></body></html>\n"
    )


def _settings(label: str, scenario: Scenario, policy: bool) -> str:
    """A fold-out table of every setting of ``scenario`` (named by its policy label on a page of several)."""
    settings = scenario_table(scenario.spec)
    table = "".join(
        f"<tr><td>{html.escape(str(s))}</td><td>{html.escape(str(v))}</td></tr>"
        for s, v in zip(settings["setting"], settings["value"], strict=True)
    )
    name = html.escape(scenario.name)
    heading = f"policy {html.escape(label)}: all settings of {name}" if policy else f"All settings of {name}"
    description = scenario.spec.get("description")
    note = f"<p>{html.escape(str(description))}</p>" if policy and description else ""
    return f"<details><summary>{heading}</summary>{note}<table>{table}</table></details>"


def _controls(controls: Sequence[Control], setting: str = "", panel: Panel | None = None) -> str:
    parts = []
    initial = _initial_b(panel, controls) if panel is not None else [0] * len(controls)
    for control, start in zip(controls, initial, strict=True):
        ident = charts.element(control.column, setting)
        name = html.escape(control.field)
        if control.numeric:
            labels = html.escape(json.dumps(control.labels))
            parts.append(
                f"<label>{name} <input type='range' id='{ident}' min='0' max='{len(control.values) - 1}' step='1' "
                f"value='{start}' data-labels='{labels}'> <output id='{ident}-value'></output></label>"
            )
        else:
            options = "".join(
                f"<option value='{i}'{' selected' if i == start else ''}>{html.escape(label)}</option>"
                for i, label in enumerate(control.labels)
            )
            parts.append(f"<label>{name} <select id='{ident}'>{options}</select></label>")
    if setting:
        options = "".join(f"<option value='{m}'>{html.escape(label)}</option>" for m, label in charts.COMPARED.items())
        parts.append(f"<label>measure <select id='{charts.element(charts.METRIC_CONTROL)}'>{options}</select></label>")
    return "".join(parts)


def _initial_b(panel: Panel, controls: Sequence[Control]) -> list[int]:
    """Setting B's starting positions, as the comparison panel's spec states them."""
    values = {p["name"]: p["value"] for p in panel.spec.get("params", [])}
    return [int(values.get(f"b_{c.column}", 0)) for c in controls]


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` that could end it early)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def _vl_version() -> str:
    """The Vega-Lite version Altair writes specs for, as vl-convert names it (``"6.4"``)."""
    import altair

    return ".".join(altair.SCHEMA_VERSION.lstrip("v").split(".")[:2])


#: What the JavaScript bundle exposes to the page's own script.
_GLOBALS = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:1250px;margin:1.5em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
.controls{display:flex;flex-wrap:wrap;gap:.4em 1.6em;align-items:center;background:#f4f6f8;padding:.6em .9em;
border-radius:6px;margin:.6em 0}
#controls-a{position:sticky;top:0;z-index:2;box-shadow:0 2px 4px rgba(0,0,0,.08)}
.controls label{white-space:nowrap}output{display:inline-block;min-width:2.5em;font-weight:bold}
.panel{display:flex;flex-wrap:wrap;gap:1.2em;align-items:flex-start}.story{flex:1 1 260px;max-width:420px}
table{border-collapse:collapse;font-size:.85em}td{border:1px solid #ddd;padding:.15em .5em}
"""

#: Labels the sliders, then embeds every panel; ``window.lessonViews[key]`` is vega-embed's result.
_START = """
document.querySelectorAll("input[type=range][data-labels]").forEach(function (el) {
  var out = document.getElementById(el.id + "-value"), labels = JSON.parse(el.dataset.labels);
  var show = function () { out.textContent = labels[Number(el.value)]; };
  el.addEventListener("input", show); show();
});
var lesson = JSON.parse(document.getElementById("lesson-data").textContent);
window.lessonViews = {};
window.lessonReady = Promise.all(Object.keys(lesson.specs).map(function (key) {
  var spec = lesson.specs[key];
  spec.datasets = {results: lesson.rows};
  return vegaEmbed("#chart-" + key, spec, {actions: false, renderer: "svg"}).then(function (result) {
    window.lessonViews[key] = result;
  });
}));
"""
