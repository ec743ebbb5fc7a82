"""The decision in force at one step: the model that scored and selected, and each group's cut-off."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recoursesim.scoring.base import Scorer


@dataclass(frozen=True)
class Decision:
    """What an applicant had to reach at step ``step``.

    The model keeps one per step (``RecourseModel.decisions``) so that a recommendation issued at
    step ``t`` can be judged later under the decision of step ``t + h`` without changing the run.
    A trainer that refits returns a new model object (the built-in ones do), so the scorer held
    here is the one that scored step ``step``.

    Attributes:
        step: The step.
        scorer: The decision model that scored and selected at ``step``.
        cutoff: ``(n_groups,)`` the score each group's members had to reach (the selector's
            threshold; NaN for a group with nobody scored at this step).
    """

    step: int
    scorer: Scorer
    cutoff: np.ndarray

    @classmethod
    def of(cls, step: int, scorer: Scorer, threshold: float | np.ndarray, group: np.ndarray, n_groups: int) -> Decision:
        """Build the record from the selector's threshold (a scalar, or one value per scored agent).

        A per-agent threshold is summarised per group by its largest value (selectors that give
        per-agent thresholds, such as CNS, give one value per group).
        """
        if np.ndim(threshold) == 0:
            cutoff = np.full(n_groups, float(threshold))
        else:
            cutoff = np.full(n_groups, -np.inf)
            np.maximum.at(cutoff, np.asarray(group, dtype=np.int64), np.asarray(threshold, dtype=float))
            present = np.bincount(np.asarray(group, dtype=np.int64), minlength=n_groups) > 0
            cutoff = np.where(present, cutoff, np.nan)
        return cls(int(step), scorer, cutoff)
