"""Scikit-learn models on mixed-type populations: code-space rows are decoded to a DataFrame first."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, Self

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.utils.validation import check_is_fitted

from recoursesim._validate import check_choice, check_str, check_table
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError, first_line
from recoursesim.features.capabilities import OffersTrainingData, schema_of
from recoursesim.features.schema import FeatureSchema
from recoursesim.registry import register
from recoursesim.rng import integer_seed
from recoursesim.scoring.base import Scorer, edited_rows
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.encoding import builtin_pipeline
from recoursesim.scoring.model_confine import refuse_unsafe_params, unknown_category
from recoursesim.scoring.tree_tables import boosting_tables
from recoursesim.threads import fit_single_threaded, single_threaded

#: Built-in decision models by name: a factory taking keyword parameters.
MODELS: dict[str, Callable[..., Any]] = {
    "logistic": lambda **p: LogisticRegression(**{"max_iter": 1000, **p}),
    "random_forest": lambda **p: RandomForestClassifier(**{"n_estimators": 100, "min_samples_leaf": 5, **p}),
    "gradient_boosting": lambda **p: HistGradientBoostingClassifier(**{"max_iter": 100, "early_stopping": True, **p}),
    "mlp": lambda **p: MLPClassifier(**{"hidden_layer_sizes": (32,), "max_iter": 1000, "early_stopping": True, **p}),
}


#: Most rows per prediction call. A tree ensemble walks the whole batch once per tree, so a block
#: that stays in the processor's cache is scored faster per row than one large batch (measured:
#: 2,048-row blocks score a 40,000-row batch for the built-in gradient boosting on Adult 2x faster).
PREDICT_BATCH_ROWS = 2048


def make_model(name: str, params: Mapping[str, Any] | None = None, field: str = "model") -> Any:
    """Return an unfitted built-in classifier (see :data:`MODELS`).

    Raises:
        ConfigError: unknown name or parameters the classifier does not accept.
    """
    if name not in MODELS:
        raise ConfigError(field, f"unknown model {name!r}", f"use one of {', '.join(MODELS)}")
    return construct_estimator(MODELS[name], params, "params", name)


def construct_estimator(factory: Callable[..., Any], params: Mapping[str, Any] | None, field: str, name: str) -> Any:
    """Build a scikit-learn estimator and check its parameters now, not when it is first fitted.

    Scikit-learn checks most parameter values (``C = -1``, ``max_depth = "deep"``) only in ``fit``,
    which a run reaches after loading the data; checking them here lets a scenario fail at load.

    Args:
        factory: The estimator class (or a function returning an estimator).
        params: Its constructor parameters.
        field: The scenario table holding the parameters (``"params"``, ``"estimator_params"``).
        name: The estimator's name in the scenario, for the fix.

    Raises:
        ConfigError: a parameter the estimator does not take, or a value it refuses; the field
            names the parameter when scikit-learn says which one it is.
    """
    params = dict(params or {})
    refuse_unsafe_params(params, field)
    try:
        estimator = factory(**params)
        validate = getattr(estimator, "_validate_params", None)  # scikit-learn >= 1.2
        if callable(validate):
            validate()
    except (TypeError, ValueError) as error:
        text = first_line(error).rstrip(".")
        unknown = re.search(r"keyword argument '(\w+)'", text)
        named = re.search(r"The '(\w+)' parameter", text) or unknown
        where = f"{field}.{named.group(1)}" if named else field
        listed = ", ".join(sorted(estimator_parameters(factory)))
        fix = f"use one of its parameters: {listed}" if unknown else f"give a value the {name} model accepts"
        raise ConfigError(where, text, fix) from None
    return estimator


def estimator_parameters(factory: Callable[..., Any]) -> list[str]:
    """The constructor parameters of the estimator ``factory`` builds (with its defaults)."""
    try:
        return list(factory().get_params(deep=False))
    except Exception:  # a factory needing arguments: no list to offer
        return []


class TabularModel(ClassifierMixin, BaseEstimator):
    """A classifier on code-space arrays of a mixed-type population.

    With ``input = "frame"`` rows are decoded with the schema into a DataFrame in the data set's
    own values (categories as pandas ``Categorical``) and given to ``estimator``: any
    scikit-learn classifier or ``Pipeline`` that takes such a DataFrame. With ``input = "codes"``
    the code-space array goes to ``estimator`` as is (the built-in models, whose pipeline starts
    with a :class:`CodeEncoder`). Predictions run single-threaded (the batches are small and
    the machine's cores run several simulations), in blocks of at most
    :data:`PREDICT_BATCH_ROWS` rows. Trainers clone and refit it like any estimator.

    Args:
        schema: The population's feature schema.
        estimator: The classifier or pipeline (unfitted; see :meth:`prefitted` for a fitted one).
        input: ``"frame"`` or ``"codes"``.
        random_state: Given at fit to every ``random_state`` of the wrapped estimator that is
            ``None`` (one the estimator fixes is kept).
        columns: With ``input = "frame"``, the columns the estimator takes, in its order (default:
            every feature of the schema, in schema order).
    """

    def __init__(
        self,
        schema: FeatureSchema | None = None,
        estimator: Any = None,
        input: str = "frame",
        random_state: int | None = None,
        columns: tuple[str, ...] | None = None,
    ) -> None:
        self.schema = schema
        self.estimator = estimator
        self.input = input
        self.random_state = random_state
        self.columns = columns

    @classmethod
    def prefitted(
        cls, schema: FeatureSchema, estimator: Any, input: str = "frame", columns: tuple[str, ...] | None = None
    ) -> TabularModel:
        """Wrap an already fitted classifier or pipeline."""
        check_is_fitted(estimator)
        model = cls(schema, estimator, input, columns=columns)
        model.estimator_ = estimator
        model.classes_ = np.asarray(estimator.classes_)
        return model

    def fit(self, X: np.ndarray, y: np.ndarray) -> Self:
        """Fit a clone of ``estimator`` on the (decoded) rows."""
        if self.schema is None or self.estimator is None:
            raise ConfigError(
                "estimator", "TabularModel needs a schema and an estimator", "pass schema= and estimator="
            )
        estimator = clone(self.estimator)
        if self.random_state is not None:  # fills the random states left open; a fixed one is kept
            params = estimator.get_params()
            keys = [k for k, v in params.items() if (k == "random_state" or k.endswith("__random_state")) and v is None]
            estimator.set_params(**dict.fromkeys(keys, self.random_state))
        self.estimator_ = estimator.fit(self._input(X), y)
        self.classes_ = np.asarray(self.estimator_.classes_)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities of the rows."""
        return self._call("predict_proba", X)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Decision values of the rows (when the estimator has them)."""
        return self._call("decision_function", X)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted classes of the rows."""
        return self._call("predict", X)

    def predict_edits(
        self, method: str, base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray
    ) -> np.ndarray:
        """``method`` (``"predict_proba"`` or ``"decision_function"``) of :func:`~recoursesim.scoring.base.edited_rows`.

        The built-in gradient boosting scores them by its leaf tables without building the rows
        (:meth:`~recoursesim.scoring.tree_tables.BoostingTables.raw_edits`); any other model gets the rows built.
        """
        check_is_fitted(self, "estimator_")
        if self.input == "codes" and method in ("predict_proba", "decision_function") and np.size(agent):
            tables = boosting_tables(self.estimator_)
            if tables is not None:
                edits = (base, agent, column, value)
                return tables.proba_edits(*edits) if method == "predict_proba" else tables.raw_edits(*edits)
        return self._call(method, edited_rows(base, agent, column, value))

    def _input(self, X: np.ndarray) -> Any:
        assert self.schema is not None
        if self.input != "frame":
            return np.asarray(X, dtype=float)
        frame = self.schema.decode(X)
        return frame if self.columns is None else frame[list(self.columns)]

    def _call(self, method: str, X: np.ndarray) -> np.ndarray:
        check_is_fitted(self, "estimator_")
        if self.input == "codes" and method in ("predict_proba", "decision_function") and len(X):
            tables = boosting_tables(self.estimator_)  # the built-in gradient boosting: same numbers, faster
            if tables is not None:
                return tables.proba(X) if method == "predict_proba" else tables.raw(X)
        n, batch = len(X), PREDICT_BATCH_ROWS
        with single_threaded():
            if n <= batch:
                return self._call_estimator(method, X)
            return np.concatenate([self._call_estimator(method, X[at : at + batch]) for at in range(0, n, batch)])

    def _call_estimator(self, method: str, X: np.ndarray) -> np.ndarray:
        """The estimator's ``method`` on the rows; a value its encoder was not fitted on is refused in one line."""
        rows = self._input(X)
        try:
            return np.asarray(getattr(self.estimator_, method)(rows))
        except ValueError as error:
            found = unknown_category(self.estimator_, rows) if "unknown categor" in str(error) else None
            if found is None:
                raise
            column, values = found
            shown = ", ".join(values[:5]) + (f" and {len(values) - 5} more" if len(values) > 5 else "")
            raise ConfigError(
                "scorer",
                f"the model's encoder was not fitted on the value(s) {shown} of column {column!r}, which the run met",
                "refit the model with OneHotEncoder(handle_unknown='ignore'), or on data holding every value",
            ) from None


def tabular_estimator(schema: FeatureSchema, classifier: Any) -> TabularModel:
    """Wrap an unfitted classifier for code-space training data of ``schema`` (built-in encoding)."""
    return TabularModel(schema, builtin_pipeline(schema, classifier), input="codes")


@register("scorer", "model", "sklearn")
class ModelScorer(Component, Scorer):
    """A built-in scikit-learn model, fitted when the run starts on the population's training split.

    The model sits in :func:`builtin_pipeline` (one-hot categorical codes, standardised numbers
    and ordinal ranks) inside a :class:`TabularModel`, and is fitted once, at step 0, on the
    rows the population set aside for training (a dataset population's ``training_data()``),
    which never appear as applicants. The score is the probability of the favourable outcome
    (``output = "proba"``) or the decision value.

    Args:
        model: ``"logistic"``, ``"random_forest"``, ``"gradient_boosting"`` (histogram gradient
            boosting) or ``"mlp"``.
        params: Constructor parameters of the model (for example ``{ max_depth = 3 }``).
        output: ``"proba"`` or ``"decision"``.

    :meth:`bind` keeps the run's feature schema (``schema_``), used when :meth:`prepare` is given
    rows that do not state theirs.
    """

    registered_name: ClassVar[str]  # set by the registry's decorator
    fits_on_population: ClassVar[bool] = True

    def __init__(
        self,
        model: str = "logistic",
        params: Mapping[str, Any] | None = None,
        output: str = "proba",
    ) -> None:
        self.model = model
        self.params = params
        self._params = {} if params is None else dict(check_table("params", params))
        self.output = output
        self._output: Literal["proba", "decision"] = check_choice("output", output, ["proba", "decision"])
        self.schema_: FeatureSchema | None = None
        self._prototype = make_model(check_str("model", model), self._params)
        if output == "decision" and not hasattr(self._prototype, "decision_function"):
            raise ConfigError("output", f"the {model} model has no decision function", 'use output = "proba"')

    def bind(self, context: RunContext) -> Self:
        """Keep the run's feature schema (``schema_``)."""
        self.schema_ = context.schema
        return self

    def prepare(self, population: Any, rng: np.random.Generator) -> ClassifierScorer:
        """Fit the model on ``population.training_data()``; return the fitted scorer."""
        schema = schema_of(population) or self.schema_
        if schema is None or not isinstance(population, OffersTrainingData):
            raise ConfigError(
                "scorer.name",
                f"{self.registered_name!r} is fitted on a dataset population's training rows",
                'use [population] name = "dataset", or a fixed scorer such as "linear"',
            )
        features, labels = population.training_data()
        if np.unique(labels).size < 2:
            raise ConfigError("population", "the training rows have a single outcome", "use more rows or another split")
        estimator = tabular_estimator(schema, clone(self._prototype))
        if "random_state" in self._prototype.get_params() and "random_state" not in self._params:
            estimator.set_params(random_state=integer_seed(rng))
        try:
            fit_single_threaded(estimator, features, labels)
        except ValueError as error:  # a parameter value scikit-learn checks only when fitting
            raise ConfigError(
                "scorer.params",
                f"the {self.model} model could not be fitted ({first_line(error)})",
                f"change that value in [scorer] params (see {type(self._prototype).__name__} in scikit-learn)",
            ) from None
        return ClassifierScorer(estimator, output=self._output)

    def score(self, features: np.ndarray) -> np.ndarray:
        """Not fitted yet: the model is fitted by :meth:`prepare` when a run starts."""
        raise ConfigError(
            "scorer",
            f"the {self.model} model is fitted when a run starts, not before",
            "run the scenario, or call prepare(population, rng) first",
        )


def scorer_from_estimator(estimator: Any, schema: FeatureSchema, output: str = "auto") -> ClassifierScorer:
    """A scorer from any fitted scikit-learn classifier or ``Pipeline`` that takes a DataFrame.

    Example::

        pipeline.fit(frame[list(population.schema.names)], y)
        scorer = scorer_from_estimator(pipeline, population.schema)
    """
    return ClassifierScorer(TabularModel.prefitted(schema, estimator), output=output)  # type: ignore[arg-type]
