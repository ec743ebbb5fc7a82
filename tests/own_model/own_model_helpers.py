"""Helpers of the bring-your-own-model tests: a user's pipeline, and classes defined outside scikit-learn."""

from __future__ import annotations

from typing import Any

import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder


class PassThrough(TransformerMixin, BaseEstimator):
    """Return the input unchanged (tests only)."""

    def fit(self, X: Any, y: Any = None) -> PassThrough:
        return self

    def transform(self, X: Any) -> Any:
        return X


class FailingClassifier(BaseEstimator):
    """A fitted-looking binary classifier whose predictions fail (tests only)."""

    def fit(self, X: Any, y: Any) -> FailingClassifier:
        self.classes_ = [0, 1]
        return self

    def predict_proba(self, X: Any) -> Any:
        raise ValueError("cannot handle these rows")


#: The columns of the user's file: COMPAS features and the outcome.
COLUMNS = ["sex", "age", "race", "juv_fel_count", "priors_count", "c_charge_degree", "no_recid"]


def user_pipeline(frame: pd.DataFrame, target: str) -> Pipeline:
    """A user's Pipeline(ColumnTransformer, HistGradientBoostingClassifier) fitted on the frame's own values."""
    X = frame.drop(columns=target)
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    return make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), categorical), remainder="passthrough"),
        HistGradientBoostingClassifier(max_iter=20, max_depth=3, random_state=0),
    ).fit(X, frame[target])


def defendants_scenario(csv: object, *tables: str) -> str:
    """A 2-step top-10 scenario with ``search`` recourse on the user's defendants CSV at ``csv``.

    Args:
        csv: The CSV path as the scenario states it (relative paths start at the scenario's folder).
        *tables: Extra TOML tables appended as given, e.g. ``'[scorer]\\nmodel_file = "model.skops"\\n'``.
    """
    text = f"""
name = "defendants"
[run]
steps = 2
[population]
name = "dataset"
path = "{csv}"
target = "no_recid"
group = "race"
initial = 80
entrants = 5
[selection]
name = "top_k"
k = 10
[recourse]
name = "search"
[behaviour]
name = "bounded_effort"
"""
    return text + "".join(tables)


def cli(capsys: Any, *argv: str) -> tuple[int, str]:
    """Run ``recoursesim ARGV``: (status, stderr without the note on the CSV's inferred feature types)."""
    from recoursesim.cli import main

    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    err = capsys.readouterr().err
    return status, "\n".join(line for line in err.splitlines() if not line.startswith("note: "))
