"""recoursesim in Mesa's own SolaraViz: sliders for the scalar parameters, plots of the data collector.

Serve it with (needs the ``dashboard`` extra: ``pip install 'recoursesim[dashboard]'``)::

    solara run examples/mesa_solaraviz.py

Every slider is a keyword parameter of :class:`recoursesim.mesa_native.ScenarioModel`; moving one
and pressing *Reset* builds a new model from the bundled ``default`` scenario with that value.
*Step* and *Play* call the model's ``step()``, and the plots read its ``DataCollector``.
recoursesim's own teaching dashboard (``recoursesim dashboard``) shows more (the agents, the
recommendations, the auditor); this page shows what any Mesa user gets from the model.
"""

from __future__ import annotations

import solara
from mesa.visualization import SolaraViz, make_plot_component
from mesa.visualization.utils import update_counter

from recoursesim.mesa_native import ScenarioModel

GROUPS = ("advantaged", "disadvantaged")
COLOURS = {"advantaged": "tab:blue", "disadvantaged": "tab:orange"}

#: The sliders (Mesa's user-parameter tables) and the fixed parameters.
MODEL_PARAMS = {
    "base": "default",
    "collect_agents": False,
    "seed": {"type": "SliderInt", "value": 0, "label": "seed", "min": 0, "max": 50, "step": 1},
    "k": {"type": "SliderInt", "value": 20, "label": "favourable outcomes per step k", "min": 1, "max": 60, "step": 1},
    "steps": {"type": "SliderInt", "value": 20, "label": "time steps T", "min": 1, "max": 60, "step": 1},
    "initial": {"type": "SliderInt", "value": 200, "label": "initial agents", "min": 50, "max": 600, "step": 10},
    "entrants": {"type": "SliderInt", "value": 20, "label": "new agents per step", "min": 0, "max": 100, "step": 5},
    "effort_scale": {
        "type": "SliderFloat", "value": 1.0, "label": "effort scale", "min": 0.25, "max": 4.0, "step": 0.25,
    },
}  # fmt: skip


def _axes(title: str, ylabel: str):
    """A ``post_process`` hook: title, y label and a marker on every step (Mesa adds "Step" and integer ticks)."""

    def finish(ax) -> None:
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        for line in ax.lines:
            line.set_marker("o")

    return finish


def _plot(prefix: str, title: str, ylabel: str):
    measures = {f"{prefix}_{group}": COLOURS[group] for group in GROUPS}
    return make_plot_component(measures, post_process=_axes(title, ylabel))


@solara.component
def Parameters(model: ScenarioModel) -> None:  # noqa: N802 (Solara components are capitalised)
    """The values the running model was built with (Mesa's sliders do not print theirs)."""
    update_counter.get()
    scenario = model.resolved_scenario.spec
    rows = [
        ("seed", model.seed),
        ("k", scenario["selection"]["k"]),
        ("T", model.n_steps),
        ("initial agents", model.n_initial),
        ("new agents per step", scenario["population"]["entrants"]),
        ("effort scale", model.scenario.effort_scale or 1.0),
        ("steps run", model.t),
    ]
    table = "\n".join(f"| {name} | {value} |" for name, value in rows)
    with solara.Div(classes=["rs-parameters"]):
        solara.Markdown("**Model built with** (press Reset after moving a slider)\n\n| | |\n|---|---|\n" + table)


COMPONENTS = [
    (Parameters, 0),
    _plot("etr", "ETR_t: effort of this step's recourse successes", "effort (feature-space distance)"),
    _plot("ttr", "TTR_t: their time to recourse", "steps"),
    _plot("selection_rate", "selection rate (selected / scored)", "share of scored agents"),
    make_plot_component({"cutoff": "tab:grey"}, post_process=_axes("cut-off s_t", "score")),
]

model = ScenarioModel("default", seed=0, collect_agents=False)
page = SolaraViz(model, components=COMPONENTS, model_params=MODEL_PARAMS, name="recoursesim in Mesa SolaraViz")
