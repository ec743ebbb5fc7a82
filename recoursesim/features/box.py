"""The numeric box of an action set: which features may change, in which direction, within which bounds.

:class:`~recoursesim.features.MixedActionSet` adds the constraints of integer, ordinal and categorical
features on top of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from recoursesim._validate import check_vector
from recoursesim.errors import ConfigError

_KEYS = ("lower", "upper", "immutable", "increase_only", "decrease_only")


class ActionSet:
    """Actionability constraints for recommendations.

    Args:
        feature_names: Names of the features, in column order.
        lower: Per-feature lower bounds (default ``-inf``).
        upper: Per-feature upper bounds (default ``+inf``).
        immutable: Features that can never change.
        increase_only: Features that can only go up (age, education).
        decrease_only: Features that can only go down.
    """

    def __init__(
        self,
        feature_names: Sequence[str],
        lower: Sequence[float] | None = None,
        upper: Sequence[float] | None = None,
        immutable: Sequence[str] = (),
        increase_only: Sequence[str] = (),
        decrease_only: Sequence[str] = (),
    ) -> None:
        self.feature_names = tuple(feature_names)
        d = len(self.feature_names)
        self.lower = np.full(d, -np.inf) if lower is None else _bounds("lower", lower, d)
        self.upper = np.full(d, np.inf) if upper is None else _bounds("upper", upper, d)
        bad = np.flatnonzero(self.lower > self.upper)
        if bad.size:
            name = self.feature_names[bad[0]]
            raise ConfigError("upper", f"is below lower for feature {name!r}", "make every upper >= lower")
        self.immutable = self._mask("immutable", immutable)
        self.increase_only = self._mask("increase_only", increase_only)
        self.decrease_only = self._mask("decrease_only", decrease_only)
        both = self.increase_only & self.decrease_only
        if both.any():
            name = self.feature_names[int(np.flatnonzero(both)[0])]
            raise ConfigError("increase_only", f"{name!r} is also decrease_only", "list it as immutable instead")

    @classmethod
    def from_spec(cls, feature_names: Sequence[str], spec: Mapping[str, Any] | None) -> ActionSet:
        """Build from a scenario table (keys ``lower``, ``upper``, ``immutable``, ...)."""
        spec = dict(spec or {})
        unknown = sorted(set(spec) - set(_KEYS))
        if unknown:
            raise ConfigError(unknown[0], "unknown action-set key", f"use {', '.join(_KEYS)}")
        return cls(feature_names, **spec)

    def _mask(self, field: str, names: Sequence[str]) -> np.ndarray:
        if isinstance(names, str) or not isinstance(names, Sequence):
            raise ConfigError(field, "must be a list of feature names", f'write {field} = ["x0"]')
        mask = np.zeros(len(self.feature_names), dtype=bool)
        for name in names:
            if name not in self.feature_names:
                raise ConfigError(field, f"unknown feature {name!r}", f"use one of {', '.join(self.feature_names)}")
            mask[self.feature_names.index(name)] = True
        return mask

    def box(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-agent bounds ``(lo, hi)`` for a recommendation from ``features``.

        Immutable features are pinned at their current value; increase-only features cannot go
        below it and decrease-only features cannot go above it.
        """
        lo, hi = np.empty(features.shape), np.empty(features.shape)
        lo[:], hi[:] = self.lower, self.upper
        frozen = self.immutable | self.increase_only
        if frozen.any():  # (an action set without such features skips the empty assignments)
            lo[:, frozen] = np.maximum(lo[:, frozen], features[:, frozen])
        frozen = self.immutable | self.decrease_only
        if frozen.any():
            hi[:, frozen] = np.minimum(hi[:, frozen], features[:, frozen])
        if self.immutable.any():
            lo[:, self.immutable] = features[:, self.immutable]
            hi[:, self.immutable] = features[:, self.immutable]
        return lo, hi


def _bounds(field: str, value: object, d: int) -> np.ndarray:
    if value is None:
        return np.full(d, -np.inf if field == "lower" else np.inf)
    array = check_vector(field, value, length=d)
    return array
