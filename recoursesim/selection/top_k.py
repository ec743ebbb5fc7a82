"""Top-k selection: the k highest scores win."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recoursesim.component import Component
from recoursesim.registry import register
from recoursesim.selection.base import Selection, SelectionContext, check_places, check_scores, places_at, top_k_mask


@register("selector", "top_k", "topk")
class TopKSelector(Component):
    """Top-k selection: exactly the ``k`` highest scores get the positive outcome.

    Ties at the cut-off go to the longest-waiting agents, then the lowest agent id (the paper
    says "trying the longest"; the reference code's unstable sort is not reproduced). When fewer
    than ``k`` agents remain, all of them are selected. The threshold that recommendations aim at
    is the lowest selected score.

    Args:
        k: Positive outcomes per step (``>= 1``), or a list with one number per step (a schedule:
            places cut or added mid-run; after the list ends its last number holds).
    """

    def __init__(self, k: int | Sequence[int]) -> None:
        self.k = k
        self._k = check_places("k", k)

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Select the top ``k`` scores (this step's ``k`` under a schedule)."""
        mask, cutoff = top_k_mask(check_scores(scores, context), places_at(self._k, context.step), context)
        return Selection(mask, cutoff)
