"""Mixed-type features: the schema of a tabular population, its action set and its cost model.

Agents' features live in a float ``(n, d)`` "code space" array: numeric and integer values as
they are, ordinal values as their rank, categorical values as their category index.
:class:`FeatureSchema` converts between that array and a DataFrame in the data set's own values,
:class:`MixedActionSet` says which moves are legal, and :class:`CostModel` prices them.
"""

from recoursesim.features.actions import MixedActionSet
from recoursesim.features.cost import CostModel
from recoursesim.features.defaults import DEFAULT_ACTIONS, DEFAULT_COLUMNS
from recoursesim.features.schema import KINDS, Feature, FeatureSchema

__all__ = [
    "DEFAULT_ACTIONS",
    "DEFAULT_COLUMNS",
    "KINDS",
    "CostModel",
    "Feature",
    "FeatureSchema",
    "MixedActionSet",
]
