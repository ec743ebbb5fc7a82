"""Top-k selection: the k highest scores win."""

from __future__ import annotations

import numpy as np

from recoursesim._validate import check_int
from recoursesim.registry import register
from recoursesim.selection.base import Selection, SelectionContext, check_scores, top_k_mask


@register("selector", "top_k", "topk")
class TopKSelector:
    """Top-k selection: exactly the ``k`` highest scores get the positive outcome.

    Ties at the cut-off go to the longest-waiting agents, then the lowest agent id (the paper
    says "trying the longest"; the reference code's unstable sort is not reproduced). When fewer
    than ``k`` agents remain, all of them are selected. The threshold that recommendations aim at
    is the lowest selected score.

    Args:
        k: Positive outcomes per step (``>= 1``).
    """

    def __init__(self, k: int) -> None:
        self.k = check_int("k", k, minimum=1)

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Select the top ``k`` scores."""
        mask, cutoff = top_k_mask(check_scores(scores, context), self.k, context)
        return Selection(mask, cutoff)
