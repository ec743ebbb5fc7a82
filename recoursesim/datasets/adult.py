"""UCI Adult (Census Income): predict whether income exceeds 50K a year."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from recoursesim.datasets._files import read_verified
from recoursesim.datasets.base import Dataset
from recoursesim.errors import ConfigError

COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)

#: Education levels, lowest first (their position + 1 is ``education-num``).
EDUCATION_ORDER: list[str] = [
    "Preschool",
    "1st-4th",
    "5th-6th",
    "7th-8th",
    "9th",
    "10th",
    "11th",
    "12th",
    "HS-grad",
    "Some-college",
    "Assoc-voc",
    "Assoc-acdm",
    "Bachelors",
    "Masters",
    "Prof-school",
    "Doctorate",
]

FEATURE_TYPES: dict[str, str] = {
    "age": "numerical",
    "workclass": "categorical",
    "fnlwgt": "numerical",
    "education": "ordinal",
    "education-num": "numerical",
    "marital-status": "categorical",
    "occupation": "categorical",
    "relationship": "categorical",
    "race": "categorical",
    "sex": "binary",
    "capital-gain": "numerical",
    "capital-loss": "numerical",
    "hours-per-week": "numerical",
    "native-country": "categorical",
}

CITATION = (
    "Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C5XW20 (CC BY 4.0)"
)

_FILES = {"train": ("adult.data",), "test": ("adult.test",), "all": ("adult.data", "adult.test")}


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(
        io.StringIO(read_verified(name).decode("ascii")),
        header=None,
        names=list(COLUMNS),
        skipinitialspace=True,
        comment="|",
        na_values=["?"],
        skip_blank_lines=True,
    )


def load_adult(split: str = "all") -> Dataset:
    """Load UCI Adult from the bundled files.

    Values are stripped of their leading space; missing values (``?``) stay as NaN (no row is
    dropped). The target ``income`` is 1 for ``>50K`` and 0 for ``<=50K`` (the test file's trailing
    ``.`` is removed).

    Args:
        split: ``"all"`` (train then test, 48,842 rows), ``"train"`` (``adult.data``, 32,561 rows)
            or ``"test"`` (``adult.test``, 16,281 rows).

    Returns:
        The :class:`Dataset`; protected candidates ``sex`` and ``race``.

    Raises:
        ConfigError: If ``split`` is unknown.
        DataError: If a bundled file fails its checksum.
    """
    if split not in _FILES:
        raise ConfigError("split", f"unknown Adult split {split!r}", f"use one of {sorted(_FILES)}")
    frame = pd.concat([_read(name) for name in _FILES[split]], ignore_index=True)
    income = frame["income"].astype(str).str.rstrip(".")
    frame["income"] = np.where(income == ">50K", 1, 0).astype(np.int64)
    whole = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")
    frame = frame.astype(dict.fromkeys(whole, np.int64))
    return Dataset(
        name="adult",
        frame=frame,
        target="income",
        feature_types=dict(FEATURE_TYPES),
        ordinal_orders={"education": list(EDUCATION_ORDER)},
        protected=("sex", "race"),
        citation=CITATION,
    )
