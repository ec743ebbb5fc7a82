"""A scorer wrapper that counts the rows it is asked to score (for tests of how many probes a generator makes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from recoursesim.scoring.base import Scorer


class Counting(Scorer):
    """Score with ``scorer`` and count the rows scored (``rows``)."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.rows = 0

    def score(self, features: np.ndarray) -> np.ndarray:
        self.rows += len(features)
        return self.scorer.score(features)
