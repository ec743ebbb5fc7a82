"""What a move across mixed-type features costs."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from recoursesim._validate import check_float
from recoursesim.errors import ConfigError
from recoursesim.features.schema import FeatureSchema


class CostModel:
    """Per-feature cost of a move in code space, summed over features.

    For a move ``Δ = x' - x`` the cost is ``Σ_j w_j c_j(Δ_j)`` with

    - numeric and integer: ``|Δ_j| / range_j`` (the observed range; a full-range move costs 1);
    - ordinal: ``|Δ_j| / (m_j - 1)`` (each step up or down the order costs ``1/(m_j - 1)``, so
      the whole order costs 1);
    - categorical: ``1`` for any switch (``Δ_j != 0``), ``0`` otherwise.

    This is the cost model of the FACTS auditor (range-normalised numbers, ordinal steps,
    categorical switches) with the ordinal steps scaled to the same unit range as numbers;
    :meth:`facts_weights` gives the FACTS weights that price moves identically.

    Args:
        schema: The feature schema.
        weights: Feature -> positive multiplier (default 1 for every feature). A weight of 0 is
            refused: free moves give efforts of 0 and an undefined (NaN) rETR.
    """

    def __init__(self, schema: FeatureSchema, weights: Mapping[str, float] | None = None) -> None:
        self.schema = schema
        self.weights = np.ones(len(schema), dtype=float)
        if weights is not None and not isinstance(weights, Mapping):
            raise ConfigError("weights", "must be a table of feature = weight", "write weights = { age = 2.0 }")
        for name, value in dict(weights or {}).items():
            field = f"weights.{name}"
            weight = check_float(field, value, minimum=0.0)
            if weight == 0.0:
                raise ConfigError(
                    field,
                    "is 0: moves of that feature would cost nothing, efforts of 0 would make rETR undefined (NaN)",
                    f"give a weight > 0, or list {name!r} in action_set.immutable to forbid changing it",
                )
            self.weights[schema.index(name, field)] = weight
        unit = np.ones(len(schema), dtype=float)
        numeric = schema.is_numeric | schema.is_integer
        unit[numeric] = 1.0 / schema.span[numeric]
        steps = np.maximum(schema.n_categories - 1, 1).astype(float)
        unit[schema.is_ordinal] = 1.0 / steps[schema.is_ordinal]
        #: ``(d,)`` cost of one code-space unit of change (weights included) on the linear features;
        #: on categorical features, the cost of one switch.
        self.unit_cost = self.weights * unit
        self._switch = schema.is_categorical.copy()

    def per_feature(self, moves: np.ndarray) -> np.ndarray:
        """Return the ``(n, d)`` float64 cost of each feature's part of each move."""
        moves = np.asarray(moves, dtype=np.float64)
        magnitude = np.abs(moves)
        if self._switch.any():
            magnitude[:, self._switch] = (magnitude[:, self._switch] > 0).astype(np.float64)
        return magnitude * self.unit_cost

    def cost(self, moves: np.ndarray) -> np.ndarray:
        """Return the float64 cost of each row of ``moves`` (``x' - x`` in code space)."""
        return self.per_feature(moves).sum(axis=1)

    def facts_weights(self) -> dict[str, float]:
        """FACTS weights giving the same prices, for features audited with their schema kinds.

        FACTS normalises numbers by the audited data's own range and charges ordinal changes per
        step; these weights rescale the ordinal steps by ``1/(m-1)``. Numeric prices agree when
        the audited data spans the schema's range.
        """
        out = {}
        for j, name in enumerate(self.schema.names):
            out[name] = float(self.unit_cost[j] if self.schema.is_ordinal[j] else self.weights[j])
        return out
