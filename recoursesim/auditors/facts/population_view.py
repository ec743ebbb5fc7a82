"""The simulated population as FACTS sees it: discrete columns, how to score them, and their costs.

FACTS mines itemsets, so every feature must take few values. Numeric features of the synthetic
worlds are cut into quantile bins. On a mixed-type population (a snapshot with a feature schema)
categorical and ordinal features keep their own categories (no re-binning), integer features with
few distinct values keep their values, and only the remaining numbers are binned. Each column
comes with a lookup from its labels back to code-space values (a bin becomes its median), so the
decision model can score counterfactual rows, and with cost weights that make FACTS price a move
like :class:`~recoursesim.features.CostModel`: a switch of category costs 1, a step along an
order of ``m`` levels (or ``m`` bins) costs ``1/(m-1)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.binning import quantile_bins
from recoursesim.auditors.facts.config import FactsConfig
from recoursesim.observers import PopulationSnapshot


@dataclass(frozen=True)
class PopulationView:
    """Discrete columns of a snapshot, ready for FACTS.

    Attributes:
        frame: One discrete column per feature (labels), one row per agent.
        lookups: Per feature, label -> code-space value used to score a counterfactual row.
        config: Feature types, orders, weights and feasibility for FACTS.
    """

    frame: pd.DataFrame
    lookups: dict[str, dict[Any, float]]
    config: FactsConfig


def population_view(
    snapshot: PopulationSnapshot, n_bins: int, action_defaults: Mapping[str, Any] | None = None
) -> PopulationView:
    """Build the FACTS view of ``snapshot`` (see the module docstring).

    Args:
        snapshot: The population.
        n_bins: Quantile bins for numeric features.
        action_defaults: The population's default action set: its ``immutable`` features stay
            fixed in FACTS's actions and its ``increase_only`` features may only rise (ordinal ones).
    """
    features = list(snapshot.feature_names)
    schema = snapshot.schema
    columns: dict[str, Any] = {}
    lookups: dict[str, dict[Any, float]] = {}
    orders: dict[str, list[Any]] = {}
    types: dict[str, str] = {}
    weights: dict[str, float] = {}
    for j, name in enumerate(features):
        values = np.asarray(snapshot.features[:, j], dtype=float)
        kind = None if schema is None else schema.kinds[j]
        if kind in ("categorical", "ordinal"):
            assert schema is not None
            categories = list(schema.features[j].categories)
            columns[name] = np.asarray(categories, dtype=object)[np.rint(values).astype(np.int64)]
            lookups[name] = {category: float(code) for code, category in enumerate(categories)}
            types[name] = kind
            if kind == "ordinal":
                orders[name] = categories
                weights[name] = 1.0 / max(len(categories) - 1, 1)
            continue
        distinct = np.unique(values)
        if kind == "integer" and distinct.size <= n_bins:
            labels: list[Any] = [int(v) for v in distinct]
            columns[name] = np.rint(values).astype(np.int64)
            lookups[name] = {label: float(label) for label in labels}
        else:
            binned, labels = quantile_bins(values, n_bins)
            columns[name] = binned.to_numpy()
            lookups[name] = {label: float(np.median(values[columns[name] == label])) for label in labels}
        orders[name] = labels
        types[name] = "ordinal"
        if schema is not None:  # the synthetic worlds keep FACTS's own unit step cost
            weights[name] = 1.0 / max(len(labels) - 1, 1)
    defaults = dict(action_defaults or {})
    immutable = [name for name in defaults.get("immutable", ()) if name in lookups]
    rising = [n for n in defaults.get("increase_only", ()) if n in lookups and types[n] == "ordinal"]
    config = FactsConfig(
        feature_types=types, weights=weights, immutable=immutable, increase_only=rising, ordinal_orders=orders
    )
    return PopulationView(pd.DataFrame(columns), lookups, config)
