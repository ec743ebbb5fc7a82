"""The Vega-Lite panels of a lesson page, built with Altair (the optional ``lesson`` extra).

Every panel reads the page's one named data set (:data:`DATA_NAME`, the records of
:func:`~recoursesim.report.lesson_data.lesson_rows`) and filters it with parameters bound to the
page's own controls (``<input>``/``<select>`` elements, Vega's direct element binding), so one
slider moves every panel at once. Setting *A* is the main controls (``#ctl-v0``, …), setting
*B* of the comparison panel its own (``#ctl-b-v0``, …).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from recoursesim.report.lesson_data import Control

#: Name of the data set every panel reads; the page supplies it once.
DATA_NAME = "results"
#: Width and height of one chart, in pixels.
WIDTH, HEIGHT = 330, 220
#: The metric the comparison panel shows, chosen on the page (``#ctl-metric``).
METRIC_CONTROL = "metric"
#: Per-step metrics the comparison panel offers: column -> label.
COMPARED = {"etr": "ETR_t", "ttr": "TTR_t", "selection_rate": "selection rate"}
#: Units of some fields a lesson commonly varies (the lever panel's x axis).
FIELD_UNITS = {
    "selection.k": "places per step",
    "population.q": "qualification gap",
    "population.entrants": "new agents per step",
    "run.steps": "steps",
}


def _alt() -> Any:
    """Altair, imported when a panel is built (:func:`~recoursesim.report.lesson_page.require_extra` checks it)."""
    import altair

    return altair


def element(column: str, setting: str = "") -> str:
    """The id of the page control for ``column`` (``ctl-v0`` for setting A, ``ctl-b-v0`` for B, ``setting="b_"``)."""
    return f"ctl-{setting.rstrip('_')}-{column}" if setting else f"ctl-{column}"


def _params(controls: Sequence[Control], setting: str = "", initial: Sequence[int] | None = None) -> list[Any]:
    alt = _alt()
    start = initial or [0] * len(controls)
    return [
        alt.param(
            name=f"{setting}{c.column}",
            value=start[i],
            bind=alt.BindDirect(element=f"#{element(c.column, setting)}"),
        )
        for i, c in enumerate(controls)
    ]


def matches(controls: Sequence[Control], setting: str = "", skip: str = "") -> str:
    """A Vega expression: the row belongs to the setting the controls name (``skip``: a column left free)."""
    terms = [f"datum.{c.column} == toNumber({setting}{c.column})" for c in controls if c.column != skip]
    return " && ".join(terms) or "true"


def _step_axis() -> Any:
    return _alt().Axis(tickMinStep=1, format="d", title="step t")


def _band_over_steps(metric: str, title: str, y_title: str, share: bool, group_colour: Any) -> Any:
    """Mean per group over steps with its interval across seeds, from the already-filtered rows."""
    alt = _alt()
    scale = alt.Scale(zero=True) if share else alt.Scale(zero=False)
    base = alt.Chart(title=title, width=WIDTH, height=HEIGHT).transform_filter(
        f"datum.metric == '{metric}' && datum.step != null"
    )
    band = base.transform_filter("datum.low != null && datum.high != null").mark_area(opacity=0.2).encode(
        x=alt.X("step:Q", axis=_step_axis()), y=alt.Y("low:Q", title=y_title, scale=scale), y2="high:Q",
        color=group_colour,
    )  # fmt: skip
    line = base.mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X("step:Q", axis=_step_axis()), y=alt.Y("mean:Q", title=y_title, scale=scale), color=group_colour,
        tooltip=["group:N", "step:Q", alt.Tooltip("mean:Q", format=".3f"), "n:Q"],
    )  # fmt: skip
    return alt.layer(band, line)


def _colour(groups: Sequence[str]) -> Any:
    alt = _alt()
    return alt.Color("group:N", title="group", scale=alt.Scale(domain=list(groups)))


def outcomes_panel(controls: Sequence[Control], groups: Sequence[str], effort: str) -> dict[str, Any]:
    """ETR_t and TTR_t per group over the steps, with bands across seeds, for setting A."""
    alt = _alt()
    colour = _colour(groups)
    charts = [
        _band_over_steps("etr", "Effort to recourse, ETR_t", f"ETR_t ({effort})", False, colour),
        _band_over_steps("ttr", "Time to recourse, TTR_t", "TTR_t (steps)", False, colour),
    ]
    return _top(alt.hconcat(*charts), controls)


def selection_panel(controls: Sequence[Control], groups: Sequence[str]) -> dict[str, Any]:
    """Selection rate per group over the steps (the share of waiting agents selected), for setting A."""
    title = "Selection rate per step"
    chart = _band_over_steps("selection_rate", title, "selected / scored agents", True, _colour(groups))
    return _top(chart, controls)


def lever_panel(controls: Sequence[Control], lever: Control, groups: Sequence[str], reference: str) -> dict[str, Any]:
    """Pooled rETR and dTTR of each group against the lever, the other fields at setting A."""
    alt = _alt()
    others = [g for g in groups if g != reference]
    colour = _colour(groups).legend(values=others)  # the other panels' colours; the reference has no row here
    if lever.numeric:
        x = alt.X("lever:Q", title=_field_title(lever), axis=alt.Axis(values=list(lever.values)))
        x = x.scale(zero=False, nice=False, padding=12)
    else:
        x = alt.X("lever:N", title=_field_title(lever), sort=lever.labels, axis=alt.Axis(labelAngle=0))
    lookup = _lever_expression(lever)
    charts = []
    for metric, title, y_title, parity in (
        ("retr", f"rETR: effort relative to {reference}", "rETR (ratio; 1 = parity)", 1.0),
        ("dttr", f"dTTR: waiting time minus {reference}'s", "dTTR (steps; 0 = parity)", 0.0),
    ):
        base = alt.Chart(title=title, width=WIDTH, height=HEIGHT)
        base = base.transform_filter(
            f"datum.metric == '{metric}' && datum.step == null && datum.group != '{reference}'"
        )
        base = base.transform_calculate(lever=lookup)
        rule = _level(parity)
        bars = base.transform_filter("datum.low != null").mark_errorbar(ticks=True).encode(
            x=x, y=alt.Y("low:Q", title=y_title, scale=alt.Scale(zero=False)), y2="high:Q", color=colour
        )  # fmt: skip
        line = base.mark_line(point=True).encode(
            x=x, y=alt.Y("mean:Q", title=y_title), color=colour,
            tooltip=["group:N", alt.Tooltip("mean:Q", format=".3f"), alt.Tooltip("low:Q", format=".3f"),
                     alt.Tooltip("high:Q", format=".3f"), "n:Q"],
        )  # fmt: skip
        charts.append(alt.layer(rule, bars, line))
    return _top(alt.hconcat(*charts), controls, skip=lever.column)


def durability_panel(controls: Sequence[Control], groups: Sequence[str]) -> dict[str, Any]:
    """Share of advice still valid h = 1, 3, 5 steps after it was given, per group, for setting A."""
    alt = _alt()
    base = alt.Chart(title="How long advice stays valid", width=WIDTH, height=HEIGHT)
    base = base.transform_filter("datum.step == null && indexof(datum.metric, 'validity_') == 0")
    base = base.transform_calculate(horizon="toNumber(replace(datum.metric, 'validity_', ''))")
    x = alt.X("horizon:Q", title="steps after the advice was given", axis=alt.Axis(values=[1, 3, 5], format="d"))
    x = x.scale(domain=[0.5, 5.5])
    y_title = "share of advice still valid"
    colour = _colour(groups)
    bars = base.transform_filter("datum.low != null").mark_errorbar(ticks=True).encode(
        x=x, y=alt.Y("low:Q", title=y_title, scale=alt.Scale(domain=[0, 1])), y2="high:Q", color=colour
    )  # fmt: skip
    line = base.mark_line(point=True).encode(
        x=x, y=alt.Y("mean:Q", title=y_title, scale=alt.Scale(domain=[0, 1])), color=colour,
        tooltip=["group:N", "horizon:Q", alt.Tooltip("mean:Q", format=".3f"), "n:Q"],
    )  # fmt: skip
    return _top(alt.layer(bars, line), controls)


def comparison_panel(controls: Sequence[Control], groups: Sequence[str], initial_b: Sequence[int]) -> dict[str, Any]:
    """Settings A and B side by side over the steps, and B minus A, for the metric chosen on the page."""
    alt = _alt()
    in_a, in_b = matches(controls), matches(controls, "b_")
    metric = alt.param(name=METRIC_CONTROL, value="etr", bind=alt.BindDirect(element=f"#{element(METRIC_CONTROL)}"))
    base = alt.Chart(width=WIDTH, height=HEIGHT).transform_filter(
        f"datum.step != null && datum.metric == {METRIC_CONTROL} && datum.mean != null && (({in_a}) || ({in_b}))"
    )
    base = base.transform_calculate(in_a=in_a, in_b=in_b)
    colour = _colour(groups)
    y_title = "mean across seeds (units as above)"
    setting = alt.StrokeDash("setting:N", title="setting", scale=alt.Scale(domain=["A", "B", "A = B"]))
    side = base.transform_calculate(setting="datum.in_a && datum.in_b ? 'A = B' : datum.in_a ? 'A' : 'B'")
    side = side.mark_line().encode(
        x=alt.X("step:Q", axis=_step_axis()), y=alt.Y("mean:Q", title=y_title), color=colour, strokeDash=setting,
        detail="setting:N",
    )  # fmt: skip
    difference = base.transform_calculate(weight="(datum.in_b ? 1 : 0) - (datum.in_a ? 1 : 0)")
    difference = difference.transform_calculate(part="datum.weight * datum.mean", both="datum.in_a && datum.in_b")
    difference = difference.transform_aggregate(
        b_minus_a="sum(part)", rows="count()", same="max(both)", groupby=["step", "group"]
    ).transform_filter("datum.rows == 2 || datum.same")
    zero = _level(0.0)
    line = difference.mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X("step:Q", axis=_step_axis()), y=alt.Y("b_minus_a:Q", title="B minus A (same units)"), color=colour,
        tooltip=["group:N", "step:Q", alt.Tooltip("b_minus_a:Q", format=".3f")],
    )  # fmt: skip
    chart = alt.hconcat(
        side.properties(title="Setting A (solid) and B (dashed)"),
        alt.layer(zero, line).properties(title="Difference, B minus A"),
        data=alt.NamedData(name=DATA_NAME),
    )
    params = [*_params(controls), *_params(controls, "b_", initial_b), metric]
    return chart.add_params(*params).to_dict()


def _top(chart: Any, controls: Sequence[Control], skip: str = "") -> dict[str, Any]:
    """The panel's spec: the page's data set, filtered to setting A, with the controls' parameters."""
    chart = chart.properties(data=_alt().NamedData(name=DATA_NAME)).transform_filter(matches(controls, skip=skip))
    return chart.add_params(*_params(controls)).to_dict()


def _level(value: float) -> Any:
    """A dashed horizontal rule at ``value`` (parity), drawn once."""
    alt = _alt()
    rule = alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").transform_aggregate(rows="count()")
    return rule.encode(y=alt.datum(value))


def _field_title(control: Control) -> str:
    unit = FIELD_UNITS.get(control.field)
    return f"{control.field} ({unit})" if unit else control.field


def _lever_expression(lever: Control) -> str:
    """A Vega expression giving the lever's value (number or label) from the row's position."""
    values = list(lever.values) if lever.numeric else lever.labels
    return f"{json.dumps(values)}[datum.{lever.column}]"
