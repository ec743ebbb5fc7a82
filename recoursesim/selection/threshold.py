"""Absolute-threshold selection: everybody at or above a fixed score wins."""

from __future__ import annotations

import numpy as np

from recoursesim._validate import check_float
from recoursesim.component import Component
from recoursesim.registry import register
from recoursesim.selection.base import Selection, SelectionContext, check_scores


@register("selector", "threshold")
class ThresholdSelector(Component):
    """Select every agent whose score is at least ``threshold`` (no cap on the number of winners).

    Args:
        threshold: The fixed score cut-off; it is also the target of recommendations.
    """

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self._threshold = check_float("threshold", threshold)

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Select scores ``>= threshold``."""
        return Selection(check_scores(scores, context) >= self._threshold, self._threshold)
