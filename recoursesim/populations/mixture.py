"""Generic population: per-group shares, mixture-of-normals features, folded-normal effort."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import numpy as np

from recoursesim._validate import check_float, check_list, check_vector
from recoursesim.component import Component
from recoursesim.errors import ConfigError
from recoursesim.populations.base import Cohort, FoldedNormal, allocate
from recoursesim.registry import register


@dataclass(frozen=True)
class NormalMixture:
    """A one-dimensional mixture of normals.

    Args:
        weights: Component weights (non-negative, summing to 1).
        means: Component means.
        sds: Component standard deviations (non-negative).
    """

    weights: np.ndarray
    means: np.ndarray
    sds: np.ndarray

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> NormalMixture:
        """Build from a scenario table ``{means = [...], sds = [...], weights = [...]}``."""
        unknown = set(spec) - {"weights", "means", "sds"}
        if unknown:
            key = sorted(unknown)[0]
            raise ConfigError(key, "unknown key in a feature distribution", "use weights, means and sds")
        if "means" not in spec:
            raise ConfigError("means", "is required", "give the component means, e.g. means = [0.0]")
        means = check_vector("means", spec["means"])
        if means.size == 0:
            raise ConfigError("means", "is empty", "give at least one component mean")
        sds = check_vector("sds", spec.get("sds", [1.0] * means.size), length=means.size)
        if np.any(sds < 0):
            raise ConfigError("sds", "must be non-negative", "use standard deviations >= 0")
        weights = check_vector("weights", spec.get("weights", [1.0 / means.size] * means.size), length=means.size)
        if np.any(weights < 0) or not np.isclose(weights.sum(), 1.0, atol=1e-9):
            raise ConfigError("weights", f"must be >= 0 and sum to 1 (sum {weights.sum():g})", "rescale the weights")
        return cls(weights=weights, means=means, sds=sds)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``n`` values (components chosen at random with the mixture weights)."""
        if self.means.size == 1:
            return rng.normal(self.means[0], self.sds[0], size=n)
        component = rng.choice(self.means.size, size=n, p=self.weights)
        return rng.normal(self.means[component], self.sds[component])


@dataclass(frozen=True)
class GroupSpec:
    """One group of a :class:`MixturePopulation`."""

    name: str
    share: float
    qualification: tuple[NormalMixture, ...]
    effort: FoldedNormal


@register("population", "mixture")
class MixturePopulation(Component):
    """Groups with a share, mixture-of-normals features, and a folded-normal effort capacity.

    Each group's agents draw every feature independently from that group's mixture of normals
    and an effort capacity from that group's folded normal ``scale * |N(mean, sd)|``. A cohort of
    ``n`` agents is split across groups by largest-remainder rounding of the shares, so group
    sizes are exact, not random.

    Args:
        groups: One table per group: ``name``, ``share``, ``qualification`` (a list with one
            ``{means, sds, weights}`` table per feature) and ``effort`` (``{mean, sd, scale}``).
        features: Feature names (default ``x0, x1, ...``).
    """

    #: Parameters the conformance checks build it with.
    check_params: ClassVar[dict[str, Any]] = {
        "groups": [
            {"name": "a", "share": 0.5, "qualification": [{"means": [0.0]}, {"means": [1.0]}]},
            {"name": "b", "share": 0.5, "qualification": [{"means": [0.5]}, {"means": [1.0]}]},
        ]
    }

    def __init__(self, groups: Sequence[Mapping[str, Any]], features: Sequence[str] | None = None) -> None:
        self.groups = groups
        self.features = features
        self._groups = _parse_groups(groups)
        n_features = len(self._groups[0].qualification)
        names = check_list("features", features) if features is not None else [f"x{j}" for j in range(n_features)]
        if len(names) != n_features or len(set(names)) != len(names):
            example = ", ".join(f'"{name}"' for name in [f"x{j}" for j in range(n_features)])
            got = f"got {len(names)}" + (" with a repeated name" if len(set(names)) != len(names) else "")
            raise ConfigError(
                "features",
                f"must be {n_features} distinct names, one per qualification entry ({got})",
                f"write features = [{example}] with your own names, or remove features",
            )
        self.feature_names = tuple(str(name) for name in names)
        self.group_names = tuple(group.name for group in self._groups)
        self._shares = np.array([group.share for group in self._groups])

    def fit(self, rng: np.random.Generator) -> Self:
        """Nothing to learn; returns ``self``."""
        return self

    def sample(self, n: int, rng: np.random.Generator) -> Cohort:
        """Draw ``n`` agents, group blocks in the order the groups are listed."""
        counts = allocate(n, self._shares)
        features, groups, efforts = [], [], []
        for code, (group, count) in enumerate(zip(self._groups, counts, strict=True)):
            columns = [mixture.sample(int(count), rng) for mixture in group.qualification]
            features.append(np.column_stack(columns) if columns else np.empty((count, 0)))
            groups.append(np.full(count, code, dtype=np.int16))
            efforts.append(group.effort.sample(int(count), rng))
        return Cohort(np.concatenate(features), np.concatenate(groups), np.concatenate(efforts))


