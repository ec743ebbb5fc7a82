"""The user's own fitted classifier as the decision model: given from Python, or saved with skops.

From Python, ``Scenario.with_inputs(model=pipeline)`` (or ``simulate(..., model=pipeline)``)
attaches the fitted object; from a scenario file, ``[scorer] name = "fitted"`` with
``model_file = "model.skops"`` names a model saved with :func:`skops.io.dump`. Either way the
model is checked against the population before anything runs (:func:`check_fitted_model`): two
classes, the favourable outcome as the positive class, the feature columns it was fitted on, and
one finite score per row on a few rows of the data.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, Self, runtime_checkable

import numpy as np

from recoursesim._validate import check_str
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError, first_line
from recoursesim.features.capabilities import OffersLabelledRows, favourable_outcome_of
from recoursesim.features.schema import FeatureSchema
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer
from recoursesim.scoring.classifier import ClassifierScorer
from recoursesim.scoring.model_confine import confine_model
from recoursesim.scoring.model_trust import check_model_file
from recoursesim.scoring.tabular import TabularModel
from recoursesim.trust import trust_list

#: Rows of the data a fitted model must score before a run starts.
CHECK_ROWS = 16


def load_model_file(path: str | Path, trusted: Sequence[str] = (), field: str = "scorer.model_file") -> Any:
    """Load a fitted model saved with ``skops.io.dump``, building only allowed classes and trusted types.

    The file's ``schema.json`` is read first and every type it names is checked against the
    allow-list of exact classes (:func:`~recoursesim.scoring.model_trust.allowed_types`) and
    ``trusted``, before anything is imported or built; a function, a method or any other name is
    refused in one line. Pickle and joblib files are never loaded. The loaded model is then
    confined (:func:`~recoursesim.scoring.model_confine.confine_model`): no cache folder
    (``memory``), single-process (``n_jobs = None``), sparse matrices and trees checked.

    Args:
        path: The ``.skops`` file.
        trusted: Further type names the person running trusts (``--trust TYPE``; see
            :func:`~recoursesim.scoring.model_trust.trust_list`).
        field: The scenario field that named the file (for error messages).

    Returns:
        The loaded estimator.

    Raises:
        ConfigError: skops is not installed, the file is missing or not a skops file, or it names
            types that are neither allowed nor trusted.
    """
    path = Path(path)
    if path.suffix.lower() in (".pkl", ".pickle", ".joblib"):
        raise ConfigError(
            field,
            f"{path.name} is a pickle/joblib file, which runs code when loaded",
            "save the model with skops.io.dump(model, 'model.skops') and name that file",
        )
    if not path.is_file():
        raise ConfigError(
            field,
            f"file {path} not found",
            "check the path (in a scenario file a relative path starts at that file's folder)",
        )
    try:
        import skops.io as sio
    except ImportError:
        raise ConfigError(
            field, "loading a model file needs the optional skops package", "pip install 'recoursesim[skops]'"
        ) from None
    names = check_model_file(path, trust_list(trusted), field)
    try:
        model = sio.load(path, trusted=names)
    except Exception as error:
        raise ConfigError(
            field, f"{path.name} could not be loaded ({first_line(error)})", "save it again with skops.io.dump"
        ) from None
    return confine_model(model, path.name, field)


def check_fitted_model(
    estimator: Any, schema: FeatureSchema, population: Any, output: str = "auto", field: str = "scorer"
) -> ClassifierScorer:
    """Check a user's fitted classifier against the population and return it as a scorer.

    The model must be a fitted binary classifier with ``predict_proba`` or ``decision_function``
    whose positive class (``classes_[1]``) is the favourable outcome: ``1`` (the labels of
    ``population.training_data()``), ``True``, or the population's favourable target value. If it
    was fitted on a DataFrame, it receives exactly its columns, in its order; they must all be
    features of the population. It must return one finite score per row on a few rows of the data.

    Raises:
        ConfigError: naming what does not fit and how to fix it.
    """
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    name = type(estimator).__name__
    if not (hasattr(estimator, "predict_proba") or hasattr(estimator, "decision_function")):
        raise ConfigError(field, f"{name} has neither predict_proba nor decision_function", "pass a fitted classifier")
    try:
        check_is_fitted(estimator)
    except (NotFittedError, TypeError):
        raise ConfigError(field, f"{name} is not fitted", "fit it on the data first (model.fit(frame, y))") from None
    _check_classes(estimator, population, field)
    columns = _model_columns(estimator, schema, field)
    try:
        scorer = ClassifierScorer(TabularModel.prefitted(schema, estimator, columns=columns), output=output)  # type: ignore[arg-type]
    except ConfigError as error:  # ``output`` is the caller's own parameter, not part of the model
        raise (error if error.field == "output" else error.under(field)) from None
    labelled = population.labelled_rows() if isinstance(population, OffersLabelledRows) else None
    rows = None if labelled is None else labelled[0]
    if rows is not None and len(rows):
        sample = np.asarray(rows[:CHECK_ROWS], dtype=float)
        try:
            scores = np.asarray(scorer.score(sample), dtype=float)
        except ConfigError:  # already one line naming what the data holds that the model does not take
            raise
        except Exception as error:  # the user's model failed on the data: say so in one line
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ConfigError(
                field,
                f"{name} failed to score {len(sample)} rows of the data ({type(error).__name__}: {first})",
                "fit the model on a DataFrame with the data's columns and types (categories as categories)",
            ) from None
        if scores.shape != (len(sample),) or not np.all(np.isfinite(scores)):
            raise ConfigError(
                field, f"{name} did not return one finite score per row (shape {scores.shape})", "check the model"
            )
    return scorer


def _check_classes(estimator: Any, population: Any, field: str) -> None:
    classes = list(np.asarray(getattr(estimator, "classes_", [0, 1])).tolist())
    if len(classes) != 2:
        raise ConfigError(field, f"the model has {len(classes)} classes {classes}", "fit a binary classifier")
    target, favourable = favourable_outcome_of(population)
    accepted = [1, True] if favourable is None else [1, True, favourable]
    if classes[1] in accepted and classes[0] not in accepted:
        return
    shown = favourable.item() if isinstance(favourable, np.generic) else favourable  # 1, not np.int64(1)
    outcome = f"the favourable outcome {shown!r} of {target!r}" if favourable is not None else "1 (favourable)"
    raise ConfigError(
        field,
        f"the model's classes are {classes}, so its positive class {classes[1]!r} is not {outcome}",
        "fit it on y = (target == favourable value), i.e. 1 for the favourable outcome and 0 otherwise",
    )


def _model_columns(estimator: Any, schema: FeatureSchema, field: str) -> tuple[str, ...] | None:
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        n = getattr(estimator, "n_features_in_", None)
        if n is None:
            return None  # nothing recorded: the data's columns are given as they are
        raise ConfigError(
            field,
            f"the model was fitted on an array of {n} columns without names",
            f"fit it on a DataFrame with named columns ({', '.join(schema.names)})",
        )
    names = tuple(str(c) for c in names)
    unknown = [c for c in names if c not in schema.names]
    if unknown:
        raise ConfigError(
            field,
            f"the model was fitted on columns that are not features of the population: {', '.join(unknown)}",
            f"add them to population.features (or feature_types), or refit without them "
            f"(features: {', '.join(schema.names)})",
        )
    return names


@runtime_checkable
class RefitsUserModel(Protocol):
    """A scorer around the user's own model, which a refitting trainer refits clones of."""

    def refit_prototype(self) -> Any:
        """An unfitted clone of the user's model, in code space."""
        ...


