"""The :class:`Dataset` record returned by every loader."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

#: The feature types a :class:`Dataset` may declare.
FEATURE_TYPES: tuple[str, ...] = ("numerical", "categorical", "ordinal", "binary")


@dataclass(frozen=True)
class Dataset:
    """A cleaned tabular data set with a binary target.

    Attributes:
        name: Short name (``"adult"``, ``"german"``, ``"compas"``).
        frame: Cleaned features plus the target column; one row per person. Missing values are NaN.
        target: The binary target column, 1 = favourable outcome.
        feature_types: Every feature column mapped to ``"numerical"``, ``"categorical"``,
            ``"ordinal"`` or ``"binary"``.
        ordinal_orders: The category order (lowest first) of each ordinal feature.
        protected: Candidate protected attributes (feature columns).
        citation: How to cite the data set.
    """

    name: str
    frame: pd.DataFrame
    target: str
    feature_types: dict[str, str]
    ordinal_orders: dict[str, list] = field(default_factory=dict)
    protected: tuple[str, ...] = ()
    citation: str = ""

    @property
    def features(self) -> list[str]:
        """Return the feature columns, in frame order."""
        return [column for column in self.frame.columns if column != self.target]

    @property
    def X(self) -> pd.DataFrame:  # noqa: N802 (scikit-learn naming)
        """Return the feature columns."""
        return self.frame[self.features]

    @property
    def y(self) -> pd.Series:
        """Return the target column."""
        return self.frame[self.target]
