"""ProPublica COMPAS: predict whether a defendant does not reoffend within two years."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from recoursesim.datasets._files import read_verified
from recoursesim.datasets.base import Dataset

#: Feature columns kept (the usual COMPAS audit set; COMPAS's own scores are left out).
FEATURE_TYPES: dict[str, str] = {
    "sex": "binary",
    "age": "numerical",
    "age_cat": "ordinal",
    "race": "categorical",
    "juv_fel_count": "numerical",
    "juv_misd_count": "numerical",
    "juv_other_count": "numerical",
    "priors_count": "numerical",
    "c_charge_degree": "categorical",
    "c_charge_desc": "categorical",
}

AGE_ORDER: list[str] = ["Less than 25", "25 - 45", "Greater than 45"]

CITATION = (
    "Angwin, J., Larson, J., Mattu, S. & Kirchner, L. (2016). Machine Bias. ProPublica. "
    "Data: https://github.com/propublica/compas-analysis (compas-scores-two-years.csv)"
)


def load_compas() -> Dataset:
    """Load ProPublica's ``compas-scores-two-years.csv`` from the bundled file.

    All 7,214 rows are kept (ProPublica's row filters are left to the caller). The target
    ``no_recid`` is 1 when the person did not reoffend within two years (``two_year_recid == 0``).

    Returns:
        The :class:`Dataset`; protected candidates ``race`` and ``sex``.

    Raises:
        DataError: If the bundled file fails its checksum.
    """
    raw = pd.read_csv(io.StringIO(read_verified("compas-scores-two-years.csv").decode("utf-8")))
    frame = raw[list(FEATURE_TYPES)].copy()
    frame["no_recid"] = (raw["two_year_recid"] == 0).astype(np.int64)
    return Dataset(
        name="compas",
        frame=frame,
        target="no_recid",
        feature_types=dict(FEATURE_TYPES),
        ordinal_orders={"age_cat": list(AGE_ORDER)},
        protected=("race", "sex"),
        citation=CITATION,
    )
