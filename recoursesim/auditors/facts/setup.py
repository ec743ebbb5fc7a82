"""The paper's experimental setup (Appendix A): 70/30 stratified split, a model, FACTS on the test set."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline

from recoursesim.auditors.facts.models import audit_pipeline
from recoursesim.auditors.facts.presets import FactsData, preset

#: The paper's split seed.
PAPER_SEED = 131313


@dataclass(frozen=True)
class PaperSetup:
    """A prepared data set, its train/test split, and the fitted model to audit.

    Attributes:
        data: The FACTS-ready data set.
        X_train: Training features.
        y_train: Training target.
        X_test: Test features (FACTS audits these).
        y_test: Test target.
        model: The fitted model pipeline.
    """

    data: FactsData
    X_train: pd.DataFrame
    y_train: pd.Series
    X_test: pd.DataFrame
    y_test: pd.Series
    model: Pipeline


def paper_setup(
    data: str | FactsData = "adult",
    model: str = "logistic",
    test_size: float = 0.3,
    random_state: int = PAPER_SEED,
) -> PaperSetup:
    """Split 70/30 (shuffled, stratified on the target) and fit a model from the registry.

    Args:
        data: A bundled data set name (``adult``, ``compas``, ``german``) or prepared data.
        model: A name from :data:`recoursesim.auditors.facts.models.AUDITED_MODELS`.
        test_size: Test fraction.
        random_state: Seed of the split and of stochastic models.

    Returns:
        The :class:`PaperSetup`.
    """
    prepared = preset(data) if isinstance(data, str) else data
    estimator = audit_pipeline(model, random_state)
    X = prepared.frame[prepared.features]
    y = prepared.frame[prepared.target]
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, stratify=y, shuffle=True, random_state=random_state
    )
    estimator.fit(X_train, y_train)
    return PaperSetup(
        prepared,
        X_train.reset_index(drop=True),
        y_train.reset_index(drop=True),
        X_test.reset_index(drop=True),
        y_test.reset_index(drop=True),
        estimator,
    )
