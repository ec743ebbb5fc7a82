"""A recoursesim scenario as an EMA Workbench model: uncertainties, levers, outcomes, replications over seeds.

Uncertainties and levers are written in the ``--param`` grammar of the policy studies
(:mod:`recoursesim.policy.space`): ``population.effort.scale=0.02:0.3`` is a real parameter,
``selection.k=20:100`` an integer one (both bounds integers), ``training.name=none,cda`` a
categorical one (TOML values, whole tables allowed). Outcomes are pooled metrics ``NAME:GROUP``
(``dTTR:female``, ``rETR:female``, ``selected:all``). The workbench wants Python identifiers for
names, so a key's dots and an outcome's colon become underscores (:func:`ema_name`:
``selection.k`` is ``selection_k``, ``dTTR:female`` is ``dttr_female``). Each experiment runs the scenario for
``n_seeds`` replications (seed ``i`` is the ``i``-th child of ``SeedSequence(root_seed)`` in every
experiment, as in a sweep: common random numbers); an outcome is the mean over the seeds where it
is defined.

```python
from ema_workbench import MultiprocessingEvaluator

from recoursesim.policy.ema import ema_model
from recoursesim.scenario import load_scenario

model = ema_model(load_scenario("default"), uncertainties=["population.entrants=10:40"],
                  levers=["selection.k=20:100"], outcomes=["dTTR:disadvantaged"], n_seeds=4)
with MultiprocessingEvaluator(model, n_processes=2) as evaluator:
    experiments, outcomes = evaluator.perform_experiments(scenarios=50, policies=4)
outcomes["dttr_disadvantaged"]  # one value per experiment: the mean over its 4 seeds
```
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.policy._deps import require
from recoursesim.policy.objectives import seed_mean
from recoursesim.policy.space import (
    Choice,
    MetricSpec,
    ParamRange,
    parse_choices,
    parse_metric,
    parse_ranges,
    pooled_rows,
)
from recoursesim.scenario import Scenario
from recoursesim.sweep.identity import canonical_json

#: The replication field that carries the seed index.
SEED_FIELD = "seed_index"


def ema_name(text: str) -> str:
    """The workbench's name (a Python identifier) of a scenario key or ``NAME:GROUP`` outcome label."""
    name = re.sub(r"\W", "_", text)
    return f"p_{name}" if not name or name[0].isdigit() else name


class ScenarioFunction:
    """The function an EMA model calls: one run of the scenario with the experiment's values.

    Picklable (the scenario pickles by its specification), so EMA's multiprocessing evaluator can
    send it to worker processes.

    Args:
        scenario: The base scenario.
        outcomes: The metrics to return.
        keys: The workbench's parameter name -> the scenario key it sets.
        categorical: Keys whose EMA values are the canonical JSON of a TOML value.
        root_seed: Root of the spawned seeds.
        n_seeds: Seeds per experiment.
    """

    def __init__(
        self,
        scenario: Scenario,
        outcomes: Sequence[MetricSpec],
        keys: dict[str, str],
        categorical: Sequence[str],
        root_seed: int,
        n_seeds: int,
    ) -> None:
        self.scenario = scenario
        self.outcomes = tuple(outcomes)
        self.keys = dict(keys)
        self.categorical = frozenset(categorical)
        self.root_seed = root_seed
        self.n_seeds = n_seeds

    def overrides(self, experiment: dict[str, Any]) -> dict[str, Any]:
        """The scenario overrides of an experiment (the replication's seed left out)."""
        values = {}
        for name, value in experiment.items():
            if name == SEED_FIELD:
                continue
            key = self.keys[name]
            if key in self.categorical:
                values[key] = json.loads(value)
            elif isinstance(value, np.integer):
                values[key] = int(value)
            elif isinstance(value, np.floating):
                values[key] = float(value)
            else:
                values[key] = value
        return values

    def __call__(self, **experiment: Any) -> dict[str, float]:
        """Run one replication; return each outcome (NaN where the metric is undefined)."""
        from recoursesim.simulate import simulate
        from recoursesim.sweep.worker import fresh_seed

        seed = np.random.SeedSequence(self.root_seed).spawn(self.n_seeds)[int(experiment[SEED_FIELD])]
        result = simulate(self.scenario.with_overrides(self.overrides(experiment)), fresh_seed(seed))
        rows = pooled_rows(result.summary)
        return {ema_name(metric.label): float(metric.per_seed(rows).iloc[0]) for metric in self.outcomes}


def _seed_mean(values: Any) -> float:
    """An outcome's mean over the seeds where it is defined (NaN if none)."""
    return seed_mean(np.asarray(values, dtype=float))[0]


def _parameters(ema: Any, ranges: Sequence[ParamRange], choices: Sequence[Choice]) -> list[Any]:
    """EMA parameters: integer or real ones for the ranges, categorical ones (by canonical JSON) for the choices."""
    params: list[Any] = [
        ema.IntegerParameter(ema_name(r.key), int(r.low), int(r.high))
        if r.integer
        else ema.RealParameter(ema_name(r.key), r.low, r.high)
        for r in ranges
    ]
    return params + [ema.CategoricalParameter(ema_name(c.key), [canonical_json(v) for v in c.values]) for c in choices]


