"""How FACTS prices and restricts actions: feature types, weights, immutables, monotone features."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from recoursesim.errors import ConfigError

#: Cost types: numerical (normalised difference), categorical (0/1), ordinal (position difference).
COST_TYPES: tuple[str, ...] = ("numerical", "categorical", "ordinal")


@dataclass(frozen=True)
class FactsConfig:
    """Per-data-set cost and feasibility configuration (the paper's Appendix A and Tables 2-3).

    The cost of changing feature ``f`` from ``v`` to ``v'`` is ``weights[f]`` times
    ``|norm(v) - norm(v')|`` (numerical, ``norm`` maps the observed range to [0, 1]),
    ``1[v != v']`` (categorical) or ``|pos(v) - pos(v')|`` (ordinal). An action's cost is the sum
    over the features it sets.

    Attributes:
        feature_types: Feature -> ``"numerical"``, ``"categorical"`` or ``"ordinal"``. Features
            not listed are treated as categorical.
        weights: Feature -> cost weight (default 1).
        immutable: Features no action may change (the protected attribute is always added).
        increase_only: Features no action may decrease (e.g. age, education): numerical,
            ordinal, or categorical with an order in ``ordinal_orders`` (the order then only
            restricts feasibility; the cost stays 0/1).
        ordinal_orders: Category order (lowest first) of ordinal (and ordered categorical)
            features; when missing, the sorted distinct values are used.
    """

    feature_types: Mapping[str, str] = field(default_factory=dict)
    weights: Mapping[str, float] = field(default_factory=dict)
    immutable: Sequence[str] = ()
    increase_only: Sequence[str] = ()
    ordinal_orders: Mapping[str, Sequence] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for feature, kind in self.feature_types.items():
            if kind not in COST_TYPES:
                raise ConfigError(
                    f"feature_types.{feature}", f"unknown type {kind!r}", f"use one of {list(COST_TYPES)}"
                )
        for feature, weight in self.weights.items():
            if not float(weight) >= 0:
                raise ConfigError(f"weights.{feature}", f"must be >= 0, got {weight}", "use a non-negative weight")
        for feature in self.increase_only:
            if self.kind(feature) == "categorical" and feature not in self.ordinal_orders:
                raise ConfigError(
                    f"increase_only.{feature}",
                    "is categorical without an order, so 'increase' has no meaning",
                    "declare it numerical or ordinal, give its order in ordinal_orders, or drop it from increase_only",
                )

    def kind(self, feature: str) -> str:
        """Return the cost type of ``feature``."""
        return self.feature_types.get(feature, "categorical")

    def weight(self, feature: str) -> float:
        """Return the cost weight of ``feature``."""
        return float(self.weights.get(feature, 1.0))

    def check_columns(self, frame: pd.DataFrame) -> None:
        """Raise if the configuration names a column ``frame`` lacks."""
        names = set(self.feature_types) | set(self.weights) | set(self.immutable) | set(self.increase_only)
        missing = sorted(names - set(frame.columns))
        if missing:
            raise ConfigError(
                "config", f"names columns the data lacks: {missing}", "remove them or pass the matching data"
            )
