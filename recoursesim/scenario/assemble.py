"""Building a scenario's components: the keyword arguments of a :class:`~recoursesim.model.RecourseModel`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from recoursesim._validate import check_int
from recoursesim.errors import ConfigError
from recoursesim.features.capabilities import action_defaults_of, schema_of
from recoursesim.registry import build
from recoursesim.scoring.fitted import RefitsUserModel

if TYPE_CHECKING:
    from recoursesim.scenario.scenario import Scenario


def model_arguments(scenario: Scenario, *, dry_run: bool = False) -> dict[str, Any]:
    """Fresh components and sizes of a run of ``scenario`` (see :meth:`Scenario.model_arguments`)."""
    from recoursesim.refit_order import refit_order_of

    spec = scenario.spec
    population_spec = dict(spec["population"])
    n_initial = check_int("population.initial", population_spec.pop("initial", None), minimum=1)
    entrants = population_spec.pop("entrants", 0)
    allowed = scenario.allow_imports
    population = build("population", population_spec, data=scenario.inputs.get("data"), allow_imports=allowed)
    feature_names = tuple(population.feature_names)
    # Mixed-type populations hand their schema and default action set to the parts that need them.
    mixed: dict[str, Any] = {
        "schema": schema_of(population),
        "action_defaults": action_defaults_of(population),
    }
    scorer = build(
        "scorer",
        spec["scorer"],
        population=population,
        fitted_estimator=scenario.inputs.get("model"),
        trusted=scenario.trusted,
        allow_imports=allowed,
        **mixed,
    )
    n_features = getattr(scorer, "n_features_in_", len(feature_names))
    if n_features != len(feature_names):
        raise ConfigError(
            "scorer.weights", f"has {n_features} entries but the population has {len(feature_names)} features",
            f"give one weight per feature ({', '.join(feature_names)})",
        )  # fmt: skip
    selector = build("selector", spec["selection"], allow_imports=allowed)
    recourse = build(
        "recourse",
        spec["recourse"],
        feature_names=feature_names,
        population=population,
        allow_imports=allowed,
        **mixed,
    )
    behaviour = build("behaviour", spec["behaviour"], allow_imports=allowed, **mixed)
    # A refitting trainer refits clones of the user's own model, when the scorer is one.
    user_estimator = scorer.refit_prototype() if isinstance(scorer, RefitsUserModel) else None
    trainer = (
        build("trainer", spec["training"], allow_imports=allowed, user_estimator=user_estimator, **mixed)
        if "training" in spec
        else None
    )
    refit_order_of(trainer)
    outcome = build("outcome", spec["outcome"], allow_imports=allowed) if "outcome" in spec else None
    observers = build_observers(spec.get("observers", []), population, mixed, allowed)
    reference = scenario.reference_group
    if reference is not None and reference not in population.group_names:
        raise ConfigError(
            "metrics.reference_group",
            f"{reference!r} is not a group",
            f"use one of {', '.join(population.group_names)}",
        )
    model_spec = spec.get("model", {})
    patience = model_spec.get("patience")
    if dry_run:
        from recoursesim.populations.base import entrants_schedule

        if isinstance(entrants, int | np.integer) and not isinstance(entrants, bool):
            check_int("population.entrants", entrants, minimum=0)  # no schedule array: T may be huge
        else:
            entrants_schedule(entrants, scenario.steps)
        if patience is not None:
            check_int("model.patience", patience, minimum=1)
        return {}
    return dict(
        population=population,
        scorer=scorer,
        selector=selector,
        recourse=recourse,
        behaviour=behaviour,
        n_initial=n_initial,
        entrants=entrants,
        n_steps=scenario.steps,
        trainer=trainer,
        observers=observers,
        patience=patience,
        record_recommendations=model_spec.get("record_recommendations", True),
        outcome=outcome,
    )


def build_observers(
    tables: list[dict[str, Any]], population: Any, mixed: dict[str, Any], allow_imports: tuple[str, ...] = ()
) -> list[Any]:
    """Build the ``[[observers]]``; each writes its rows under its ``label`` (default: its name), unique."""
    observers: list[Any] = []
    seen: dict[str, int] = {}
    for i, table in enumerate(tables):
        section = f"observers[{i}]"
        params = {key: value for key, value in table.items() if key != "label"}
        observer = build(
            "observer", params, section=section, population=population, allow_imports=allow_imports, **mixed
        )
        if "label" in table:
            label = table["label"]
            if not isinstance(label, str) or not label.strip():
                raise ConfigError(
                    f"{section}.label", f"must be a non-empty string, got {label!r}", 'write label = "..."'
                )
            observer.name = label
        name = str(observer.name)
        if name in seen:
            raise ConfigError(
                f"{section}.label",
                f"observers[{seen[name]}] and observers[{i}] would both write their rows as {name!r}",
                f'give one of them its own label, e.g. label = "{name}-{i}"',
            )
        seen[name] = i
        observers.append(observer)
    return observers
