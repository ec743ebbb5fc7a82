"""The Solara page of ``recoursesim dashboard`` (needs the ``dashboard`` extra).

Controls on the left build a :class:`DashboardSettings`; any change resets the run. Step, Play
and Reset drive the same :class:`~recoursesim.engine.model.RecourseModel` as ``recoursesim run``.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from threading import Event
from typing import Any

import numpy as np
import solara
from matplotlib.figure import Figure

from recoursesim.dashboard import figures
from recoursesim.dashboard.session import DashboardSession
from recoursesim.dashboard.settings import CHOICES, DISTRIBUTIONS, MAX_LENDERS, MITIGATIONS, DashboardSettings
from recoursesim.errors import RecourseSimError
from recoursesim.metrics import recourse_summary

#: Seconds between steps while playing.
PLAY_INTERVAL = 0.6

#: Sliders that always show their value on the thumb (Solara shows it only while dragging by default).
SliderInt = functools.partial(solara.SliderInt, thumb_label="always")
SliderFloat = functools.partial(solara.SliderFloat, thumb_label="always")

settings = solara.reactive(DashboardSettings())
version = solara.reactive(0)
playing = solara.reactive(False)
resets = solara.reactive(0)
colour_by_truth = solara.reactive(False)


def _set(**changes: Any) -> None:
    playing.value = False
    settings.value = dataclasses.replace(settings.value, **changes)


def _set_weight(weights: tuple[float, ...], j: int, value: float) -> None:
    """Set the ranker weight of feature ``x{j}``, keeping the others of ``weights``."""
    _set(weights=tuple(value if i == j else w for i, w in enumerate(weights)))


@solara.component
def Controls() -> None:  # noqa: N802 (Solara components are capitalised)
    """The Game-of-Recourse knobs."""
    s = settings.value
    SliderInt("initial agents", value=s.initial, min=20, max=1000, step=10, on_value=lambda v: _set(initial=v))
    SliderInt("new agents per step", value=s.entrants, min=0, max=200, on_value=lambda v: _set(entrants=v))
    solara.Select(
        "distribution",
        values=list(DISTRIBUTIONS),
        value=s.distribution,
        on_value=lambda v: _set(distribution=v),
    )
    SliderFloat("qualification gap q", value=s.q, min=0.0, max=3.0, step=0.5, on_value=lambda v: _set(q=v))
    SliderInt("favourable outcomes per step k", value=s.k, min=1, max=200, on_value=lambda v: _set(k=v))
    SliderFloat(
        "global difficulty", value=s.difficulty, min=0.25, max=4.0, step=0.25, on_value=lambda v: _set(difficulty=v)
    )
    _toggle("adaptation", s.adaptation, ["continuous", "binary"], lambda v: _set(adaptation=v), "rs-adaptation")
    _toggle("effort", s.effort, ["flexible", "constant"], lambda v: _set(effort=v), "rs-effort")
    SliderInt("time steps T", value=s.steps, min=1, max=60, on_value=lambda v: _set(steps=v))
    solara.Select("mitigation", values=list(MITIGATIONS), value=s.mitigation, on_value=lambda v: _set(mitigation=v))
    for j in range(2):
        SliderFloat(
            f"ranker weight x{j}",
            value=s.weights[j],
            min=0.0,
            max=1.0,
            step=0.05,
            on_value=functools.partial(_set_weight, s.weights, j),
        )
    SliderInt("lenders", value=s.lenders, min=1, max=MAX_LENDERS, on_value=lambda v: _set(lenders=v))
    solara.Select("applicants apply to", values=list(CHOICES), value=s.choice, on_value=lambda v: _set(choice=v))
    solara.InputInt("seed", value=s.seed, on_value=lambda v: _set(seed=max(int(v or 0), 0)), classes=["rs-seed"])
    _toggle(
        "colour agents by (ground truth: x0 is the qualification, x1 a proxy)",
        "ground truth" if colour_by_truth.value else "group",
        ["group", "ground truth"],
        lambda v: setattr(colour_by_truth, "value", v == "ground truth"),
        "rs-ground-truth",
    )
    _toggle(
        "auditor panel (equality of effort)",
        "on" if s.auditor else "off",
        ["on", "off"],
        lambda v: _set(auditor=v == "on"),
        "rs-auditor-switch",
    )


def _toggle(label: str, value: str, values: list[str], on_value: Callable[[str], None], css: str) -> None:
    """A label and a row of toggle buttons choosing one of ``values``."""
    solara.Text(label)
    solara.ToggleButtonsSingle(value=value, values=values, on_value=on_value, classes=[css])


def _metrics_markdown(session: DashboardSession) -> str:
    """Pooled ETR/TTR per group over the steps run so far, and the latest step's values."""
    s = session.settings
    lines = [
        f"**steps run: {session.t}** of {s.steps + 1} (t = 0 … {s.steps}) · {s.distribution} population · "
        f"q = {s.q:g} · k = {s.k} · "
        f"adaptation {s.adaptation} · effort {s.effort} · difficulty {s.difficulty:g} · "
        f"mitigation {MITIGATIONS[s.mitigation]} · seed {s.seed}",
        "",
    ]
    if session.ledger.empty:
        return "\n".join([*lines, "No step run yet."])
    pooled = recourse_summary(
        session.applicant_ledger,
        effort=session.scenario.effort_measure,
        reference_group=session.scenario.reference_group,
    )
    latest = session.metrics()
    latest = latest.loc[latest["step"] == latest["step"].max()].set_index("group")
    lines += [
        "| group | successes | waiting | ETR (pooled) | TTR (pooled) | rETR | dTTR | ETR_t | TTR_t | "
        "selection rate_t |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in pooled.itertuples():
        now = latest.loc[str(row.group)]
        lines.append(
            f"| {row.group} | {row.recourse} | {row.censored} | {_num(row.etr)} | {_num(row.ttr)} | "
            f"{_num(row.retr)} | {_num(row.dttr)} | {_num(now['etr'])} | {_num(now['ttr'])} | "
            f"{_num(now['selection_rate'])} |"
        )
    return "\n".join(lines)


def _num(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.3f}"


@solara.component
def Page() -> None:  # noqa: N802 (Solara looks for a component named Page)
    """The dashboard page."""
    current = settings.value
    built = solara.use_memo(lambda: _build(current), dependencies=[current, resets.value])
    session, error = built
    tick = version.value

    def play(cancel: Event) -> None:
        while playing.value and session is not None and not cancel.is_set():
            time.sleep(PLAY_INTERVAL)
            if cancel.is_set() or not playing.value:
                return
            if not session.step():
                playing.value = False
                return
            version.value += 1

    # Not intrusive: Solara's intrusive cancel traces every line the thread runs (sys.settrace),
    # which doubled the CPU time of each step and of the redraws it triggers; the loop checks
    # ``cancel`` itself between steps, so a step is never interrupted half done.
    solara.use_thread(play, dependencies=[playing.value, session], intrusive_cancel=False)

    def step() -> None:
        if session is not None and session.step():
            version.value += 1

    def reset() -> None:
        playing.value = False
        resets.value += 1

    solara.Title("recoursesim · Game of Recourse")
    with solara.Columns([1, 3]):
        with solara.Column(classes=["rs-controls"], style={"padding": "0 16px"}):
            solara.Markdown("## Game of Recourse")
            Controls()
        with solara.Column():
            with solara.Row():
                solara.Button("Step", on_click=step, disabled=session is None or session.finished, classes=["rs-step"])
                solara.Button(
                    "Pause" if playing.value else "Play",
                    on_click=lambda: setattr(playing, "value", not playing.value),
                    disabled=session is None or session.finished,
                    classes=["rs-play"],
                )
                solara.Button("Reset", on_click=reset, classes=["rs-reset"])
            if error is not None:
                solara.Error(error)
            elif session is not None:
                Panels(session, tick)


@solara.component
def Panels(session: DashboardSession, tick: int) -> None:  # noqa: N802 (a Solara component)
    """Metrics, the scatter, ETR/TTR over time, the story of Anne and Dawn, the auditor and durability panels."""
    with solara.Div(classes=["rs-metrics"]):
        solara.Markdown(_metrics_markdown(session))
    with solara.Row():
        with solara.Div(classes=["rs-scatter"]):
            truth = colour_by_truth.value
            StepFigure(lambda: figures.scatter_figure(session, truth), [session, tick, truth])
        with solara.Div(classes=["rs-etr-ttr"]):
            StepFigure(lambda: figures.metrics_figure(session), [session, tick])
    with solara.Row():
        with solara.Div(classes=["rs-story"]):
            solara.Markdown("### Story: Anne and Dawn\n\n" + _story_markdown(session))
            StepFigure(lambda: figures.story_figure(session), [session, tick])
        if session.settings.auditor and not session.is_market:
            with solara.Div(classes=["rs-auditor"]):
                solara.Markdown("### Auditor: equality of effort")
                StepFigure(lambda: figures.auditor_figure(session), [session, tick])
    if session.is_market:
        with solara.Div(classes=["rs-lenders"]):
            solara.Markdown(
                f"### Lenders: a market of {session.settings.lenders}\n\n"
                "Each lender's selection rate, and for the market as a whole the share of applicants refused by "
                "every lender they applied to (systemic exclusion) and that share over what lenders deciding "
                "independently would give (homogenization; 1 = as independent as chance). The other panels show "
                "the market: an agent succeeds when any lender it applied to selects it. The auditor and "
                "durability panels do not run in a market yet."
            )
            StepFigure(lambda: figures.lenders_figure(session), [session, tick])
        return
    with solara.Div(classes=["rs-durability"]):
        solara.Markdown(
            "### Durability: do recommendations still work later?\n\n"
            "Whether carrying out a recommendation exactly would still be accepted 1, 3 or 5 steps after "
            "it was issued, under the model and cut-off in force then, per group, and the Kaplan–Meier "
            "curve of the steps until it expires (the documentation's Durability page defines both)."
        )
        StepFigure(lambda: figures.durability_figure(session), [session, tick])


@solara.component
def StepFigure(build: Callable[[], Figure], dependencies: list[Any]) -> None:  # noqa: N802 (a Solara component)
    """A figure built and converted to PNG only when ``dependencies`` change (a step, a toggle), not at every redraw."""
    figure = solara.use_memo(build, dependencies)
    solara.FigureMatplotlib(figure, dependencies=dependencies, format="png")


def _story_markdown(session: DashboardSession) -> str:
    if not session.story:
        return (
            "After the first step, the story follows two rejected agents: Anne, just below the cut-off, "
            "and Dawn, far below it (Bell et al. 2024, §1)."
        )
    return "\n\n".join(session.story_text())


def _build(current: DashboardSettings) -> tuple[DashboardSession | None, str | None]:
    try:
        return DashboardSession(current), None
    except RecourseSimError as error:
        return None, str(error)
