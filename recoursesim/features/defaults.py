"""Default feature columns and action sets of the bundled data sets.

Each choice is explained in ``docs/real-data.md`` (section "Default action sets"). In short:
protected attributes and facts about the past are immutable, attributes that only grow with
time are increase-only, and the rest is actionable within the observed range.
"""

from __future__ import annotations

from typing import Any

from recoursesim.datasets.adult import COLUMNS as ADULT_COLUMNS

#: Feature columns a population uses by default (``None``: every feature of the data set).
DEFAULT_COLUMNS: dict[str, list[str] | None] = {
    "german": None,
    # fnlwgt is a census sampling weight, not a trait of the person; education-num duplicates
    # the ordinal education column; income is the outcome.
    "adult": [name for name in ADULT_COLUMNS if name not in ("fnlwgt", "education-num", "income")],
    # c_charge_desc has hundreds of free-text values; age_cat duplicates age.
    "compas": [
        "sex",
        "age",
        "race",
        "juv_fel_count",
        "juv_misd_count",
        "juv_other_count",
        "priors_count",
        "c_charge_degree",
    ],
}

#: Default action set per data set (the keys of :class:`~recoursesim.features.MixedActionSet`).
DEFAULT_ACTIONS: dict[str, dict[str, Any]] = {
    "german": {
        "immutable": [
            "sex",
            "marital_status",
            "age",
            "foreign_worker",
            "credit_history",
            "num_people_liable",
        ],
        "increase_only": ["present_residence", "present_employment"],
    },
    "adult": {
        "immutable": ["sex", "race", "age", "native-country", "marital-status", "relationship"],
        "increase_only": ["education"],
    },
    "compas": {
        "immutable": [
            "sex",
            "race",
            "age",
            "juv_fel_count",
            "juv_misd_count",
            "juv_other_count",
            "priors_count",
        ],
    },
}
