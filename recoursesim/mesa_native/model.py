"""ScenarioModel: a scenario run as a Mesa model whose parameters are scalars a slider or a grid can vary."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import mesa
import numpy as np

from recoursesim._validate import check_float, check_int
from recoursesim.engine.model import RecourseModel
from recoursesim.errors import ConfigError
from recoursesim.mesa_native.reporters import reporter_names, step_reporters
from recoursesim.mesa_native.scenario import RecourseScenario
from recoursesim.resources import check_run_memory
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.simulate import check_seed

#: Scalar parameters that set one scenario key.
SCENARIO_KEYS: dict[str, str] = {
    "k": "selection.k",
    "steps": "run.steps",
    "initial": "population.initial",
    "entrants": "population.entrants",
}
#: Agent-level reporters (attributes of :class:`~recoursesim.engine.agents.RecourseAgent`).
AGENT_REPORTERS: tuple[str, ...] = ("group", "score", "effort", "effort_spent", "entry_step")


class ScenarioModel(RecourseModel):
    """A recoursesim run as a Mesa model with scalar keyword parameters.

    The base scenario (a bundled name, a TOML path or a :class:`~recoursesim.scenario.Scenario`)
    is loaded and the scalar parameters override its keys, so the model is exactly the one
    ``recoursesim run`` / ``recoursesim sweep`` build for the same scenario and seed. Mesa's
    tools work on it: ``mesa.batch_run`` varies the parameters, ``SolaraViz`` turns them into
    sliders, and the data collector (:attr:`datacollector`) records after every step the
    model-level reporters of :mod:`recoursesim.mesa_native.reporters` (per-group ETR_t, TTR_t,
    selection rate, the cut-off, ...) and, with ``collect_agents``, each waiting agent's
    :data:`AGENT_REPORTERS`. Every reporter is also an attribute (``model.etr_advantaged``) and a
    field of the ``"recourse"`` data set of Mesa's new data registry (``model.data_registry``).

    Args:
        base: The scenario the parameters override (default: the bundled ``default``).
        seed: The run seed: a non-negative integer or a ``SeedSequence`` (``None``: the Mesa
            scenario's ``rng``, else the base scenario's ``run.seed``).
        k: Favourable outcomes per step (``selection.k``).
        steps: ``T`` (``run.steps``); Mesa's ``running`` turns false after step ``T``.
        initial: Agents at step 0 (``population.initial``).
        entrants: Agents joining after every step (``population.entrants``).
        effort_scale: Multiplies every group's effort capacity (see :func:`scaled_effort`).
        collect_agents: Also collect the agent-level reporters (they make Mesa agent views).
        scenario: The same parameters as a :class:`RecourseScenario` (Mesa 4's style); explicit
            keyword arguments override its fields.

    Raises:
        ConfigError: an unknown scenario, a value the scenario rejects, or a run too large for the memory.
    """

    def __init__(
        self,
        base: str | Path | Scenario | None = None,
        seed: int | np.random.SeedSequence | None = None,
        *,
        k: int | None = None,
        steps: int | None = None,
        initial: int | None = None,
        entrants: int | None = None,
        effort_scale: float | None = None,
        collect_agents: bool = True,
        scenario: RecourseScenario | None = None,
    ) -> None:
        given = dict(base=base, k=k, steps=steps, initial=initial, entrants=entrants, effort_scale=effort_scale)
        if scenario is not None:
            if not isinstance(scenario, RecourseScenario):
                raise ConfigError(
                    "scenario", f"must be a RecourseScenario, got {type(scenario).__name__}",
                    "pass RecourseScenario(...) or the parameters as keywords",
                )  # fmt: skip
            given = {name: scenario_value if given[name] is None else given[name]
                     for name, scenario_value in scenario.parameters().items()}  # fmt: skip
            seed = scenario.run_seed if seed is None else seed
        resolved = resolve(given)
        seed = check_seed(seed)
        check_run_memory(resolved.config)
        run_seed = resolved.seed if seed is None else seed
        super().__init__(**resolved.model_arguments(), seed=run_seed)
        self.resolved_scenario = resolved
        self.effort_measure = resolved.effort_measure
        if scenario is None:
            fields = {name: value for name, value in given.items() if value is not None}
            fields["base"] = str(fields.get("base", "default")) if not isinstance(base, Scenario) else resolved.name
            scenario = RecourseScenario(rng=run_seed, **fields)
        self.scenario = scenario
        self._reported = step_reporters(self, self.effort_measure)
        names = reporter_names(self.group_names)
        self.datacollector = mesa.DataCollector(
            model_reporters={name: name for name in names},
            agent_reporters={name: name for name in AGENT_REPORTERS} if collect_agents else None,
        )
        self.data_registry.track_model(self, "recourse", fields=names)
        if collect_agents:
            self.data_registry.track_agents(self.agents, "agents", fields=list(AGENT_REPORTERS))

    def step(self) -> None:
        """Run one step, update the reporters and collect them."""
        super().step()
        self._reported = step_reporters(self, self.effort_measure)
        self.datacollector.collect(self)

    def __getattr__(self, name: str) -> Any:
        """The reporters as attributes (``model.selection_rate_advantaged``), for Mesa's collectors."""
        reported = self.__dict__.get("_reported")
        if reported is not None and name in reported:
            return float(reported[name])
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def resolve(parameters: dict[str, Any]) -> Scenario:
    """The validated scenario the scalar parameters of :class:`ScenarioModel` describe.

    Args:
        parameters: ``base`` and any of ``k``, ``steps``, ``initial``, ``entrants``,
            ``effort_scale`` (``None``: keep the base scenario's value).

    Raises:
        ConfigError: naming the parameter and the fix.
    """
    base = parameters.get("base")
    scenario = base if isinstance(base, Scenario) else load_scenario(None if base is None else base)
    overrides: dict[str, Any] = {}
    for name, key in SCENARIO_KEYS.items():
        value = parameters.get(name)
        if value is not None:
            overrides[key] = check_int(name, value, minimum=0)
    factor = parameters.get("effort_scale")
    if factor is not None:
        overrides.update(scaled_effort(scenario.spec["population"], check_float("effort_scale", factor, minimum=0.0)))
    return scenario.with_overrides(overrides) if overrides else scenario


def scaled_effort(population: dict[str, Any], factor: float) -> dict[str, Any]:
    """Scenario overrides that multiply every agent's effort capacity by ``factor``.

    Each built-in population draws capacities proportional to one number, scaled here:
    ``mixture`` every group's ``effort.scale``, ``bell2024`` its ``adaptation``, ``dataset`` its
    effort table's ``scale`` (per group or shared).

    Args:
        population: The scenario's ``[population]`` table.
        factor: The multiplier (>= 0).

    Returns:
        Dotted scenario keys and their new values.

    Raises:
        ConfigError: the population has no effort scale recoursesim knows.
    """
    name = population.get("name")
    if name == "bell2024":
        return {"population.adaptation": float(population.get("adaptation", 0.5)) * factor}
    if name == "mixture":
        groups = copy.deepcopy(population.get("groups", []))
        for group in groups:
            effort = group.setdefault("effort", {})
            effort["scale"] = float(effort.get("scale", 1.0)) * factor
        return {"population.groups": groups}
    if name == "dataset":
        effort = copy.deepcopy(population.get("effort")) or {"mean": 0.0, "sd": 1.0, "scale": 0.1}
        tables = [effort] if set(effort) <= {"mean", "sd", "scale"} else list(effort.values())
        for table in tables:
            table["scale"] = float(table.get("scale", 1.0)) * factor
        return {"population.effort": effort}
    raise ConfigError(
        "effort_scale", f"population {name!r} has no effort scale recoursesim knows",
        "scale the effort in the scenario file instead",
    )  # fmt: skip
