"""UCI Statlog German Credit: predict good or bad credit risk."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

from recoursesim.datasets._files import read_verified
from recoursesim.datasets.base import Dataset

#: The 20 attributes and the label, in file order (names follow ``values_maps.json``).
COLUMNS: tuple[str, ...] = (
    "status",
    "duration",
    "credit_history",
    "purpose",
    "credit_amount",
    "savings",
    "present_employment",
    "installment_rate",
    "status_sex",
    "other_debtors",
    "present_residence",
    "property",
    "age",
    "installment_plans",
    "housing",
    "existing_credits",
    "job",
    "num_people_liable",
    "telephone",
    "foreign_worker",
    "credit",
)

NUMERICAL: tuple[str, ...] = (
    "duration",
    "credit_amount",
    "installment_rate",
    "present_residence",
    "age",
    "existing_credits",
    "num_people_liable",
)

#: Personal-status codes split into sex and marital status.
_SEX = {"A91": "male", "A92": "female", "A93": "male", "A94": "male", "A95": "female"}
_MARITAL = {
    "A91": "divorced/separated",
    "A92": "divorced/separated/married",
    "A93": "single",
    "A94": "married/widowed",
    "A95": "single",
}

#: Ordered codes of the ordinal attributes (``unknown`` codes make savings/status categorical).
_ORDINAL_CODES = {"present_employment": ["A71", "A72", "A73", "A74", "A75"]}

CITATION = (
    "Hofmann, H. (1994). Statlog (German Credit Data) [Dataset]. UCI Machine Learning "
    "Repository. https://doi.org/10.24432/C5NC77 (CC BY 4.0)"
)


def load_german() -> Dataset:
    """Load UCI Statlog German Credit from the bundled files.

    The A-codes are decoded with ``values_maps.json``. The personal-status attribute is split into
    ``sex`` (``"male"``/``"female"``) and ``marital_status``; ``telephone`` and ``foreign_worker``
    are booleans. The target ``credit`` is 1 for good credit and 0 for bad.

    Returns:
        The :class:`Dataset` (1,000 rows); protected candidates ``sex`` and ``age``.

    Raises:
        DataError: If a bundled file fails its checksum.
    """
    maps = json.loads(read_verified("values_maps.json"))
    raw = pd.read_csv(
        io.StringIO(read_verified("german.data").decode("ascii")),
        sep=" ",
        header=None,
        names=list(COLUMNS),
        dtype=str,
    )
    frame = pd.DataFrame(index=raw.index)
    types: dict[str, str] = {}
    orders: dict[str, list] = {}
    for column in COLUMNS[:-1]:
        if column in NUMERICAL:
            frame[column] = raw[column].astype(np.int64)
            types[column] = "numerical"
        elif column == "status_sex":
            frame["sex"] = raw[column].map(_SEX)
            frame["marital_status"] = raw[column].map(_MARITAL)
            types["sex"] = "binary"
            types["marital_status"] = "categorical"
        elif column in ("telephone", "foreign_worker"):
            frame[column] = raw[column].map(maps[column]).astype(bool)
            types[column] = "binary"
        else:
            mapping = {code: str(label).strip() for code, label in maps[column].items()}
            frame[column] = raw[column].map(mapping)
            if column in _ORDINAL_CODES:
                types[column] = "ordinal"
                orders[column] = [mapping[code] for code in _ORDINAL_CODES[column]]
            else:
                types[column] = "categorical"
    frame["credit"] = (raw["credit"] == "1").astype(np.int64)
    return Dataset(
        name="german",
        frame=frame,
        target="credit",
        feature_types=types,
        ordinal_orders=orders,
        protected=("sex", "age"),
        citation=CITATION,
    )
