"""Selectors: who gets the positive outcome at each step."""

from recoursesim.selection.base import (
    Selection,
    SelectionContext,
    Selector,
    check_scores,
    order_for_ties,
    top_k_mask,
)
from recoursesim.selection.circumstance_normalised import CircumstanceNormalisedSelector, group_quotas
from recoursesim.selection.effort_rewarding import EffortRewardingSelector
from recoursesim.selection.lending_selector import LendingSelector
from recoursesim.selection.loan_outcome import LoanContext, LoanResult, Outcome, RepaymentOutcome
from recoursesim.selection.threshold import ThresholdSelector
from recoursesim.selection.top_k import TopKSelector

__all__ = [
    "CircumstanceNormalisedSelector",
    "EffortRewardingSelector",
    "LendingSelector",
    "LoanContext",
    "LoanResult",
    "Outcome",
    "RepaymentOutcome",
    "Selection",
    "SelectionContext",
    "Selector",
    "ThresholdSelector",
    "TopKSelector",
    "check_scores",
    "group_quotas",
    "order_for_ties",
    "top_k_mask",
]
