"""Equality of effort on a mixed-type population: the model's linear part, every other term held fixed.

Equality of effort prices minimal recourse on a linear model over a linear structural causal
model whose actionable variables are numbers. A one-hot encoded logistic regression on a data
set with categories is linear in its numeric, integer and (as the built-in model encodes them)
ordinal features, and adds one term per category of each categorical feature. This module turns
such a model and a population into that problem:

- the SCM variables are the features the margin is linear in, plus one root variable holding the
  sum of every other term of each agent's margin (its categories' terms and the intercept), with
  coefficient 1: categories are not intervened on, so they only shift the agent's margin;
- actionable are the linear features the data set's action set lets agents change (not
  immutable, not the group's own column), with its increase-only / decrease-only directions and
  its bounds (widened to the population's current range: the audit's bounds are the same for
  every agent); integer and ordinal features move fractionally (a continuous relaxation);
- costs are range-normalised over the data set's observed range, as in the recourse cost model;
- the situation-testing distance uses every feature except the group's column: range-normalised
  differences of numbers and ranks, plus one per differing category.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.features import FeatureSchema, MixedActionSet
from recoursesim.observers import PopulationSnapshot
from recoursesim.recourse.exact_linear import additive_form
from recoursesim.recourse.mixed import margin_of_rows, to_margin
from recoursesim.scoring.base import model_name

#: Name of the SCM variable holding each agent's non-linear margin terms.
OTHER_TERMS = "(other terms)"


@dataclass(frozen=True)
class LinearView:
    """The linear equality-of-effort problem of one snapshot.

    Attributes:
        frame: One row per agent: every feature (codes), :data:`OTHER_TERMS`.
        variables: SCM variables: the linear features, then :data:`OTHER_TERMS`.
        coef: Margin per unit of each variable.
        threshold: The cut-off on the margin scale.
        actionable: Actionable variables.
        ranges: Cost-normalising range of each variable.
        direction: Monotonicity constraints.
        lower: Lower bounds of the actionable variables.
        upper: Upper bounds of the actionable variables.
        distance_features: Features of the situation-testing distance.
        categorical: Those compared by overlap.
    """

    frame: pd.DataFrame
    variables: list[str]
    coef: np.ndarray
    threshold: float
    actionable: list[str]
    ranges: np.ndarray
    direction: dict[str, str]
    lower: dict[str, float]
    upper: dict[str, float]
    distance_features: list[str]
    categorical: list[str]


def linear_slopes(snapshot: PopulationSnapshot, schema: FeatureSchema) -> tuple[np.ndarray, np.ndarray, str]:
    """Per feature: its margin per code unit and whether the margin is linear in it; and the link.

    Raises:
        ConfigError: the model's margin is not a sum of one term per feature.
    """
    features = np.asarray(snapshot.features, dtype=float)
    form = additive_form(snapshot.scorer, features, schema, np.ones(len(schema.names), dtype=bool), 1e-6)
    if form is None:
        raise ConfigError(
            "",
            f"needs a linear model (a linear scorer, the built-in logistic model or a pipeline ending in a "
            f"logistic regression); the run's {model_name(snapshot.scorer)} is not additive",
            'use [scorer] model = "logistic", or drop this observer (FACTS and CCM work with any model)',
        )
    slope = np.asarray(form.slope, dtype=float).copy()
    linear = schema.is_numeric | schema.is_integer
    for j, table in enumerate(form.tables):
        if table.size >= 2 and schema.is_ordinal[j]:
            steps = np.diff(table)
            if np.allclose(steps, steps[0], rtol=1e-9, atol=1e-12):  # ranks enter linearly (built-in model)
                slope[j], linear[j] = steps[0], True
    return slope, linear, form.link


def linear_view(
    snapshot: PopulationSnapshot,
    actionable: Sequence[str] | None,
    direction: Mapping[str, str],
    dag: Mapping[str, Sequence[str]],
    action_defaults: Mapping[str, Any] | None,
    group_column: str | None,
) -> LinearView:
    """Build the snapshot's :class:`LinearView` (see the module docstring).

    Raises:
        ConfigError: a non-additive model, or an actionable / DAG feature the margin is not linear in.
    """
    schema = snapshot.schema
    assert schema is not None
    names = list(schema.names)
    features = np.asarray(snapshot.features, dtype=float)
    slope, linear, link = linear_slopes(snapshot, schema)
    margin = margin_of_rows(snapshot.scorer, features, link)
    variables = [n for n, keep in zip(names, linear, strict=True) if keep]
    frame = pd.DataFrame(features, columns=names)
    frame[OTHER_TERMS] = margin - features[:, linear] @ slope[linear]
    actions = MixedActionSet.from_spec(schema, action_defaults)
    if actionable is None:
        fixed = set(np.asarray(names)[actions.immutable]) | {group_column}
        chosen = [n for n in variables if n not in fixed]
    else:
        chosen = list(actionable)
        for name in chosen:
            if name not in names:
                raise ConfigError("actionable", f"unknown feature {name!r}", f"use some of {', '.join(variables)}")
            if name not in variables:
                raise ConfigError(
                    "actionable",
                    f"{name!r} is {schema[name].kind} and the model is not linear in it",
                    f"equality of effort intervenes on numbers and ranks: use some of {', '.join(variables)}",
                )
    outside = sorted({n for child, parents in dag.items() for n in (child, *parents)} - set(variables))
    if outside:
        raise ConfigError(
            "dag", f"names {outside[0]!r}, which is not a feature the model is linear in", "leave it out of the DAG"
        )
    span = np.asarray(schema.upper - schema.lower, dtype=float)
    chosen = [n for n in chosen if span[names.index(n)] > 0 and slope[names.index(n)] != 0]
    rules = {n: "increase" for n in np.asarray(names)[actions.increase_only]}
    rules |= {n: "decrease" for n in np.asarray(names)[actions.decrease_only]}
    rules = {n: r for n, r in rules.items() if n in chosen} | dict(direction)
    distance = [n for n in names if n != group_column]
    return LinearView(
        frame=frame,
        variables=[*variables, OTHER_TERMS],
        coef=np.append(slope[linear], 1.0),
        threshold=float(to_margin(np.asarray(float(np.median(snapshot.agent_thresholds()))), link)),
        actionable=chosen,
        ranges=np.append(span[linear], 0.0),
        direction=rules,
        lower={n: float(min(actions.lower[j], features[:, j].min())) for n, j in ((n, names.index(n)) for n in chosen)},
        upper={n: float(max(actions.upper[j], features[:, j].max())) for n, j in ((n, names.index(n)) for n in chosen)},
        distance_features=distance,
        categorical=[n for n in distance if schema[n].kind == "categorical"],
    )
