"""Effort-rewarding selection: returning applicants are judged on their improvement (Bell et al. 2024 §4)."""

from __future__ import annotations

import numpy as np

from recoursesim._validate import check_choice, check_float, check_int
from recoursesim.component import Component
from recoursesim.registry import register
from recoursesim.selection.base import Selection, SelectionContext, check_scores, top_k_mask


@register("selector", "effort_rewarding", "improvement")
class EffortRewardingSelector(Component):
    """Reserve part of the ``k`` places for returning applicants, ranked by how much they improved.

    Bell et al. (2024, §4) propose, as a system-level intervention, that "returning applicants
    could be evaluated solely on the magnitude of improvement in their score"; no tool implements
    it. This selector makes the rule concrete:

    1. **Reserved places.** ``r = round(returning_share · k)`` places (at most the number of
       returning applicants, those who entered before this step) go to the returning applicants
       with the largest *improvement*: with ``measure="score_gain"``, score now minus score on
       entry; with ``measure="effort"``, the feature-space cost they have spent acting on
       recommendations (effort rewarded even where it moved the score little). Only improvements
       of at least ``min_improvement`` qualify. Ties: longest waiting, then lowest id.
    2. **Open places.** The remaining places go to the highest scores among everybody not yet
       selected (newcomers and returning applicants alike), as in top-k.

    Exactly ``min(k, n)`` agents are selected. The threshold recommendations aim at is per agent:
    the open pool's score cut-off for everyone; for a returning applicant with
    ``measure="score_gain"``, the lower of that and the score that would have won a reserved place
    (its entry score plus the improvement cut-off).

    Args:
        k: Positive outcomes per step.
        returning_share: Fraction of ``k`` reserved for returning applicants (0 = top-k, 1 = all).
        measure: ``"score_gain"`` or ``"effort"``.
        min_improvement: Smallest improvement that can win a reserved place.
    """

    def __init__(
        self, k: int, returning_share: float = 0.5, measure: str = "score_gain", min_improvement: float = 0.0
    ) -> None:
        self.k = k
        check_int("k", k, minimum=1)
        self.returning_share = returning_share
        self._returning_share = check_float("returning_share", returning_share, minimum=0.0, maximum=1.0)
        self.measure = measure
        check_choice("measure", measure, ["score_gain", "effort"])
        self.min_improvement = min_improvement
        self._min_improvement = check_float("min_improvement", min_improvement)

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Fill the reserved places by improvement, then the open places by score."""
        scores = check_scores(scores, context)
        n = scores.size
        returning = context.entry_step < context.step
        gain = scores - context.initial_score if self.measure == "score_gain" else context.effort_spent
        improvement = np.where(returning, gain, -np.inf)
        eligible = np.flatnonzero(returning & (improvement >= self._min_improvement))
        reserved = min(round(self._returning_share * self.k), eligible.size, n)
        selected = np.zeros(n, dtype=bool)
        improvement_cutoff = np.inf
        if reserved > 0:
            mask, improvement_cutoff = top_k_mask(improvement[eligible], reserved, context.subset(eligible))
            selected[eligible[mask]] = True
        rest = np.flatnonzero(~selected)
        open_places = min(self.k, n) - reserved
        score_cutoff = np.inf
        if open_places > 0:
            mask, score_cutoff = top_k_mask(scores[rest], open_places, context.subset(rest))
            selected[rest[mask]] = True
        elif reserved > 0:
            score_cutoff = float(scores[selected].max())
        threshold = np.full(n, score_cutoff)
        if self.measure == "score_gain" and reserved > 0:
            via_improvement = context.initial_score + improvement_cutoff
            threshold = np.where(returning, np.minimum(threshold, via_improvement), threshold)
        return Selection(selected, threshold)
