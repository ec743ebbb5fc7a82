"""Shared pieces of the bring-your-own-model tests: a user's CSV of COMPAS rows and a fitted pipeline."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from own_model_helpers import COLUMNS, user_pipeline
from sklearn.pipeline import Pipeline

from recoursesim.datasets import load_compas


@pytest.fixture(scope="session")
def user_csv(tmp_path_factory) -> Path:
    """600 COMPAS rows of two groups saved as a user's CSV file."""
    data = load_compas().frame
    rows = data.loc[data["race"].isin(["African-American", "Caucasian"]), COLUMNS].dropna()
    path = tmp_path_factory.mktemp("user") / "defendants.csv"
    rows.sample(600, random_state=0).to_csv(path, index=False)
    return path


@pytest.fixture(scope="session")
def user_model(user_csv) -> Pipeline:
    """The user's pipeline, fitted on the file as read back (text columns, not categories)."""
    return user_pipeline(pd.read_csv(user_csv), "no_recid")
