"""Bring your own model and data: the Python objects a scenario runs with, beside its plain-data table.

A scenario's table is data (TOML, JSON), so a fitted estimator or a DataFrame cannot live in it.
:func:`attach_inputs` puts them beside it instead and rewrites the table to say so:

- ``model=`` makes the scorer ``{name = "fitted", fingerprint = ...}``
  (:class:`~recoursesim.scoring.fitted.FittedModelScorer`), keeping a ``fitted`` scorer's
  ``output``;
- ``data=`` makes the population read the DataFrame instead of a bundled data set or a file,
  ``data_fingerprint`` recording which. Replacing a bundled data set keeps its target column
  and default action set (your own copy of German credit is still German credit).

The fingerprints are digests of the objects (:func:`fingerprint`), so a sweep's run identities,
and a resumed sweep's, depend on the model and the data as they do on every other setting.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from recoursesim.errors import ConfigError

#: Population keys that name where a dataset population's rows come from.
_SOURCE_KEYS = ("dataset", "path", "data_fingerprint")


def fingerprint(value: Any) -> str:
    """A short digest of a Python object's content (:func:`joblib.hash`), stable across processes."""
    import joblib

    return str(joblib.hash(value))[:16]


def attach_inputs(
    spec: Mapping[str, Any], model: Any = None, data: Any = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the scenario table rewritten for ``model`` and/or ``data``, and the inputs to keep beside it.

    Args:
        spec: The resolved scenario table.
        model: A fitted classifier or ``Pipeline`` (``None``: keep the scenario's scorer).
        data: A DataFrame of applicants (``None``: keep the scenario's data).

    Raises:
        ConfigError: ``data`` for a population that is not a dataset population, or not a DataFrame.
    """
    import pandas as pd

    table = copy.deepcopy(dict(spec))
    inputs: dict[str, Any] = {}
    if model is not None:
        scorer = table.get("scorer", {})
        kept = {k: scorer[k] for k in ("output",) if scorer.get("name") == "fitted" and k in scorer}
        table["scorer"] = {"name": "fitted", **kept, "fingerprint": fingerprint(model)}
        inputs["model"] = model
    if data is not None:
        if not isinstance(data, pd.DataFrame):
            raise ConfigError("data", f"must be a pandas DataFrame, got {type(data).__name__}", "pass a DataFrame")
        population = dict(table.get("population", {}))
        if population.get("name") != "dataset":
            raise ConfigError(
                "population.name",
                f"data= replaces the rows of a dataset population, not of {population.get('name')!r}",
                'use a scenario with [population] name = "dataset" (for example german-credit-lending)',
            )
        bundled = population.get("dataset")
        if bundled is not None:
            population = _from_bundled(population, str(bundled), data)
        for key in _SOURCE_KEYS:
            population.pop(key, None)
        population["data_fingerprint"] = fingerprint(data)
        table["population"] = population
        inputs["data"] = data
    return table, inputs


def _from_bundled(population: dict[str, Any], name: str, data: Any) -> dict[str, Any]:
    """A bundled data set's population turned into user data: keep its target and default action set."""
    from recoursesim.datasets import LOADERS
    from recoursesim.features.defaults import DEFAULT_ACTIONS, DEFAULT_COLUMNS
    from recoursesim.populations.dataset import _bundled

    if name not in LOADERS:
        return population
    bundled = _bundled(name)
    population.setdefault("target", bundled.target)
    columns = DEFAULT_COLUMNS.get(name)
    if "features" not in population and columns is not None and set(columns) <= set(data.columns):
        population["features"] = list(columns)
    if "feature_types" not in population:
        wanted = population.get("features") or [c for c in data.columns if c != population["target"]]
        population["feature_types"] = _bundled_types(bundled, [c for c in wanted if c in data.columns])
    if "actions" not in population:
        present = set(data.columns)
        population["actions"] = {
            key: [column for column in value if column in present] for key, value in DEFAULT_ACTIONS[name].items()
        }
    return population


def _bundled_types(bundled: Any, columns: list[Any]) -> dict[str, Any]:
    """The bundled data set's feature types (as a scenario writes them) for those of ``columns`` it knows."""
    import pandas as pd

    table: dict[str, Any] = {}
    for column in columns:
        kind = bundled.feature_types.get(column)
        if kind == "numerical":
            integer = pd.api.types.is_integer_dtype(bundled.frame[column])
            table[str(column)] = "integer" if integer else "numeric"
        elif kind == "ordinal":
            table[str(column)] = {"kind": "ordinal", "order": list(bundled.ordinal_orders[column])}
        elif kind in ("binary", "categorical"):
            table[str(column)] = "categorical"
    return table