def _parse_groups(groups: object) -> tuple[GroupSpec, ...]:
    if not isinstance(groups, Sequence) or isinstance(groups, str) or len(groups) == 0:
        raise ConfigError("groups", "must list at least one group", "add [[population.groups]] tables")
    parsed: list[GroupSpec] = []
    for index, spec in enumerate(groups):
        parsed.append(_parse_group(f"groups[{index}]", spec, len(parsed[0].qualification) if parsed else None))
    names = [group.name for group in parsed]
    if len(set(names)) != len(names):
        raise ConfigError("groups", "group names must be distinct", "rename the duplicate group")
    total = sum(group.share for group in parsed)
    if abs(total - 1.0) > 1e-9:
        raise ConfigError("groups", f"shares sum to {total:g}, not 1", "rescale the groups' shares to sum to 1")
    return tuple(parsed)


def _parse_group(field: str, spec: object, n_features: int | None) -> GroupSpec:
    """One ``[[population.groups]]`` table; ``n_features`` is the first group's count (``None`` for it)."""
    if not isinstance(spec, Mapping) or not spec:
        raise ConfigError(field, "is empty", "give the group a name, share, qualification and effort")
    unknown = set(spec) - {"name", "share", "qualification", "effort"}
    if unknown:
        raise ConfigError(f"{field}.{sorted(unknown)[0]}", "unknown key", "use name, share, qualification, effort")
    for key in ("name", "share", "qualification"):
        if key not in spec:
            raise ConfigError(f"{field}.{key}", "is required", f"add {key} to the group")
    share = check_float(f"{field}.share", spec["share"], minimum=0.0, maximum=1.0)
    if share == 0:
        raise ConfigError(
            f"{field}.share", "is 0, so the group would be empty", "give it a positive share or remove it"
        )
    mixtures = _parse_qualification(f"{field}.qualification", spec["qualification"])
    if n_features is not None and len(mixtures) != n_features:
        raise ConfigError(
            f"{field}.qualification",
            f"has {len(mixtures)} features, group 0 has {n_features}",
            "give every group the same features",
        )
    effort = FoldedNormal.from_spec(f"{field}.effort", spec.get("effort", {}))
    name = spec["name"]
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{field}.name", "must be a non-empty string", "name the group")
    return GroupSpec(name, share, mixtures, effort)


def _parse_qualification(field: str, qualification: object) -> tuple[NormalMixture, ...]:
    if not isinstance(qualification, Sequence) or isinstance(qualification, str) or not qualification:
        raise ConfigError(field, "must list one distribution per feature", "add one table per feature")
    mixtures = []
    for j, feature in enumerate(qualification):
        if not isinstance(feature, Mapping):
            raise ConfigError(f"{field}[{j}]", "must be a table", "write { means = [...], sds = [...] }")
        try:
            mixtures.append(NormalMixture.from_spec(feature))
        except ConfigError as error:
            raise error.under(f"{field}[{j}]") from None
    return tuple(mixtures)
