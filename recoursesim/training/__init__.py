"""Trainers: refit the decision model as the population changes."""

from recoursesim.training.base import Trainer, TrainingContext
from recoursesim.training.estimators import ESTIMATORS, make_estimator
from recoursesim.training.group_recourse import GroupRecourseTrainer
from recoursesim.training.group_recourse_models import GroupRecourseLogisticRegression, GroupRecourseSVM
from recoursesim.training.group_recourse_solvers import recourse_difference
from recoursesim.training.performative import PerformativeTrainer, repeated_risk_minimisation
from recoursesim.training.refit import CounterfactualAugmentationTrainer, RefitTrainer
from recoursesim.training.strategic import StrategicScorer, StrategicTrainer

__all__ = [
    "ESTIMATORS",
    "CounterfactualAugmentationTrainer",
    "GroupRecourseLogisticRegression",
    "GroupRecourseSVM",
    "GroupRecourseTrainer",
    "PerformativeTrainer",
    "RefitTrainer",
    "StrategicScorer",
    "StrategicTrainer",
    "Trainer",
    "TrainingContext",
    "make_estimator",
    "recourse_difference",
    "repeated_risk_minimisation",
]
