"""What a population can tell the components built on it: typed capabilities instead of attribute probes.

A population of mixed-type features states its :class:`~recoursesim.features.FeatureSchema`, may
carry its data set's default action set, and may hand out labelled training rows. Components ask
through these protocols (``isinstance(population, DescribedBySchema)``) rather than probing for
attribute names, so the capability has one name and one documented meaning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from recoursesim.features.schema import FeatureSchema


@runtime_checkable
class DescribedBySchema(Protocol):
    """Something whose features a :class:`~recoursesim.features.FeatureSchema` describes (``None``: not known)."""

    schema: FeatureSchema | None


@runtime_checkable
class OffersActionDefaults(Protocol):
    """A population whose data set comes with a default action set (an ``action_set`` table, or ``None``)."""

    default_action_set: Mapping[str, Any] | None


@runtime_checkable
class OffersTrainingData(Protocol):
    """A population that hands out labelled training rows in code space."""

    def training_data(self) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(features, labels)``: code-space rows and their 0/1 outcomes."""
        ...


@runtime_checkable
class OffersLabelledRows(Protocol):
    """A population whose data set has labels: every labelled row, in the agents' feature space."""

    def labelled_rows(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Return ``(features, labels)``: all labelled rows and their 0/1 outcomes (``None``: no labels)."""
        ...


@runtime_checkable
class NamesFavourableOutcome(Protocol):
    """A population whose data set names its target column and the value of it that counts as favourable."""

    target_: str
    favourable_: Any


def favourable_outcome_of(population: object) -> tuple[str | None, Any]:
    """The population's target column and favourable value, or ``(None, None)`` where it names none."""
    if isinstance(population, NamesFavourableOutcome):
        return population.target_, population.favourable_
    return None, None


@runtime_checkable
class OffersTestSplit(Protocol):
    """A population with held-out labelled rows that the step-0 model was not fitted on."""

    def test_split(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Return ``(features, labels)`` of the held-out rows (``None``: none held out)."""
        ...


@runtime_checkable
class NamesGroupColumn(Protocol):
    """A population drawn from a data set, whose groups are the values of one of its columns."""

    group: str


@runtime_checkable
class GivesRepayment(Protocol):
    """A population whose agents repay a loan with a probability that follows their current features."""

    def repay_probability(self, features: np.ndarray, group: np.ndarray) -> np.ndarray:
        """Return ``(n,)`` probabilities in [0, 1] that each agent repays a loan granted now."""
        ...


def repayment_of(population: object, features: np.ndarray, group: np.ndarray) -> np.ndarray | None:
    """Each agent's repayment probability, or ``None`` for a population that gives none."""
    if not isinstance(population, GivesRepayment):
        return None
    return np.asarray(population.repay_probability(features, group), dtype=float)


def group_column_of(population: object) -> str | None:
    """The data set column whose values are the population's groups, or ``None`` for a population without one."""
    group = population.group if isinstance(population, NamesGroupColumn) else None
    return group if isinstance(group, str) else None


def schema_of(population: object) -> FeatureSchema | None:
    """The population's feature schema, or ``None`` for a population that states none."""
    return population.schema if isinstance(population, DescribedBySchema) else None


def action_defaults_of(population: object) -> Mapping[str, Any] | None:
    """The population's default action set, or ``None`` for a population without one."""
    return population.default_action_set if isinstance(population, OffersActionDefaults) else None
