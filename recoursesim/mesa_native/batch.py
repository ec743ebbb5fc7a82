"""Batch runs of :class:`~recoursesim.mesa_native.ScenarioModel` over a grid and seeds, on Mesa 3.5 and Mesa 4.

Mesa 3.5 has ``mesa.batch_run``; Mesa 4 removes it and passes a model its parameters as a
``Scenario`` object instead. :func:`batch_run` uses ``mesa.batch_run`` where it exists, and
otherwise runs each point and seed as ``ScenarioModel(scenario=RecourseScenario(rng=seed, ...))``,
Mesa 4's way; both give the same table (one row per run and collected step), with the same
numbers: the run is the same recoursesim run either way.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import mesa
import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.mesa_native.model import ScenarioModel
from recoursesim.mesa_native.scenario import PARAMETERS, RecourseScenario


def has_batch_run() -> bool:
    """Whether the installed Mesa has ``mesa.batch_run`` (Mesa 3; Mesa 4 removed it)."""
    return callable(getattr(mesa, "batch_run", None))


def batch_run(
    parameters: Mapping[str, Any],
    rng: Sequence[Any],
    *,
    number_processes: int = 1,
) -> pd.DataFrame:
    """Run every combination of ``parameters`` for every seed in ``rng``; collect the model reporters each step.

    Args:
        parameters: :data:`~recoursesim.mesa_native.PARAMETERS` names -> a value or a list of values
            (``{"base": "default", "k": [10, 25], "steps": 4}``).
        rng: One run seed per iteration (integers or ``SeedSequence`` objects).
        number_processes: Processes to run in.

    Returns:
        One row per run and step: ``RunId``, ``iteration`` (the seed's index), ``Step``, the
        parameters, ``seed``, then every model reporter; sorted by ``RunId`` and ``Step``.

    Raises:
        ConfigError: A parameter :class:`ScenarioModel` does not take, or no seed.
    """
    unknown = sorted(set(parameters) - set(PARAMETERS))
    if unknown:
        raise ConfigError(
            f"parameters {unknown[0]}", "is not a ScenarioModel parameter", f"use {', '.join(PARAMETERS)}"
        )
    if not len(rng):
        raise ConfigError("rng", "no seed given", "give one seed per iteration, e.g. rng=[0, 1]")
    if has_batch_run():
        rows = mesa.batch_run(
            ScenarioModel,
            parameters={**parameters, "collect_agents": False},
            rng=list(rng),
            number_processes=number_processes,
            data_collection_period=1,
            display_progress=False,
        )
        frame = pd.DataFrame(rows).drop(columns="collect_agents")
    else:
        from joblib import Parallel, delayed

        runs = [(i, seed, kwargs) for i, seed in enumerate(rng) for kwargs in _grid(parameters)]
        parts = Parallel(n_jobs=number_processes)(
            delayed(_run)(run_id, i, seed, kwargs) for run_id, (i, seed, kwargs) in enumerate(runs)
        )
        frame = pd.concat(parts, ignore_index=True)
    return frame.sort_values(["RunId", "Step"], kind="stable").reset_index(drop=True)


def _grid(parameters: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every combination of the parameters (a list is several values; anything else one), in Mesa's order."""
    values = [value if isinstance(value, list | tuple) else [value] for value in parameters.values()]
    return [dict(zip(parameters, combo, strict=True)) for combo in itertools.product(*values)]


def _run(run_id: int, iteration: int, seed: Any, kwargs: dict[str, Any]) -> pd.DataFrame:
    """One run in Mesa 4's style: the parameters as a Scenario; the reporters collected after every step."""
    model = ScenarioModel(scenario=RecourseScenario(rng=seed, **kwargs), collect_agents=False)
    while model.running:
        model.step()
    frame = model.datacollector.get_model_vars_dataframe().reset_index(drop=True)
    labels = {"RunId": run_id, "iteration": iteration, "Step": range(1, len(frame) + 1), **kwargs, "seed": seed}
    return pd.concat([pd.DataFrame(labels, index=frame.index), frame], axis=1)
