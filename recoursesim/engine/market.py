"""Lenders and the market: the decision makers of a run and the array logic of a market step.

A run has a tuple of :class:`Lender` values. The single-lender scenario is the one-lender market;
a scenario with ``[market]`` and ``[[lenders]]`` declares several (docs/markets.md). This module
holds the per-lender state and the vectorised pieces of a market step that need no model: which
acceptance an applicant takes, which recommendation it acts on, and the share of training rows a
polyculture lender fits on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from recoursesim._validate import check_choice
from recoursesim.errors import ConfigError

if TYPE_CHECKING:  # the scenario checks read CULTURES without importing the components
    from recoursesim.engine.decision import Decision
    from recoursesim.recourse.base import RecourseGenerator
    from recoursesim.refit_order import RefitOrder
    from recoursesim.scoring.base import Scorer
    from recoursesim.selection.base import Selector
    from recoursesim.training.base import Trainer

#: The name of the only lender of a scenario that declares no market.
DEFAULT_LENDER = "default"

#: The two ways lenders' models relate: each its own (fitted on its own rows), or all lender 0's.
CULTURES: tuple[str, ...] = ("polyculture", "monoculture")

#: The most lenders a market may declare (``[[lenders]]`` tables or ``copies``). Every lender
#: scores every waiting applicant each step and keeps its own model, so a market far larger than
#: this is almost surely a typo; refusing it before any lender is built keeps a huge ``copies``
#: from exhausting memory before the run's memory estimate is reached.
MAX_LENDERS = 1000

#: The longest lender name (names label ledger categories, table columns and figure legends).
MAX_NAME_LENGTH = 64


@dataclass(eq=False)
class Lender:
    """One decision maker: its parts, its refit order and the decisions it made.

    Attributes:
        name: Its name (unique in a market).
        scorer: The decision model in force (replaced at each refit).
        selector: Picks the winners among its applicants.
        recourse: Recommends ``x'`` to its refused applicants and prices moves.
        trainer: Refits its model each step on its applicants' rows (``None``: the model stays).
        refit_order: When, within a step, it refits (:mod:`recoursesim.refit_order`).
        decisions: Per step, its decision in force (model and cut-off).
        threshold: Its latest threshold.
        initial_scorer: The model it started with (after fitting).
    """

    name: str
    scorer: Scorer
    selector: Selector
    recourse: RecourseGenerator
    trainer: Trainer | None = None
    refit_order: RefitOrder = field(init=False)
    decisions: list[Decision] = field(default_factory=list)
    threshold: float | np.ndarray = float("nan")
    initial_scorer: Scorer | None = None

    def __post_init__(self) -> None:
        from recoursesim.refit_order import refit_order_of

        self.refit_order = refit_order_of(self.trainer)


@dataclass(frozen=True)
class Market:
    """A declared market: its lenders (unbuilt parts, as :class:`Lender` values), choice and culture.

    Attributes:
        lenders: The lenders, in declaration order (at least one).
        choice: The choice policy (a registered ``choice`` component).
        culture: ``"polyculture"`` or ``"monoculture"`` (see :data:`CULTURES`).
    """

    lenders: tuple[Lender, ...]
    choice: Any
    culture: str = "polyculture"

    def __post_init__(self) -> None:
        check_choice("market.culture", self.culture, CULTURES)
        if not self.lenders:
            raise ConfigError("lenders", "a market has no lenders", "give at least one Lender")


def scalar_threshold(threshold: float | np.ndarray) -> float:
    """A lender's threshold as one finite number: itself, or the median of a per-applicant threshold.

    NaN when there is none: before the first step, or when the threshold is not finite (a top-k
    lender nobody applied to has the threshold +inf; counted as a real cut-off it would keep every
    applicant choosing by odds away from that lender for good).
    """
    values = np.atleast_1d(np.asarray(threshold, dtype=float))
    values = values[np.isfinite(values)]
    if np.isscalar(threshold):
        return float(values[0]) if values.size else float("nan")
    return float(np.median(values)) if values.size else float("nan")


def first_true(mask: np.ndarray) -> np.ndarray:
    """Per row of an ``(n, L)`` mask, the first column that is True (-1 where none is)."""
    found = mask.any(axis=1)
    return np.where(found, np.argmax(mask, axis=1), -1)


def cheapest(costs: np.ndarray) -> np.ndarray:
    """Per row of an ``(n, L)`` cost array (NaN: no recommendation), the cheapest column (-1 where none).

    Ties go to the first column (the lender declared first).
    """
    finite = np.isfinite(costs)
    return np.where(finite.any(axis=1), np.argmin(np.where(finite, costs, np.inf), axis=1), -1)


def training_shares(n_rows: int, n_lenders: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Disjoint, near-equal shares of ``n_rows`` training rows, one per lender, drawn from ``rng``.

    The rows are permuted once and cut into ``n_lenders`` consecutive parts (sizes differ by at
    most one), each sorted.
    """
    order = rng.permutation(n_rows)
    return [np.sort(part) for part in np.array_split(order, n_lenders)]


class TrainingShare:
    """A population seen through a share of its training rows (what one polyculture lender fits on).

    Every attribute is the population's, except :meth:`training_data`, which returns the rows of
    the share only.
    """

    def __init__(self, population: Any, rows: np.ndarray) -> None:
        self._population = population
        self._rows = rows

    def training_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The share's training features and labels."""
        features, labels = self._population.training_data()
        return features[self._rows], np.asarray(labels)[self._rows]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._population, name)


def check_lenders(
    lenders: Sequence[Lender], *, outcome: bool, observers: bool, fields: Sequence[str] | None = None
) -> None:
    """Refuse what a declared market cannot run (yet).

    Args:
        lenders: The market's lenders.
        outcome: The run has an outcome component (loans that stay in the loop).
        observers: The run has observers.
        fields: Each lender's field in messages (default ``lenders[i]``).

    Raises:
        ConfigError: an outcome or observers in a market; with several lenders, a trainer whose
            refit order refits before the applicants act.
    """
    from recoursesim.refit_order import REFIT_ORDERS, act_then_refit

    for section, present in (("outcome", outcome), ("observers", observers)):
        if present:
            raise ConfigError(
                section, "is not supported in a market of lenders yet", f"remove [{section}] or the [market]"
            )
    if len(lenders) < 2:
        return
    for i, lender in enumerate(lenders):
        if lender.refit_order is not act_then_refit:
            order = next(name for name, run in REFIT_ORDERS.items() if run is lender.refit_order)
            where = fields[i] if fields is not None else f"lenders[{i}]"
            raise ConfigError(
                f"{where}.training",
                f"asks to refit before the applicants act (order {order!r}); in a market every lender refits "
                "after the applicants acted",
                "use a trainer with the default order (refit, cda, strategic, performative), or one lender",
            )
