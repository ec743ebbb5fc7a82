"""Ground truth: who is truly qualified, and whether acting on recourse improved them or only gamed the model."""

from recoursesim.groundtruth.outcome import DecisionOutcome, LinearOutcome, OutcomeModel

__all__ = ["DecisionOutcome", "LinearOutcome", "OutcomeModel"]
