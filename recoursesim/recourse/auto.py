"""Pick the recourse generator from the decision model: exact for additive models, search otherwise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from recoursesim._validate import check_table
from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.features import MixedActionSet
from recoursesim.recourse.exact_linear import ExactLinearRecourse
from recoursesim.recourse.mixed import MixedRecourse
from recoursesim.recourse.search import SearchRecourse
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer


@register("recourse", "auto")
@dataclass(eq=False, repr=False)
class AutoRecourse(MixedRecourse):
    """``exact_linear`` when the decision model is additive (linear, one-hot logistic), ``search`` otherwise.

    The choice is made for each model the generator meets (at the first step, and again after
    every refit of a trainer), by the same test ``exact_linear`` applies: the model's additive
    form is read from its coefficients or, failing that, probed and checked (see
    :func:`~recoursesim.recourse.exact_linear.additive_form`). A built-in ``logistic`` model, a
    linear scorer or a pipeline ending in a logistic regression gets the exact optimum; a
    gradient-boosted model, a forest or a neural network gets ``search``. A step whose exact
    solution would not fit in memory (a feature with thousands of categories, see
    :meth:`~recoursesim.recourse.exact_linear.ExactLinearRecourse.memory_needed`) also gets
    ``search``. ``chosen_`` names the generator used for the latest step.

    Args:
        action_set: Constraints (see :class:`~recoursesim.recourse.mixed.MixedRecourse`).
        cost_weights: Feature -> cost multiplier.
        tolerance: Relative error allowed when checking that the model is additive.
        search: Parameters of the ``search`` generator used for non-additive models (for example
            ``{ samples = 32 }``).
    """

    tolerance: float = 1e-6
    search: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        ExactLinearRecourse(tolerance=self.tolerance)  # both generators' parameters are checked now, not when bound
        self._searcher(None)

    def _searcher(self, actions: MixedActionSet | None) -> SearchRecourse:
        """The ``search`` generator with this generator's ``search`` parameters and the action set ``actions``."""
        try:
            params = {} if self.search is None else check_table("search", self.search)
            return SearchRecourse(**params, action_set=actions, cost_weights=self.cost_weights)
        except TypeError as error:  # a key search does not take
            problem = str(error).splitlines()[0]
            raise ConfigError("search", problem, "use parameters of the 'search' generator") from None
        except ConfigError as error:
            raise error.under("search") from None

    def bind(self, context: RunContext) -> Self:
        """Build the action set and cost model (see :class:`MixedRecourse`) and bind both generators to them."""
        super().bind(context)
        shared: dict[str, Any] = {"action_set": self.actions_, "cost_weights": self.cost_weights}
        self.exact_ = ExactLinearRecourse(tolerance=self.tolerance, **shared).bind(context)
        self.search_ = self._searcher(self.actions_).bind(context)
        self.chosen_ = ""
        return self

    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        form = self.exact_.form_of(scorer, features)  # judged once per model (again after a refit)
        if form is not None and self.exact_.fits_in_memory(features.shape[0]):
            self.chosen_ = "exact_linear"
            return self.exact_.solve(features, threshold, scorer, form)
        self.chosen_ = "search"
        return self.search_._search(features, threshold, scorer)
