"""Which moves an agent may make: the action set, over features of every type (all-numeric included)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from recoursesim._validate import check_vector
from recoursesim.errors import ConfigError
from recoursesim.features.schema import FeatureSchema

_KEYS = ("immutable", "increase_only", "decrease_only", "lower", "upper", "allowed_categories")
_LISTS = ("immutable", "increase_only", "decrease_only")
_TABLES = ("lower", "upper", "allowed_categories")


def merge_action_specs(defaults: Mapping[str, Any] | None, explicit: Mapping[str, Any] | None) -> dict[str, Any]:
    """Lay an explicit action-set table over a data set's defaults.

    Constraints add up: a feature immutable by default stays immutable whatever the explicit table
    says (age never moves because a scenario bounded income), and the lists are joined. Where the
    two disagree on a direction, the explicit table wins (a feature it calls ``decrease_only`` is
    no longer increase-only by default). ``lower``, ``upper`` and ``allowed_categories`` are merged
    feature by feature, the explicit entry winning. Keys are checked later, by
    :meth:`MixedActionSet.from_spec`; a value that is not a list or table is passed on unchanged so
    that check names it.

    Args:
        defaults: The data set's default action set (``None``: none).
        explicit: The scenario's or caller's ``action_set`` table (``None``: none).

    Returns:
        The merged table.
    """
    base = dict(defaults or {})
    given = dict(explicit or {})
    merged: dict[str, Any] = {**base, **given}
    if not base:
        return merged
    lists = {key: _names(base.get(key)) + _names(given.get(key)) for key in _LISTS}
    for key in _LISTS:
        if key in given and not isinstance(given[key], list | tuple):
            lists[key] = given[key]  # not a list: left for from_spec to refuse, naming the key
    if isinstance(lists["immutable"], list):
        _drop_overruled_directions(lists, given)
    for key, value in lists.items():
        if key in base or key in given:
            merged[key] = list(dict.fromkeys(value)) if isinstance(value, list) else value
    for key in _TABLES:
        if isinstance(base.get(key), Mapping) and isinstance(given.get(key), Mapping):
            merged[key] = {**base[key], **given[key]}
    return merged


def _drop_overruled_directions(lists: dict[str, Any], given: Mapping[str, Any]) -> None:
    """Remove from the direction lists the immutable features and those the explicit table turns the other way."""
    frozen = set(lists["immutable"])
    for key, other in (("increase_only", "decrease_only"), ("decrease_only", "increase_only")):
        if isinstance(lists[key], list):
            chosen = set(_names(given.get(other)))
            lists[key] = [
                n for n in lists[key] if n not in frozen and not (n in chosen and n not in _names(given.get(key)))
            ]


def _names(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


#: Tolerance for "unchanged", "within bounds" and "integral" in code space.
TOLERANCE = 1e-9


class MixedActionSet:
    """Actionability constraints on a :class:`FeatureSchema`, in code space: the one action-set type.

    A box bounds every move (immutable features pinned, increase-only / decrease-only features
    bounded by the current value, global bounds); integer and ordinal features must stay whole
    numbers and a categorical feature may change only to one of its allowed categories. All-numeric
    features without ranges (the synthetic worlds) are the special case :meth:`numeric`.

    Args:
        schema: The feature schema.
        immutable: Features that never change.
        increase_only: Features that can only go up (numeric, integer or ordinal).
        decrease_only: Features that can only go down (numeric, integer or ordinal).
        lower: Feature -> lowest value a move may reach (a category for an ordinal feature),
            or a list of one code-space value per feature; default the schema's minimum.
        upper: Feature -> highest value a move may reach, or one value per feature; default the
            schema's maximum.
        allowed_categories: Categorical (or ordinal) feature -> the categories an agent may
            change to (an empty list: no change at all). Unlisted features may change to any
            category. Staying put is always allowed.
    """

    def __init__(
        self,
        schema: FeatureSchema,
        immutable: Sequence[str] = (),
        increase_only: Sequence[str] = (),
        decrease_only: Sequence[str] = (),
        lower: Mapping[str, Any] | None = None,
        upper: Mapping[str, Any] | None = None,
        allowed_categories: Mapping[str, Sequence[Any]] | None = None,
    ) -> None:
        self.schema = schema
        #: Global lower and upper bounds in code space.
        self.lower = self._bounds("lower", lower, schema.lower)
        self.upper = self._bounds("upper", upper, schema.upper)
        bad = np.flatnonzero(self.lower > self.upper)
        if bad.size:
            name = schema.names[bad[0]]
            raise ConfigError("upper", f"is below lower for feature {name!r}", "make every upper >= lower")
        #: Boolean masks of the immutable, increase-only and decrease-only features.
        self.immutable = self._mask("immutable", immutable)
        self.increase_only = self._mask("increase_only", increase_only)
        self.decrease_only = self._mask("decrease_only", decrease_only)
        both = self.increase_only & self.decrease_only
        if both.any():
            name = schema.names[int(np.flatnonzero(both)[0])]
            raise ConfigError("increase_only", f"{name!r} is also decrease_only", "list it as immutable instead")
        for field, mask in (("increase_only", self.increase_only), ("decrease_only", self.decrease_only)):
            bad = mask & schema.is_categorical
            if bad.any():
                name = schema.names[int(np.flatnonzero(bad)[0])]
                raise ConfigError(
                    field,
                    f"{name!r} is categorical, so it has no direction",
                    "declare it ordinal with an order, or drop it from the list",
                )
        #: Per feature, the codes an agent may change to (all True for numeric/integer features).
        self.allowed: list[np.ndarray] = [np.ones(max(int(m), 1), dtype=bool) for m in schema.n_categories]
        for name, categories in dict(allowed_categories or {}).items():
            field = f"allowed_categories.{name}"
            j = schema.index(name, field)
            feature = schema.features[j]
            if feature.kind not in ("categorical", "ordinal"):
                raise ConfigError(field, f"{name!r} is {feature.kind}, not categorical", "use lower/upper for it")
            if isinstance(categories, str) or not isinstance(categories, Sequence):
                raise ConfigError(field, "must be a list of categories", f'write {name} = ["{feature.categories[0]}"]')
            mask = np.zeros(len(feature.categories), dtype=bool)
            for category in categories:
                if category not in feature.categories:
                    listed = ", ".join(repr(c) for c in feature.categories)
                    raise ConfigError(field, f"{category!r} is not a category of {name!r}", f"use some of {listed}")
                mask[feature.categories.index(category)] = True
            self.allowed[j] = mask
        #: The categorical and ordinal features (the columns of :meth:`categories_allowed`).
        self.category_columns = np.flatnonzero(schema.is_ordinal | schema.is_categorical)
        self._category_sizes, self._category_table = self._allowed_table()

    def _allowed_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Per categorical/ordinal feature, its number of codes and its allowed codes (a padded table)."""
        sizes = np.array([self.allowed[j].size for j in self.category_columns], dtype=np.int64)
        table = np.zeros((sizes.size, int(sizes.max(initial=1))), dtype=bool)
        for c, j in enumerate(self.category_columns):
            table[c, : sizes[c]] = self.allowed[j]
        return sizes, table

    @classmethod
    def from_spec(cls, schema: FeatureSchema, spec: Mapping[str, Any] | None) -> MixedActionSet:
        """Build from a scenario table; errors name the offending key.

        The keys are ``immutable``, ``increase_only``, ``decrease_only``, ``lower``, ``upper`` and
        ``allowed_categories``.
        """
        spec = dict(spec or {})
        unknown = sorted(set(spec) - set(_KEYS))
        if unknown:
            raise ConfigError(unknown[0], "unknown action-set key", f"use {', '.join(_KEYS)}")
        return cls(schema, **spec)

    @classmethod
    def numeric(cls, feature_names: Sequence[str], spec: Mapping[str, Any] | None) -> MixedActionSet:
        """The action set of all-numeric features without ranges: only ``spec``'s bounds bound a move.

        ``lower`` and ``upper`` may be lists with one value per feature (``lower = [0.0, 0.0]``),
        as the synthetic scenarios write them.
        """
        d = len(feature_names)
        return cls.from_spec(FeatureSchema.numeric(feature_names, [-np.inf] * d, [np.inf] * d), spec)

    def _bounds(self, field: str, given: object, default: np.ndarray) -> np.ndarray:
        out = default.astype(float).copy()
        if given is None:
            return out
        if isinstance(given, list | tuple | np.ndarray):
            return check_vector(field, given, length=len(self.schema.names))
        if not isinstance(given, Mapping):
            raise ConfigError(
                field,
                "must be a table of feature = value, or a list of one value per feature",
                f"write {field} = {{ age = 18 }}",
            )
        for name, value in given.items():
            where = f"{field}.{name}"
            j = self.schema.index(name, where)
            feature = self.schema.features[j]
            if feature.kind == "categorical":
                raise ConfigError(where, f"{name!r} is categorical and has no order", "use allowed_categories")
            if feature.kind == "ordinal":
                if value not in feature.categories:
                    listed = ", ".join(repr(c) for c in feature.categories)
                    raise ConfigError(where, f"{value!r} is not a category of {name!r}", f"use one of {listed}")
                out[j] = float(feature.categories.index(value))
            elif isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
                raise ConfigError(where, f"must be a number, got {value!r}", f"write {where} = 0")
            else:
                out[j] = float(value)
        return out

    def _mask(self, field: str, names: object) -> np.ndarray:
        if isinstance(names, str) or not isinstance(names, Sequence):
            raise ConfigError(field, "must be a list of feature names", f'write {field} = ["x0"]')
        mask = np.zeros(len(self.schema.names), dtype=bool)
        for name in names:
            mask[self.schema.index(name, field)] = True
        return mask

    # ------------------------------------------------------------------ the constraints

    def box(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-agent bounds ``(lo, hi)`` for a move from ``features``, in code space.

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

    def categories_allowed(self, features: np.ndarray, moved: np.ndarray) -> np.ndarray:
        """Whether each row's change of each categorical/ordinal feature is to an allowed category.

        Column ``c`` of the result is feature ``category_columns[c]``. Unchanged values are always
        allowed; codes outside ``0 … m-1`` never are.
        """
        columns = self.category_columns
        codes_to = moved[:, columns]
        codes = np.rint(codes_to)
        inside = (codes >= 0) & (codes < self._category_sizes)
        ok = self._category_table[np.arange(columns.size), np.where(inside, codes, 0).astype(np.int64)] & inside
        return ok | (np.abs(codes_to - features[:, columns]) <= TOLERANCE)

    def is_valid(self, features: np.ndarray, moved: np.ndarray) -> np.ndarray:
        """Whether each row's move from ``features`` to ``moved`` is legal: ``(n,)`` booleans.

        A feature that did not change is always legal; a changed feature must lie in the agent's
        box (immutables pinned, monotone features monotone, bounds held), be a whole number if
        integer, ordinal or categorical, and a categorical/ordinal change must go to an allowed
        category. A NaN anywhere in ``moved`` makes the row invalid.
        """
        features = np.asarray(features, dtype=float)
        moved = np.asarray(moved, dtype=float)
        lo, hi = self.box(features)
        same = np.abs(moved - features) <= TOLERANCE
        ok = (moved >= lo - TOLERANCE) & (moved <= hi + TOLERANCE)
        discrete = self.schema.is_discrete
        ok[:, discrete] &= np.abs(moved[:, discrete] - np.rint(moved[:, discrete])) <= TOLERANCE
        ok[:, self.category_columns] &= self.categories_allowed(features, moved)
        return np.all(ok | same, axis=1) & np.all(np.isfinite(moved), axis=1)

    def legalise(
        self, features: np.ndarray, candidate: np.ndarray, box: tuple[np.ndarray, np.ndarray] | None = None
    ) -> np.ndarray:
        """Snap each candidate row to the nearest legal move from ``features``.

        Numeric features are clipped to the agent's box; integer and ordinal features are rounded
        to the nearest whole number inside the box (no whole number inside: unchanged); a
        categorical/ordinal change to a category that is not allowed, and any NaN, is undone.

        Args:
            features: ``(n, d)`` where the agents start.
            candidate: ``(n, d)`` where they would move.
            box: :meth:`box` of ``features``, when the caller has it already.

        Returns:
            A new ``(n, d)`` array; every row passes :meth:`is_valid`.
        """
        features = np.asarray(features, dtype=float)
        out = np.asarray(candidate, dtype=float).copy()
        missing = ~np.isfinite(out)
        out[missing] = features[missing]
        lo, hi = self.box(features) if box is None else box
        out = np.clip(out, lo, hi)
        discrete = self.schema.is_discrete
        if discrete.any():
            lo_int = np.ceil(lo[:, discrete] - TOLERANCE)
            hi_int = np.floor(hi[:, discrete] + TOLERANCE)
            snapped = np.clip(np.rint(out[:, discrete]), lo_int, hi_int)
            empty = lo_int > hi_int
            out[:, discrete] = np.where(empty, features[:, discrete], snapped)
        allowed = self.categories_allowed(features, out)
        for c in np.flatnonzero(~allowed.all(axis=0)):
            j, ok = int(self.category_columns[c]), allowed[:, c]
            if self.schema.is_ordinal[j]:
                out[~ok, j] = self._nearest_allowed_rank(features[~ok, j], out[~ok, j], lo[~ok, j], hi[~ok, j], int(j))
            else:
                out[~ok, j] = features[~ok, j]
        # A feature the agent started outside its box on stays where it was unless it moved legally.
        stuck = ~((out >= lo - TOLERANCE) & (out <= hi + TOLERANCE))
        out[stuck] = features[stuck]
        return out

    def _nearest_allowed_rank(
        self, start: np.ndarray, target: np.ndarray, lo: np.ndarray, hi: np.ndarray, j: int
    ) -> np.ndarray:
        """Nearest allowed rank to ``target`` inside ``[lo, hi]`` (ties: the one nearer ``start``)."""
        ranks = np.flatnonzero(self.allowed[j]).astype(float)
        usable = (ranks[None, :] >= lo[:, None] - TOLERANCE) & (ranks[None, :] <= hi[:, None] + TOLERANCE)
        distance = np.abs(ranks[None, :] - target[:, None]) + 1e-6 * np.abs(ranks[None, :] - start[:, None])
        distance = np.where(usable, distance, np.inf)
        if ranks.size == 0:
            return start.copy()
        best = np.argmin(distance, axis=1)
        found = np.isfinite(distance[np.arange(best.size), best])
        return np.where(found, ranks[best], start)
