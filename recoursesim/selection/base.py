"""What a selector is: it picks the agents that get the positive outcome this step."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Protocol, runtime_checkable

import numpy as np

from recoursesim._validate import check_int
from recoursesim.errors import ConfigError, DataError


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
        effort_spent: Feature-space cost each agent has spent acting on recommendations so far.
        repay: Each agent's probability of repaying a loan granted now, when the population gives
            one (the ``fico`` population does); ``None`` otherwise. The lending criteria need it.
    """

    step: int
    agent_id: np.ndarray
    entry_step: np.ndarray
    group: np.ndarray
    n_groups: int
    features: np.ndarray
    initial_score: np.ndarray
    effort_spent: np.ndarray
    repay: np.ndarray | None = None

    def subset(self, rows: np.ndarray) -> SelectionContext:
        """The context restricted to ``rows`` (indices into the aligned arrays)."""
        arrays = {f.name: getattr(self, f.name) for f in fields(self)}
        return replace(self, **{k: v[rows] for k, v in arrays.items() if isinstance(v, np.ndarray)})


@dataclass(frozen=True)
class Selection:
    """A selector's decision.

    Attributes:
        selected: Boolean mask, True for agents that get the positive outcome.
        threshold: The score recommendations must reach: a scalar, or one value per agent.
    """

    selected: np.ndarray
    threshold: float | np.ndarray

    @staticmethod
    def checked(result: object, n: int) -> Selection:
        """Return what a selector's ``select()`` returned for ``n`` agents, or raise naming what is wrong with it.

        It must be a :class:`Selection` whose ``selected`` is a boolean mask of length ``n`` and whose
        threshold is one number or ``n`` numbers, none NaN (``+inf``, nobody can reach it, is allowed).
        A plug-in's mistake is refused on its first step, not carried into every metric after it.

        Raises:
            ConfigError: field ``selection``, naming what was returned and what to return instead.
        """
        fix = f"make select() return Selection(selected=<bool array of length {n}>, threshold=...)"
        if not isinstance(result, Selection):
            raise ConfigError(
                "selection", f"the selector's select() returned {type(result).__name__}, not a Selection", fix
            )
        mask = np.asarray(result.selected)
        if mask.dtype != bool or mask.shape != (n,):
            raise ConfigError(
                "selection", f"the selector returned {mask.dtype} of shape {mask.shape} for {n} agents", fix
            )
        threshold = result.threshold
        if not np.isscalar(threshold) and np.shape(threshold) != (n,):
            raise ConfigError(
                "selection",
                f"the selector's threshold has shape {np.shape(threshold)} for {n} agents",
                f"make select() return a single number or {n} numbers as the threshold",
            )
        try:
            values = np.asarray(threshold, dtype=float)
        except (TypeError, ValueError):
            values = np.array([np.nan])
        if np.isnan(values).any():
            raise ConfigError(
                "selection",
                f"the selector's threshold is NaN or not a number ({threshold!r})"
                if np.isscalar(threshold)
                else f"the selector's threshold is NaN for {int(np.isnan(values).sum())} of {n} agents",
                "make select() return the score agents must reach (+inf when nobody can be selected)",
            )
        return result


@runtime_checkable
class HasPlaces(Protocol):
    """A selector that gives a fixed number of places ``k`` per step, or a per-step schedule of them.

    ``None`` (the default a subclass of :class:`Selector` inherits) says it has no such number
    (a threshold selects whoever passes it); the conformance checks then do not count its places.
    """

    k: int | Sequence[int] | None = None


def places_of(selector: object) -> int | Sequence[int] | None:
    """A selector's ``k`` (:class:`HasPlaces`), or ``None`` for one without a number of places."""
    return selector.k if isinstance(selector, HasPlaces) else HasPlaces.k


@runtime_checkable
class Selector(HasPlaces, Protocol):
    """Chooses who gets the positive outcome at a step.

    Its optional member, declared with its default on :class:`HasPlaces`: ``k``.
    """

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Return the selection for this step (must not modify its inputs)."""
        ...


def check_places(name: str, k: object) -> int | tuple[int, ...]:
    """Return ``k`` as places per step: one integer ``>= 1``, or a non-empty list of them (a per-step schedule).

    Raises:
        ConfigError: anything else, naming ``name``.
    """
    if isinstance(k, list | tuple):
        if not k:
            raise ConfigError(name, "is an empty list", f"give one number per step, e.g. {name} = [20, 20, 10]")
        return tuple(check_int(f"{name}[{i}]", value, minimum=1) for i, value in enumerate(k))
    return check_int(name, k, minimum=1)


def places_at(k: int | tuple[int, ...], step: int) -> int:
    """The places at ``step``: ``k`` itself, or entry ``step`` of a schedule (its last entry after its end)."""
    return k[min(step, len(k) - 1)] if isinstance(k, tuple) else k


def check_scores(scores: np.ndarray, context: SelectionContext) -> np.ndarray:
    """Return ``scores`` as a float array after checking it is finite and aligned with ``context``."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or scores.shape[0] != context.agent_id.shape[0]:
        raise DataError("scores", f"expected one score per agent ({context.agent_id.shape[0]})", "pass a 1-D array")
    if not np.all(np.isfinite(scores)):
        raise DataError(
            "scores",
            "contain NaN or infinite values",
            "make the scorer return finite scores (a NaN or inf feature gives NaN scores)",
        )
    return scores


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
