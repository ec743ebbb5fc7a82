"""Scorers: map agents' features to the score that selection ranks."""

from recoursesim.scoring.base import LinearForm, Scorer, linear_form_of
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.linear import LinearScorer
from recoursesim.scoring.tabular import (
    MODELS,
    CodeEncoder,
    ModelScorer,
    TabularModel,
    builtin_pipeline,
    scorer_from_estimator,
    tabular_estimator,
)

__all__ = [
    "MODELS",
    "ClassifierScorer",
    "CodeEncoder",
    "LinearForm",
    "LinearScorer",
    "ModelScorer",
    "Scorer",
    "TabularModel",
    "builtin_pipeline",
    "linear_form_of",
    "scorer_from_estimator",
    "tabular_estimator",
]