def _split(items: Sequence[str], field: str) -> tuple[list[ParamRange], list[Choice]]:
    """Items in the ``--param`` grammar: ``key=lo:hi`` ranges and ``key=a,b`` choices, each error naming ``field``."""
    ranges: list[ParamRange] = []
    choices: list[Choice] = []
    for item in items:
        key, _, text = item.partition("=")
        try:
            if ":" in text and "," not in text and not text.strip().startswith(("{", "[", '"', "'")):
                ranges += parse_ranges([item])
            else:
                choices += parse_choices([item])
        except ConfigError as error:
            raise ConfigError(f"{field} {key.strip()}", error.problem, error.fix) from None
    return ranges, choices


def _check_keys(scenario: Scenario, ranges: Sequence[ParamRange], choices: Sequence[Choice], field: str) -> None:
    """Refuse a key the scenario does not have, or a value it rejects, before any experiment."""
    for key, value in [(r.key, r.value(r.low)) for r in ranges] + [(c.key, v) for c in choices for v in c.values]:
        try:
            scenario.with_overrides({key: value})
        except ConfigError as error:
            raise ConfigError(f"{field} {key}", error.problem, error.fix) from None


def ema_model(
    scenario: Scenario,
    *,
    uncertainties: Sequence[str] = (),
    levers: Sequence[str] = (),
    outcomes: Sequence[str],
    n_seeds: int = 1,
    root_seed: int | None = None,
    name: str = "recoursesim",
) -> Any:
    """The scenario as an ``ema_workbench.ReplicatorModel`` (one replication per seed).

    Args:
        scenario: The base scenario; fields not named keep its values.
        uncertainties: ``key=lo:hi`` or ``key=a,b`` items (the ``--param`` grammar).
        levers: The same, for the policy levers.
        outcomes: ``NAME:GROUP`` metrics; each becomes a scalar outcome, its mean over the seeds.
        n_seeds: Replications per experiment.
        root_seed: Root of the spawned seeds (default: the scenario's ``run.seed``).
        name: The model's name (an identifier).

    Returns:
        The EMA Workbench model, ready for its evaluators.

    Raises:
        ConfigError: The workbench is missing, an unreadable item, a key the scenario does not have
            (or a value it rejects), a key that is both an uncertainty and a lever, no outcome, or
            fewer than one seed.
    """
    ema = require("ema_workbench")
    if not outcomes:
        raise ConfigError("outcomes", "no outcome given", "name at least one NAME:GROUP, e.g. dTTR:female")
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, int) or n_seeds < 1:
        raise ConfigError("n_seeds", f"must be a positive integer, got {n_seeds!r}", "give 1 or more")
    u_ranges, u_choices = _split(uncertainties, "uncertainty")
    l_ranges, l_choices = _split(levers, "lever")
    keys: dict[str, str] = {}
    named: tuple[tuple[str, tuple[ParamRange | Choice, ...]], ...] = (
        ("uncertainty", (*u_ranges, *u_choices)),
        ("lever", (*l_ranges, *l_choices)),
    )
    for kind, params in named:
        for p in params:
            if ema_name(p.key) in keys:
                raise ConfigError(
                    f"{kind} {p.key}",
                    f"is named twice, or shares the name {ema_name(p.key)} with {keys[ema_name(p.key)]}",
                    "name each field once",
                )
            keys[ema_name(p.key)] = p.key
    _check_keys(scenario, u_ranges, u_choices, "uncertainty")
    _check_keys(scenario, l_ranges, l_choices, "lever")
    metrics = [parse_metric(text, "outcomes") for text in outcomes]
    categorical = [c.key for c in (*u_choices, *l_choices)]
    seed = scenario.seed if root_seed is None else root_seed
    model = ema.ReplicatorModel(name, function=ScenarioFunction(scenario, metrics, keys, categorical, seed, n_seeds))
    model.uncertainties = _parameters(ema, u_ranges, u_choices)
    model.levers = _parameters(ema, l_ranges, l_choices)
    model.outcomes = [ema.ScalarOutcome(ema_name(m.label), function=_seed_mean) for m in metrics]
    model.replications = [{SEED_FIELD: i} for i in range(n_seeds)]
    return model


def outcome_table(experiments: pd.DataFrame, outcomes: dict[str, np.ndarray], outcome: str) -> pd.DataFrame:
    """One outcome of EMA's results as a policy × scenario table (:func:`~recoursesim.policy.robust.robustness`).

    Args:
        experiments: EMA's experiments (its ``policy`` and ``scenario`` columns label the rows).
        outcomes: EMA's outcomes.
        outcome: The outcome's name (``"dttr_female"``, :func:`ema_name`).

    Raises:
        ConfigError: An outcome the results do not hold.
    """
    if outcome not in outcomes:
        raise ConfigError("outcome", f"{outcome!r} is not among the outcomes", f"use one of {', '.join(outcomes)}")
    frame = pd.DataFrame({"policy": experiments["policy"].astype(str), "scenario": experiments["scenario"].astype(str)})
    frame["value"] = np.asarray(outcomes[outcome], dtype=float)
    return frame.pivot_table(
        index="policy", columns="scenario", values="value", aggfunc="mean", sort=False, dropna=False
    )
