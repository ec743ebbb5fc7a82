"""Trainers: refit the decision model as the population changes."""

from recoursesim.training.base import Trainer, TrainingContext

__all__ = ["Trainer", "TrainingContext"]
