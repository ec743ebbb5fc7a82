"""Pick the recourse generator from the decision model: exact for additive models, search otherwise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from recoursesim._validate import check_table
from recoursesim.errors import ConfigError
from recoursesim.recourse.exact_linear import ExactLinearRecourse
from recoursesim.recourse.mixed import MixedRecourse
from recoursesim.recourse.search import SearchRecourse
from recoursesim.registry import register
from recoursesim.scoring.base import AdditiveForm, Scorer

if TYPE_CHECKING:
    from recoursesim.features import FeatureSchema, MixedActionSet


@register("recourse", "auto")
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
        schema: Supplied by the builder.
        action_defaults: Supplied by the builder (the data set's default action set).
        feature_names: Supplied by the model when there is no schema.
    """

    def __init__(
        self,
        action_set: Mapping[str, Any] | MixedActionSet | None = None,
        cost_weights: Mapping[str, float] | None = None,
        tolerance: float = 1e-6,
        search: Mapping[str, Any] | None = None,
        schema: FeatureSchema | None = None,
        action_defaults: Mapping[str, Any] | None = None,
        feature_names: Sequence[str] = ("x0", "x1"),
    ) -> None:
        super().__init__(action_set, cost_weights, schema, action_defaults, feature_names)
        self.tolerance = tolerance
        self.search = search
        shared: dict[str, Any] = {"action_set": self.actions_, "cost_weights": cost_weights, "schema": self.schema_}
        self.exact_ = ExactLinearRecourse(tolerance=tolerance, **shared)
        try:
            self.search_ = SearchRecourse(**({} if search is None else check_table("search", search)), **shared)
        except TypeError as error:  # a key search does not take
            problem = str(error).splitlines()[0]
            raise ConfigError("search", problem, "use parameters of the 'search' generator") from None
        except ConfigError as error:
            raise error.under("search") from None
        self.chosen_ = ""
        self._model: Scorer | None = None
        self._form: AdditiveForm | None = None

    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        if scorer is not self._model:  # a new model (the first, or a refit): decide again
            self._model, self._form = scorer, self.exact_.form_of(scorer, features)
            self.chosen_ = "exact_linear" if self._form is not None else "search"
        exact = self._form is not None and self.exact_.fits_in_memory(features.shape[0])
        self.chosen_ = "exact_linear" if exact else "search"
        if exact:
            assert self._form is not None
            return self.exact_.solve(features, threshold, scorer, self._form)
        return self.search_._search(features, threshold, scorer)
