"""What a selector is: it picks the agents that get the positive outcome this step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class SelectionContext:
    """What a selector may look at besides the scores (all arrays aligned with the scores).

    Attributes:
        step: The current step ``t``.
        agent_id: Agent ids.
        entry_step: Step at which each agent was first scored.
        group: Group codes.
        n_groups: Number of groups in the population.
        features: Current features, ``(n, d)``.
        initial_score: Each agent's score on entry (selectors that reward improvement use it).
    """

    step: int
    agent_id: np.ndarray
    entry_step: np.ndarray
    group: np.ndarray
    n_groups: int
    features: np.ndarray
    initial_score: np.ndarray


@dataclass(frozen=True)
class Selection:
    """A selector's decision.

    Attributes:
        selected: Boolean mask, True for agents that get the positive outcome.
        threshold: The score recommendations must reach: a scalar, or one value per agent.
    """

    selected: np.ndarray
    threshold: float | np.ndarray


@runtime_checkable
class Selector(Protocol):
    """Chooses who gets the positive outcome at a step."""

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Return the selection for this step (must not modify its inputs)."""
        ...


def order_for_ties(candidates: np.ndarray, context: SelectionContext) -> np.ndarray:
    """Order tied candidates: longest-waiting (earliest entry) first, then lowest agent id."""
    return candidates[np.lexsort((context.agent_id[candidates], context.entry_step[candidates]))]


def top_k_mask(scores: np.ndarray, k: int, context: SelectionContext) -> tuple[np.ndarray, float]:
    """Select exactly ``min(k, n)`` highest scores; ties at the cut-off by :func:`order_for_ties`.

    Runs in linear time (a partition, then a sort of the tied scores only).

    Args:
        scores: One score per agent.
        k: Number of positive outcomes.
        context: Supplies entry steps and ids for tie-breaking.

    Returns:
        The boolean mask and the cut-off (the lowest selected score; ``+inf`` when nobody is selected).
    """
    n = scores.shape[0]
    mask = np.zeros(n, dtype=bool)
    if k <= 0 or n == 0:
        return mask, float("inf")
    if k >= n:
        mask[:] = True
        return mask, float(scores.min())
    cutoff = float(np.partition(scores, n - k)[n - k])
    above = scores > cutoff
    mask |= above
    need = k - int(np.count_nonzero(above))
    tied = np.flatnonzero(scores == cutoff)
    if need < tied.size:
        tied = order_for_ties(tied, context)
    mask[tied[:need]] = True
    return mask, cutoff
