"""recoursesim's scalar parameters as a Mesa ``Scenario`` (Mesa 4's way of passing a model its parameters)."""

from __future__ import annotations

from typing import Any

from mesa.experimental.scenarios import Scenario as MesaScenario

#: The scalar parameters of :class:`~recoursesim.mesa_native.ScenarioModel`, and what each sets.
PARAMETERS: dict[str, str] = {
    "base": "a bundled scenario name or a TOML file path the other parameters override",
    "k": "favourable outcomes per step (selection.k)",
    "steps": "T: the run covers steps 0 … T (run.steps)",
    "initial": "agents at step 0 (population.initial)",
    "entrants": "agents joining after every step (population.entrants)",
    "effort_scale": "multiplies every group's effort capacity (the population's effort scale)",
}


class RecourseScenario(MesaScenario):
    """The parameters of one recoursesim run in Mesa's ``Scenario`` form.

    ``None`` keeps the value of the ``base`` scenario file; ``rng`` is the run seed (``None``: the
    base scenario's ``run.seed``). Pass it as ``ScenarioModel(scenario=RecourseScenario(...))``;
    the model's ``scenario`` attribute is then this object, as Mesa's tools expect. Mesa forbids
    changing a scenario while its model runs.

    Example:
        >>> RecourseScenario(rng=3, k=10).parameters()["k"]
        10
    """

    base: str = "default"
    k: int | None = None
    steps: int | None = None
    initial: int | None = None
    entrants: int | None = None
    effort_scale: float | None = None

    def __init__(self, *, rng: Any = None, **kwargs: Any) -> None:
        # Mesa 4 turns ``rng`` into a Generator (Mesa 3.5 keeps it as given); keep the seed as given too,
        # so the run seed is the same on both (a Generator's state says nothing of ``None``: the base's seed).
        super().__init__(rng=rng, _run_seed=rng, **kwargs)

    @property
    def run_seed(self) -> Any:
        """The ``rng`` given, as given (``None``: the base scenario's ``run.seed``)."""
        return self.__dict__.get("_run_seed")

    def parameters(self) -> dict[str, Any]:
        """The recoursesim parameters (:data:`PARAMETERS`) as a plain dict (without ``rng``)."""
        return {name: getattr(self, name) for name in PARAMETERS}