@register("scorer", "fitted")
class FittedModelScorer(Component, Scorer):
    """A classifier the user fitted: the object given from Python, or a file saved with skops.

    Its parameters follow the :class:`~recoursesim.component.Component` conventions; the model
    given (``fitted_estimator``) is data, not a hyper-parameter, so :func:`sklearn.base.clone`
    gives a new scorer around the same fitted object instead of an unfitted copy of it (the
    scorer never fits it; a refitting trainer fits clones of it, see :meth:`refit_prototype`).

    Args:
        model_file: A ``.skops`` file (``skops.io.dump(model, path)``); a relative path in a
            scenario file starts at that file's folder (from Python: at the working directory).
            Not needed when the model is given from Python.
        trusted: Types beyond the allow-list that the file may hold, granted by the person running
            (``--trust TYPE``, ``trusted=`` in Python; supplied by the scenario, never a scenario key;
            see :func:`load_model_file`).
        output: ``"auto"`` (probability when the model has one), ``"proba"`` or ``"decision"``.
        fingerprint: Set by :meth:`~recoursesim.scenario.Scenario.with_inputs`: a digest of the
            model given from Python, which makes a sweep's run identities depend on the model.
        fitted_estimator: The model given from Python (supplied by the scenario, never a scenario key).

    :meth:`bind` checks the model against the run's population (its features, outcome and rows)
    and makes the scorer (``scorer_``).
    """

    registered_name: ClassVar[str]
    #: Prepared when a run starts, as a fitted model is (its rows are only checked, never fitted on).
    fits_on_population: ClassVar[bool] = True

    def __init__(
        self,
        model_file: str | None = None,
        trusted: Sequence[str] = (),
        output: Literal["auto", "proba", "decision"] = "auto",
        fingerprint: str | None = None,
        fitted_estimator: Any = None,
    ) -> None:
        self.model_file = model_file
        if model_file is not None and not isinstance(model_file, os.PathLike):
            check_str("model_file", model_file)
        self.trusted = trusted
        trusted_names = trust_list(trusted)
        self.fingerprint = fingerprint
        if fingerprint is not None:
            check_str("fingerprint", fingerprint)
        self.output = output  # checked with the model (check_fitted_model)
        self.fitted_estimator = fitted_estimator
        if fitted_estimator is None and model_file is None:
            if fingerprint is not None:
                raise ConfigError(
                    "model_file",
                    f"the scenario names a model given from Python (fingerprint {fingerprint}), which is not here",
                    "pass it again (model=...), or save it with skops.io.dump and set model_file",
                )
            raise ConfigError("model_file", "is missing", 'name the fitted model: model_file = "model.skops"')
        self.estimator_ = (
            fitted_estimator if fitted_estimator is not None else load_model_file(model_file or "", trusted_names)
        )

    def bind(self, context: RunContext) -> Self:
        """Check the model on the run's population and make the scorer (``scorer_``)."""
        self._schema = context.feature_schema
        field = "model" if self.fitted_estimator is not None else "model_file"
        self.scorer_ = check_fitted_model(self.estimator_, self._schema, context.population, self.output, field=field)
        return self

    def __sklearn_clone__(self) -> FittedModelScorer:
        """A new scorer with the same parameters, around the same fitted model (never refitted here)."""
        return type(self)(**self.get_params(deep=False))

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The parameters; the fitted model's own parameters are not listed (it is data, not a setting)."""
        return super().get_params(deep=False)

    def refit_prototype(self) -> TabularModel:
        """What a refitting trainer fits in each refit: an unfitted clone of the user's model.

        It takes code-space rows like every decision model and gives the user's model the
        population's rows as its own DataFrame (the columns it was fitted on, in its order).
        """
        from sklearn.base import clone

        model = self.scorer_.estimator
        return TabularModel(self._schema, clone(model.estimator), input=model.input, columns=model.columns)

    def prepare(self, population: Any, rng: np.random.Generator) -> ClassifierScorer:
        """The checked scorer (the model is already fitted; ``rng`` is not used)."""
        return self.scorer_

    def score(self, features: np.ndarray) -> np.ndarray:
        """Scores of the model on code-space rows."""
        return self.scorer_.score(features)


def example_fitted_model() -> Any:
    """The model the conformance checks give ``fitted``: a one-hot, scaled logistic pipeline fitted on German credit.

    It is fitted on the rows of the checks' German population (:data:`~recoursesim.component.CHECK_POPULATION`).
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from recoursesim.component import CHECK_POPULATION
    from recoursesim.datasets import load_german
    from recoursesim.registry import build

    schema = build("population", CHECK_POPULATION).schema
    data = load_german()
    frame = data.X[list(schema.names)].dropna()
    labels = data.y.loc[frame.index].to_numpy()
    discrete = [n for n, k in zip(schema.names, schema.kinds, strict=True) if k in ("categorical", "ordinal")]
    onehot = ("onehot", OneHotEncoder(handle_unknown="ignore"), discrete)
    encode = ColumnTransformer([onehot], remainder=StandardScaler())  # unscaled numbers: lbfgs does not converge
    return Pipeline([("encode", encode), ("model", LogisticRegression(max_iter=2000))]).fit(frame, labels)
