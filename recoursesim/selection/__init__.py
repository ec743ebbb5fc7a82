"""Selectors: who gets the positive outcome at each step."""

from recoursesim.selection.base import (
    Selection,
    SelectionContext,
    Selector,
    order_for_ties,
    top_k_mask,
)
from recoursesim.selection.threshold import ThresholdSelector
from recoursesim.selection.top_k import TopKSelector

__all__ = [
    "Selection",
    "SelectionContext",
    "Selector",
    "ThresholdSelector",
    "TopKSelector",
    "order_for_ties",
    "top_k_mask",
]
