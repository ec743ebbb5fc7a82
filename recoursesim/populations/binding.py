"""Hand a population's feature schema and default action set to components built without them.

A scenario passes a mixed-type population's schema and default action set to every component that
takes them. A component built by hand in Python (``SearchRecourse()``) has neither: it would treat
the features as two numbers on ``[0, 1]`` and let every feature move. :func:`bind_to_population`
gives such a component the same two objects the scenario builder would have given it, so that
``RecourseModel(population, scorer, selector, SearchRecourse(), BoundedEffortBehaviour(), ...)``
behaves exactly like the equivalent scenario.
"""

from __future__ import annotations

import inspect
from typing import Any

from recoursesim.errors import ConfigError
from recoursesim.features.capabilities import DescribedBySchema, action_defaults_of, schema_of


def bind_to_population(component: Any, population: Any, field: str) -> Any:
    """Return ``component``, rebuilt with the population's ``schema`` and ``action_defaults`` if it lacks them.

    Only a component whose constructor takes ``schema`` and that keeps it as an attribute is
    concerned, and only when the population has a schema. It is rebuilt (a new object with the
    same constructor parameters) when its schema is not the population's, or when it takes
    ``action_defaults``, has none and the population has some. Anything else is returned unchanged.

    Args:
        component: A recourse generator, behaviour, trainer or observer (or ``None``).
        population: The model's population.
        field: The scenario section the component stands for (for error messages).

    Raises:
        ConfigError: the component cannot be rebuilt (a constructor parameter it does not keep).
    """
    schema = schema_of(population)
    if component is None or schema is None:
        return component
    try:
        parameters = inspect.signature(type(component)).parameters
    except (TypeError, ValueError):
        return component
    if "schema" not in parameters or not isinstance(component, DescribedBySchema):
        return component  # a component that does not show its schema was built knowingly: leave it
    defaults = action_defaults_of(population)
    wants_defaults = "action_defaults" in parameters and bool(defaults)
    same_schema = component.schema == schema
    if same_schema and not (wants_defaults and getattr(component, "action_defaults", None) is None):
        return component
    params = _constructor_parameters(component, parameters, field, population)
    params["schema"] = schema
    if wants_defaults and params.get("action_defaults") is None:
        params["action_defaults"] = defaults
    if "feature_names" in parameters:
        params["feature_names"] = schema.names
    return type(component)(**params)


def _constructor_parameters(component: Any, parameters: Any, field: str, population: Any) -> dict[str, Any]:
    get_params = getattr(component, "get_params", None)
    supplied = {"population": population} if "population" in parameters else {}
    if callable(get_params):
        return {**dict(get_params(deep=False)), **supplied}
    params = dict(supplied)
    for name, parameter in parameters.items():
        if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY) or name in params:
            continue
        if not hasattr(component, name):
            raise ConfigError(
                field,
                f"{type(component).__name__} was built without the population's feature schema and does not keep "
                f"its parameter {name!r}, so it cannot be rebuilt with it",
                "pass schema=population.schema (and action_defaults=population.default_action_set) when building it",
            )
        params[name] = getattr(component, name)
    return params
