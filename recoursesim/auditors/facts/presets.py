"""The paper's per-data-set setup (Appendix B): preprocessing, feature types and cost weights."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.binning import discretise
from recoursesim.auditors.facts.config import FactsConfig
from recoursesim.datasets import Dataset, load_adult, load_compas, load_german
from recoursesim.datasets.user import favourable_labels, require_complete
from recoursesim.errors import ConfigError, DataError


@dataclass(frozen=True)
class FactsData:
    """A data set prepared for FACTS: discrete features, a binary target and a cost configuration.

    Attributes:
        name: Data set name.
        frame: Features and target, ready for mining (continuous features binned).
        target: The binary target column (1 = favourable).
        config: Cost and feasibility configuration.
        protected: Candidate protected attributes.
    """

    name: str
    frame: pd.DataFrame
    target: str
    config: FactsConfig
    protected: tuple[str, ...]

    @property
    def features(self) -> list[str]:
        """Return the feature columns."""
        return [column for column in self.frame.columns if column != self.target]


#: Adult hours-per-week bins (the paper's labels; the edges are ours, the paper gives none).
HOURS_EDGES: tuple[float, ...] = (0, 25, 39, 40, 60, np.inf)
HOURS_LABELS: list[str] = ["PartTime", "MidTime", "FullTime", "OverTime", "BrainDrain"]

#: Table 2 of the paper: cost weights for Adult.
ADULT_WEIGHTS: dict[str, float] = {
    "native-country": 4,
    "marital-status": 5,
    "relationship": 5,
    "age": 10,
    "occupation": 4,
    "workclass": 2,
    "hours-per-week": 2,
    "capital-gain": 1,
    "capital-loss": 1,
    "education-num": 3,
}

#: Table 3 of the paper: cost weights for COMPAS.
COMPAS_WEIGHTS: dict[str, float] = {
    "age_cat": 10,
    "juv_fel_count": 1,
    "juv_misd_count": 1,
    "juv_other_count": 1,
    "priors_count": 1,
    "c_charge_degree": 1,
}

#: COMPAS priors_count bins of Appendix B.2 (the last bin is open-ended here).
PRIORS_EDGES: tuple[float, ...] = (-0.1, 1, 5, 10, 15, np.inf)
PRIORS_LABELS: list[str] = ["[0, 1)", "[1, 5)", "[5, 10)", "[10, 15)", "[15, inf)"]


def adult(data: Dataset | None = None) -> FactsData:
    """Adult as in Appendix B.1.

    Drops ``fnlwgt`` and ``education`` and every row with a missing value; cuts ``age`` into 5
    quantile bins and ``hours-per-week`` into 5 named bins; ``capital-gain``/``capital-loss`` are
    numerical, ``education-num``/``hours-per-week`` ordinal, the rest categorical; weights of
    Table 2. Feasibility (ours, per the issue): ``sex`` and ``race`` are immutable, ``age`` and
    ``education-num`` never decrease.

    Args:
        data: The loaded Adult data set (default: :func:`load_adult` ``("all")``).
    """
    data = load_adult() if data is None else data
    frame = data.frame.drop(columns=["fnlwgt", "education"]).dropna().reset_index(drop=True)
    frame, orders = discretise(frame, ["age"], n_bins=5)
    frame["hours-per-week"] = pd.cut(
        frame["hours-per-week"], bins=list(HOURS_EDGES), labels=HOURS_LABELS, right=True
    ).astype(object)
    orders["hours-per-week"] = list(HOURS_LABELS)
    orders["education-num"] = sorted(frame["education-num"].unique().tolist())
    types = {"capital-gain": "numerical", "capital-loss": "numerical"}
    config = FactsConfig(
        feature_types={**types, "education-num": "ordinal", "hours-per-week": "ordinal"},
        weights=ADULT_WEIGHTS,
        immutable=("sex", "race"),
        increase_only=("age", "education-num"),
        ordinal_orders=orders,
    )
    return FactsData("adult", frame, data.target, config, ("sex", "race"))


def compas(data: Dataset | None = None) -> FactsData:
    """COMPAS as in Appendix B.2.

    Keeps African-American and Caucasian defendants (the paper's two protected groups), drops
    ``age`` and ``c_charge_desc`` and rows with missing values, and bins ``priors_count`` into the
    paper's 5 bins; the juvenile counts are numerical, the rest categorical; weights of Table 3.
    ``race`` and ``sex`` are immutable and ``age_cat`` never decreases.

    Args:
        data: The loaded COMPAS data set (default: :func:`load_compas`).
    """
    data = load_compas() if data is None else data
    frame = data.frame.drop(columns=["age", "c_charge_desc"])
    frame = frame[frame["race"].isin(["African-American", "Caucasian"])].dropna().reset_index(drop=True)
    frame["priors_count"] = pd.cut(
        frame["priors_count"], bins=list(PRIORS_EDGES), labels=PRIORS_LABELS, right=False
    ).astype(object)
    config = FactsConfig(
        feature_types=dict.fromkeys(("juv_fel_count", "juv_misd_count", "juv_other_count"), "numerical"),
        weights=COMPAS_WEIGHTS,
        immutable=("race", "sex"),
        increase_only=("age_cat",),
        ordinal_orders={"age_cat": list(data.ordinal_orders["age_cat"]), "priors_count": PRIORS_LABELS},
    )
    return FactsData("compas", frame, data.target, config, ("race", "sex"))


def german(data: Dataset | None = None) -> FactsData:
    """German credit (not in the paper; our setup, unit weights).

    Bins ``age``, ``duration`` and ``credit_amount`` into 5 quantile bins (ordinal); the other
    numerical columns are small counts kept as ordinal values. ``sex``, ``marital_status`` and
    ``foreign_worker`` are immutable; ``age`` never decreases.

    Args:
        data: The loaded German credit data set (default: :func:`load_german`).
    """
    data = load_german() if data is None else data
    frame, orders = discretise(data.frame, ["age", "duration", "credit_amount"], n_bins=5)
    for column in ("telephone", "foreign_worker"):
        frame[column] = frame[column].map({True: "yes", False: "no"})
    types = {}
    for column, kind in data.feature_types.items():
        if kind in ("numerical", "ordinal"):
            types[column] = "ordinal"
            if column not in orders:
                orders[column] = data.ordinal_orders.get(column) or sorted(frame[column].unique().tolist())
    config = FactsConfig(
        feature_types=types,
        immutable=("sex", "marital_status", "foreign_worker"),
        increase_only=("age",),
        ordinal_orders=orders,
    )
    return FactsData("german", frame, data.target, config, ("sex", "age"))


def from_frame(
    frame: pd.DataFrame, target: str, n_bins: int = 5, max_levels: int = 10, favourable: object = None
) -> FactsData:
    """Prepare a user's table: numeric columns with more than ``max_levels`` values are binned.

    Binned columns become ordinal; numeric columns with few values stay ordinal on their values;
    every other column is categorical. Nothing is immutable except the protected attribute chosen
    at audit time.

    Args:
        frame: Features and a binary target column.
        target: The target column: two distinct values, 0/1 or false/true (1 and true are
            favourable) or any two values with ``favourable`` naming the favourable one.
        n_bins: Quantile bins per continuous column.
        max_levels: Numeric columns with at most this many distinct values are not binned.
        favourable: The favourable target value (needed unless the target is 0/1 or boolean).

    Raises:
        DataError: If the target is missing or not binary, or a column has a missing (NaN) or
            infinite value (the message names the column and the first such row).
    """
    if target not in frame:
        raise DataError("--target", f"column {target!r} is not in the data", f"use one of {list(frame.columns)}")
    _check_complete(frame)
    frame = frame.reset_index(drop=True)
    labels = favourable_labels(frame[target], favourable, field="--target", favourable_field="--favourable")
    frame = frame.copy()
    frame[target] = labels
    numeric = [
        column
        for column in frame.columns
        if column != target
        and pd.api.types.is_numeric_dtype(frame[column])
        and not pd.api.types.is_bool_dtype(frame[column])
    ]
    continuous = [column for column in numeric if frame[column].nunique() > max_levels]
    frame, orders = discretise(frame, continuous, n_bins=n_bins)
    for column in numeric:
        if column not in orders:
            orders[column] = sorted(frame[column].unique().tolist())
    types = dict.fromkeys(orders, "ordinal")
    return FactsData("csv", frame, target, FactsConfig(feature_types=types, ordinal_orders=orders), ())


def _check_complete(frame: pd.DataFrame) -> None:
    """Raise a one-line :class:`DataError` for the first column with a NaN, an infinite value or stray text.

    Stray text: a column of numbers with a few cells that are not numbers (``abc``) would become a
    categorical column with one category per value, and the audit would go on silently.
    """
    fix = "fill, replace or drop them before auditing (FACTS needs a value in every cell)"
    require_complete(frame, field="{column}", fix=fix)
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        numbers = pd.to_numeric(values, errors="coerce")
        text = numbers.isna().to_numpy()
        if 0 < text.sum() < len(values) / 2:  # mostly numbers: the text cells are mistakes, not categories
            row = int(np.argmax(text))
            raise DataError(
                str(column),
                f"is a column of numbers with {int(text.sum())} text cell(s), first {values.iloc[row]!r} in data "
                f"row {row + 1}",
                "correct or drop those rows (a categorical column has words in every cell)",
            )


PRESETS: dict[str, Callable[[], FactsData]] = {"adult": adult, "compas": compas, "german": german}


def preset(name: str) -> FactsData:
    """Return the FACTS preset of a bundled data set.

    Raises:
        ConfigError: If ``name`` is unknown.
    """
    if name not in PRESETS:
        raise ConfigError("--dataset", f"unknown data set {name!r}", f"use one of {sorted(PRESETS)}")
    return PRESETS[name]()
