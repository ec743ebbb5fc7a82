"""Applicants who choose: where each waiting applicant applies when there are several lenders."""

from recoursesim.choice.base import Choice, ChoiceContext, best_odds_order
from recoursesim.choice.policies import AllLenders, BestOdds, Cheapest, RandomLender, Sequential

__all__ = [
    "AllLenders",
    "BestOdds",
    "Cheapest",
    "Choice",
    "ChoiceContext",
    "RandomLender",
    "Sequential",
    "best_odds_order",
]
