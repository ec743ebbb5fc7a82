"""Shared worlds for the recourse tests: German credit and Adult in code space with scikit-learn models."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from recoursesim.datasets import load_adult, load_german
from recoursesim.features import DEFAULT_ACTIONS, DEFAULT_COLUMNS, FeatureSchema
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.tabular import make_model, scorer_from_estimator, tabular_estimator
from recoursesim.threads import fit_single_threaded


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


def dataset_world(name: str, estimator, frame: bool, n_train: int, n_agents: int) -> World:
    """A bundled data set's complete rows (default columns) shuffled: ``n_train`` training rows, ``n_agents`` agents.

    With ``frame`` the model is a user pipeline on the data set's own values (one-hot encoding,
    scaling); otherwise the built-in code-space pipeline (what ``[scorer] name = "model"`` fits).
    """
    data = load_german() if name == "german" else load_adult()
    schema = FeatureSchema.from_dataset(data, DEFAULT_COLUMNS[name])
    columns = data.X[list(schema.names)]
    complete = columns.notna().all(axis=1).to_numpy()
    codes = schema.encode(columns[complete])
    outcome = data.y.to_numpy()[complete]
    order = np.random.default_rng(0).permutation(len(codes))
    train, agents = order[:n_train], order[n_train : n_train + n_agents]
    labels = outcome[train]
    if frame:
        scorer = scorer_from_estimator(_pipeline(schema, estimator).fit(schema.decode(codes[train]), labels), schema)
    else:
        model = tabular_estimator(schema, estimator)
        fit_single_threaded(model, codes[train], labels)
        scorer = ClassifierScorer(model)
    return World(schema, codes[train], codes[agents], DEFAULT_ACTIONS[name], scorer)


def german_world(estimator, frame: bool = True) -> World:
    """German credit split in half: 500 training rows, 500 agents."""
    return dataset_world("german", estimator, frame, 500, 500)


@pytest.fixture(scope="session")
def german_logistic() -> World:
    """A one-hot logistic regression, as a user's DataFrame pipeline."""
    return german_world(LogisticRegression(max_iter=2000))


@pytest.fixture(scope="session")
def german_gbm() -> World:
    """Histogram gradient boosting, the built-in pipeline."""
    return german_world(HistGradientBoostingClassifier(random_state=0), frame=False)


@pytest.fixture(scope="session")
def german_builtin_logistic() -> World:
    """The built-in ``logistic`` model on German credit."""
    return german_world(make_model("logistic"), frame=False)


@pytest.fixture(scope="session")
def adult_builtin_logistic() -> World:
    """The built-in ``logistic`` model on Adult: 5,000 training rows, 1,500 agents."""
    return dataset_world("adult", make_model("logistic"), False, 5000, 1500)
