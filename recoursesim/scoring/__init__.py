"""Scorers: map agents' features to the score that selection ranks."""

from recoursesim.scoring.base import AdditiveForm, LinearForm, Scorer, additive_form_of, linear_form_of, margin_of
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
    "AdditiveForm",
    "ClassifierScorer",
    "CodeEncoder",
    "LinearForm",
    "LinearScorer",
    "ModelScorer",
    "Scorer",
    "TabularModel",
    "additive_form_of",
    "builtin_pipeline",
    "linear_form_of",
    "margin_of",
    "scorer_from_estimator",
    "tabular_estimator",
]
