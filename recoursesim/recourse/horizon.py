"""What the horizon-aware generators share: a base generator whose recommendations they make last longer.

A horizon-aware generator wraps an ordinary one (its *base*: ``linear``, ``exact_linear``,
``search``, ``auto`` …) and keeps the base's action set and cost model. For every agent below
the cut-off it first asks for a stronger recommendation (past the cut-off by a margin, or valid
under every model near the current one); where none exists within the action set, the agent
gets the base's ordinary recommendation at the cut-off instead. So the horizon-aware generators
never recommend less than the base does, and every recommendation they report as found is
accepted by the current model and legal (docs/durability.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from recoursesim._validate import check_table
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.features.actions import MixedActionSet
from recoursesim.recourse.base import action_set_of, reported_found
from recoursesim.recourse.mixed import link_of
from recoursesim.scoring.base import Scorer, margin_of

#: The registered names of the horizon-aware generators (a base may not be one of them).
WRAPPERS = ("margin", "horizon_margin", "worst_case", "roar")


@dataclass(eq=False, repr=False, kw_only=True)
class HorizonRecourse(Component, ABC):
    """Base class of the horizon-aware generators (see the module docstring).

    Each horizon-aware generator is a keyword-only dataclass that inherits the field ``base`` and
    checks its own fields after this class's ``__post_init__``. :meth:`bind` builds the base
    generator on the run's features (``base_``).

    Args:
        base: The generator to strengthen, as a scenario table (``{ name = "auto" }``); default
            ``linear`` for all-numeric features, ``auto`` otherwise.
    """

    base: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        """Check ``base`` (its parameters too: it is built once, unbound)."""
        if self.base is not None:
            spec = dict(check_table("base", self.base))
            if spec.get("name") in WRAPPERS:
                raise ConfigError("base", "must name an ordinary generator", 'use e.g. base = { name = "auto" }')
            self._build(spec)
        #: Per agent of the latest call: whether the stronger recommendation was given.
        self.strengthened_ = np.zeros(0, dtype=bool)

    def bind(self, context: RunContext) -> Self:
        """Build the base generator (``base_``) on the run's features."""
        self._context = context
        numeric = context.schema is None or bool(np.all(context.schema.is_numeric))
        self._base_spec = dict(self.base) if self.base is not None else {"name": "linear" if numeric else "auto"}
        self.base_ = self.build_base()
        return self

    def build_base(self) -> Any:
        """A new instance of the base generator (the wrappers that ask it about two models keep one per model).

        The search generator remembers its probes per model and forgets them when asked about
        another one, so a generator that alternates between two models every step keeps one
        base instance for each: each then keeps its probes, and chooses what to probe, once per model, as a
        plain run of the base does.
        """
        return self._build(self._base_spec, self._context)

    @staticmethod
    def _build(spec: Mapping[str, Any], context: RunContext | None = None) -> Any:
        """The base generator of ``spec``, bound to ``context`` (``None``: unbound, to check the table)."""
        from recoursesim import registry  # the registry imports this package

        return registry.build("recourse", spec, section="base", context=context)

    @property
    def actions_(self) -> MixedActionSet | None:
        """The base generator's action set."""
        return action_set_of(self.base_)

    def cost(self, moves: np.ndarray) -> np.ndarray:
        """The base generator's price of each move."""
        return np.asarray(self.base_.cost(moves), dtype=float)

    def recommend(
        self, features: np.ndarray, scores: np.ndarray, threshold: float | np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        """The stronger recommendation where one exists, else the base's; agents at the cut-off stay put."""
        features = np.asarray(features, dtype=float)
        scores = np.asarray(scores, dtype=float)
        n = features.shape[0]
        limit = np.broadcast_to(np.asarray(threshold, dtype=float), (n,))
        self.prepare(features, scores, limit, scorer)
        recommendation = features.copy()
        strong = np.zeros(n, dtype=bool)
        reports = reported_found(self.base_) is not None
        found = np.ones(n, dtype=bool)
        rows = np.flatnonzero(scores < limit)
        if rows.size:
            moved, ok = self.strengthen(features[rows], scores[rows], limit[rows], scorer)
            ok &= np.asarray(scorer.score(moved), dtype=float) >= limit[rows]
            if self.actions_ is not None:
                ok &= self.actions_.is_valid(features[rows], moved)
            recommendation[rows[ok]] = moved[ok]
            strong[rows[ok]] = True
            rest = rows[~ok]
            if rest.size:
                plain = np.asarray(self.base_.recommend(features[rest], scores[rest], limit[rest], scorer), dtype=float)
                recommendation[rest] = plain
                if reports:
                    found[rest] = np.asarray(self.base_.found_, dtype=bool)
        self.strengthened_ = strong
        if reports:
            self.found_ = found
        return recommendation

    def prepare(self, features: np.ndarray, scores: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> None:
        """Learn from this call before recommending (the margin generator keeps its history here)."""

    @abstractmethod
    def strengthen(
        self, features: np.ndarray, scores: np.ndarray, threshold: np.ndarray, scorer: Scorer
    ) -> tuple[np.ndarray, np.ndarray]:
        """Stronger points for agents below ``threshold``, and whether each was found."""


def margin_scale(scorer: Scorer, scores: np.ndarray, threshold: np.ndarray) -> str:
    """The link from the scorer's margin to its score: the scorer's own, else ``logistic`` for probabilities."""
    exact = margin_of(scorer)
    if exact is not None:
        return exact[1]
    return link_of(scores, threshold)
