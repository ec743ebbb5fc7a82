"""Scorers: map agents' features to the score that selection ranks."""

from recoursesim.scoring.base import LinearForm, Scorer, linear_form_of
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.linear import LinearScorer

__all__ = ["ClassifierScorer", "LinearForm", "LinearScorer", "Scorer", "linear_form_of"]
