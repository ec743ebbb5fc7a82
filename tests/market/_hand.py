"""A hand-made population and two-lender market, small enough to compute every step on paper."""

from __future__ import annotations

from typing import Any

import numpy as np

from recoursesim.behaviour.follow import FollowExactlyBehaviour
from recoursesim.engine.market import Lender, Market
from recoursesim.engine.model import RecourseModel
from recoursesim.populations.base import Cohort
from recoursesim.recourse.linear import LinearRecourse
from recoursesim.refit_order import refit_order_of
from recoursesim.registry import build
from recoursesim.scoring.linear import LinearScorer
from recoursesim.selection.threshold import ThresholdSelector
from recoursesim.selection.top_k import TopKSelector


class FixedPopulation:
    """Six agents on one feature ``x = 0.1 … 0.6`` (groups 0, 0, 0, 1, 1, 1), effort capacity 1; no entrants."""

    feature_names = ("x",)
    group_names = ("a", "b")

    def __init__(self, x: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)) -> None:
        self.x = np.asarray(x, dtype=float)

    def fit(self, rng: np.random.Generator) -> FixedPopulation:
        return self

    def sample(self, n: int, rng: np.random.Generator) -> Cohort:
        index = np.arange(n) % self.x.size
        return Cohort(self.x[index, None].copy(), (index >= self.x.size // 2).astype(np.int16), np.ones(n))


def lenders(k_b: int = 2) -> tuple[Lender, Lender]:
    """Lender A: score ``x``, fixed threshold 0.45. Lender B: score ``1 - x``, top-``k_b``."""
    return (
        Lender("A", LinearScorer([1.0]), ThresholdSelector(0.45), LinearRecourse()),
        Lender("B", LinearScorer([-1.0], intercept=1.0), TopKSelector(k_b), LinearRecourse()),
    )


def market_model(
    choice: dict[str, Any] | None = None,
    steps: int = 1,
    k_b: int = 2,
    trainers: tuple[Any, Any] = (None, None),
    **market: Any,
) -> RecourseModel:
    """The two-lender market of :func:`lenders` on :class:`FixedPopulation`, with ``choice`` (default all)."""
    pair = lenders(k_b)
    for lender, trainer in zip(pair, trainers, strict=True):
        lender.trainer = trainer
        lender.refit_order = refit_order_of(trainer)
    return RecourseModel(
        FixedPopulation(),
        pair[0].scorer,
        pair[0].selector,
        pair[0].recourse,
        FollowExactlyBehaviour(),
        n_initial=6,
        entrants=0,
        n_steps=steps,
        market=Market(pair, build("choice", choice or {"name": "all"}, section="market.choice"), **market),
        seed=0,
    )
