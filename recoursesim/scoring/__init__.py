"""Scorers: map agents' features to the score that selection ranks."""

from recoursesim.scoring.base import AdditiveForm, LinearForm, Scorer, additive_form_of, linear_form_of, margin_of
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.encoding import CodeEncoder, builtin_pipeline
from recoursesim.scoring.fitted import FittedModelScorer, check_fitted_model, load_model_file
from recoursesim.scoring.linear import LinearScorer
from recoursesim.scoring.tabular import (
    MODELS,
    ModelScorer,
    TabularModel,
    scorer_from_estimator,
    tabular_estimator,
)

__all__ = [
    "MODELS",
    "AdditiveForm",
    "ClassifierScorer",
    "CodeEncoder",
    "FittedModelScorer",
    "LinearForm",
    "LinearScorer",
    "ModelScorer",
    "Scorer",
    "TabularModel",
    "additive_form_of",
    "builtin_pipeline",
    "check_fitted_model",
    "linear_form_of",
    "load_model_file",
    "margin_of",
    "scorer_from_estimator",
    "tabular_estimator",
]
