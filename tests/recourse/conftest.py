"""Shared worlds for the recourse tests: German credit in code space with scikit-learn models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from recoursesim.datasets import load_german
from recoursesim.features import DEFAULT_ACTIONS, FeatureSchema
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.tabular import scorer_from_estimator, tabular_estimator
from recoursesim.training.refit import fit_single_threaded


@dataclass
class World:
    schema: FeatureSchema
    train: np.ndarray
    agents: np.ndarray
    action_set: dict
    scorer: ClassifierScorer


def _pipeline(schema: FeatureSchema, estimator) -> Pipeline:
    discrete = [n for n, k in zip(schema.names, schema.kinds, strict=True) if k in ("categorical", "ordinal")]
    numeric = [n for n in schema.names if n not in discrete]
    encode = ColumnTransformer(
        [("onehot", OneHotEncoder(handle_unknown="ignore"), discrete), ("scale", StandardScaler(), numeric)]
    )
    return Pipeline([("encode", encode), ("model", estimator)])


def german_world(estimator, frame: bool = True) -> World:
    """German credit split in half: 500 training rows, 500 agents.

    With ``frame`` the model is a user pipeline on the data set's own values (one-hot encoding,
    scaling); otherwise the built-in code-space pipeline.
    """
    data = load_german()
    schema = FeatureSchema.from_dataset(data)
    codes = schema.encode(data.X)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(codes))
    train, agents = order[:500], order[500:]
    labels = data.y.to_numpy()[train]
    if frame:
        scorer = scorer_from_estimator(_pipeline(schema, estimator).fit(schema.decode(codes[train]), labels), schema)
    else:
        model = tabular_estimator(schema, estimator)
        fit_single_threaded(model, codes[train], labels)
        scorer = ClassifierScorer(model)
    return World(schema, codes[train], codes[agents], DEFAULT_ACTIONS["german"], scorer)


@pytest.fixture(scope="session")
def german_logistic() -> World:
    """A one-hot logistic regression, as a user's DataFrame pipeline."""
    return german_world(LogisticRegression(max_iter=2000))


@pytest.fixture(scope="session")
def german_gbm() -> World:
    """Histogram gradient boosting, the built-in pipeline."""
    return german_world(HistGradientBoostingClassifier(random_state=0), frame=False)
