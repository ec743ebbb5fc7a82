"""What a scorer is: a function from features to scores, higher is better."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, Self, runtime_checkable

import numpy as np
from scipy.special import expit, logit

if TYPE_CHECKING:
    from recoursesim.component import RunContext
    from recoursesim.features import FeatureSchema


#: Probabilities are clipped to ``[PROBABILITY_CLIP, 1 - PROBABILITY_CLIP]`` before their log-odds are
#: taken (margins stay within about ±27.6 instead of reaching ±inf at 0 and 1).
PROBABILITY_CLIP = 1e-12


def clipped_logit(probability: np.ndarray | float) -> np.ndarray | float:
    """The log-odds of a probability clipped to ``[PROBABILITY_CLIP, 1 - PROBABILITY_CLIP]``."""
    return logit(np.clip(probability, PROBABILITY_CLIP, 1 - PROBABILITY_CLIP))


@dataclass(frozen=True)
class LinearForm:
    """A score that is a monotone link of an affine function: ``score = link(X @ coef + intercept)``.

    Recourse generators use it to turn a score threshold into a hyperplane.

    Attributes:
        coef: ``(d,)`` coefficients.
        intercept: The constant term.
        link: ``"identity"`` or ``"logistic"`` (a probability).
    """

    coef: np.ndarray
    intercept: float
    link: Literal["identity", "logistic"] = "identity"

    def margin(self, features: np.ndarray) -> np.ndarray:
        """Return ``X @ coef + intercept`` (the score before the link)."""
        return features @ self.coef + self.intercept

    def to_margin(self, score: np.ndarray | float) -> np.ndarray | float:
        """Map a score (or threshold) to the margin scale."""
        return score if self.link == "identity" else clipped_logit(score)

    def to_score(self, margin: np.ndarray | float) -> np.ndarray | float:
        """Map a margin to the score scale."""
        return margin if self.link == "identity" else expit(margin)


@dataclass(frozen=True)
class AdditiveForm:
    """A score that is a monotone link of a sum of one function per feature, on mixed-type codes.

    ``margin(x) = intercept + Σ_j slope_j x_j + Σ_j tables_j[x_j]``: numeric and integer features
    enter through ``slope``, ordinal and categorical ones through a table with one entry per code
    (a one-hot encoded logistic regression has this form). ``score = link(margin)``.

    Attributes:
        link: ``"identity"`` or ``"logistic"`` (a probability).
        intercept: The constant term.
        slope: ``(d,)`` margin per unit of each numeric or integer feature (0 for the others).
        tables: Per feature, the margin contribution of each code (discrete features; empty otherwise).
    """

    link: Literal["identity", "logistic"]
    intercept: float
    slope: np.ndarray
    tables: tuple[np.ndarray, ...]

    def contribution(self, features: np.ndarray) -> np.ndarray:
        """``Σ_j g_j(x_j)`` (the margin without the intercept) of each row."""
        features = np.asarray(features, dtype=float)
        out = features @ self.slope
        for j, table in enumerate(self.tables):
            if table.size:
                codes = np.clip(np.rint(features[:, j]), 0, table.size - 1).astype(np.int64)
                out = out + table[codes]
        return out

    def margin(self, features: np.ndarray) -> np.ndarray:
        """The margin (the score before the link) of each row."""
        return self.intercept + self.contribution(features)

    def to_margin(self, score: np.ndarray | float) -> np.ndarray | float:
        """Map a score (or threshold) to the margin scale."""
        return LinearForm(self.slope, self.intercept, self.link).to_margin(score)

    @classmethod
    def from_linear(cls, form: LinearForm, schema: FeatureSchema) -> AdditiveForm:
        """The additive form of a :class:`LinearForm` on ``schema``'s codes (discrete codes enter linearly)."""
        coef = np.asarray(form.coef, dtype=float)
        discrete = schema.is_ordinal | schema.is_categorical
        tables = tuple(
            coef[j] * np.arange(schema.n_categories[j], dtype=float) if discrete[j] else np.zeros(0)
            for j in range(coef.size)
        )
        return cls(form.link, float(form.intercept), np.where(discrete, 0.0, coef), tables)


@runtime_checkable
class Scores(Protocol):
    """Anything that scores rows: what a trainer's ``update`` and ``start`` must return."""

    def score(self, features: np.ndarray) -> np.ndarray:
        """Return one float score per row of ``features``."""
        ...


@runtime_checkable
class Scorer(Scores, Protocol):
    """Scores agents; selection ranks by the score.

    A scorer class subclasses it for the defaults of :meth:`bind`, :meth:`prepare` and
    :attr:`fits_on_population`.
    """

    #: Whether :meth:`prepare` fits the scorer on the population's training rows when a run starts
    #: (in a polyculture market each such lender fits on its own share of them). A subclass that
    #: defines its own ``prepare`` is taken to (see :meth:`__init_subclass__`) unless it says otherwise.
    fits_on_population: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass with a ``prepare`` of its own fits on the population, unless it sets ``fits_on_population``."""
        super().__init_subclass__(**kwargs)
        if "prepare" in vars(cls) and "fits_on_population" not in vars(cls):
            cls.fits_on_population = True

    def score(self, features: np.ndarray) -> np.ndarray:
        """Return one float score per row of ``features``."""
        ...

    def bind(self, context: RunContext) -> Self:
        """Learn what it needs from the run, when the model is built (default: nothing)."""
        return self

    def prepare(self, population: Any, rng: np.random.Generator) -> Scorer:
        """The scorer the run starts with, made once the population is fitted (default: itself)."""
        return self


@runtime_checkable
class StatesLinearForm(Protocol):
    """A scorer that can state its :class:`LinearForm` (``None`` when it has none)."""

    def linear_form(self) -> LinearForm | None:
        """The scorer's linear form, or ``None``."""
        ...


@runtime_checkable
class StatesAdditiveForm(Protocol):
    """A scorer that can state its :class:`AdditiveForm` exactly (``None`` when it has none)."""

    def additive_form(self) -> AdditiveForm | None:
        """The scorer's additive form, or ``None``."""
        ...


@runtime_checkable
class OffersMargin(Protocol):
    """A scorer that offers its margin: ``margin(features)`` and the link from margin to score."""

    def margin_link(self) -> Literal["identity", "logistic"] | None:
        """``"identity"``, ``"logistic"``, or ``None`` when this scorer has no margin after all."""
        ...

    def margin(self, features: np.ndarray) -> np.ndarray:
        """The margin of each row."""
        ...


@runtime_checkable
class ScoresEdits(Protocol):
    """A scorer that scores rows differing from known rows in one feature each (see :func:`score_edits`)."""

    def score_edits(self, base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
        """The same numbers as ``score(edited_rows(base, agent, column, value))``."""
        ...


@runtime_checkable
class PredictsEdits(Protocol):
    """A model that predicts for rows differing from known rows in one feature each (see :func:`edited_rows`)."""

    def predict_edits(
        self, method: str, base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray
    ) -> np.ndarray:
        """The same numbers as ``getattr(self, method)(edited_rows(base, agent, column, value))``."""
        ...


def edited_rows(base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Row ``i`` is ``base[agent[i]]`` with its column ``column[i]`` set to ``value[i]`` (one change per row)."""
    rows = np.asarray(base, dtype=float)[np.asarray(agent, dtype=np.int64)]
    rows[np.arange(rows.shape[0]), np.asarray(column, dtype=np.int64)] = value
    return rows


def score_edits(
    scorer: Scorer, base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray
) -> np.ndarray:
    """``scorer.score(edited_rows(base, agent, column, value))`` as floats, by the scorer's own shortcut if it has one.

    A search scores many rows that are a known row with one feature changed (its probes, its tries
    at undoing a change); a scorer that is a :class:`ScoresEdits` scores them without building
    them, with the same numbers.
    """
    if isinstance(scorer, ScoresEdits):
        return np.asarray(scorer.score_edits(base, agent, column, value), dtype=float)
    return np.asarray(scorer.score(edited_rows(base, agent, column, value)), dtype=float)


def linear_form_of(scorer: Scorer) -> LinearForm | None:
    """Return the scorer's :class:`LinearForm`, or ``None`` if it has none."""
    return scorer.linear_form() if isinstance(scorer, StatesLinearForm) else None


def standardised_terms(
    coef: np.ndarray, intercept: Any, block_sizes: Sequence[int], mean: np.ndarray, scale: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray, float]:
    """Read a linear model fitted on ``[one-hot blocks | standardised columns]`` as terms of the raw columns.

    The margin is ``b + Σ_blocks w_block[code] + Σ_k c_k (x_k - mean_k) / scale_k``, so each
    standardised column's slope per raw unit is ``c_k / scale_k`` and the constant becomes
    ``b - Σ_k (c_k / scale_k) mean_k``.

    Args:
        coef: The model's coefficients (one row), blocks first in ``block_sizes`` order.
        intercept: The model's intercept (a scalar or a one-entry array).
        block_sizes: The width of each one-hot block.
        mean: The standardised columns' means.
        scale: Their scales (no zeros).

    Returns:
        The coefficients of each block, the slope per raw unit of each standardised column, and
        the constant.
    """
    *blocks, rest = np.split(np.asarray(coef, dtype=float).reshape(-1), np.cumsum(block_sizes, dtype=np.int64))
    slopes = rest / scale
    return blocks, slopes, float(np.ravel(intercept)[0]) - float(slopes @ mean)


def additive_form_of(scorer: Scorer, schema: FeatureSchema) -> AdditiveForm | None:
    """The :class:`AdditiveForm` a scorer states exactly (read from its coefficients), or ``None``.

    A scorer states it with a method ``additive_form()`` (:class:`StatesAdditiveForm`, as the
    built-in one-hot logistic model does) or through its :class:`LinearForm`.
    """
    form = scorer.additive_form() if isinstance(scorer, StatesAdditiveForm) else None
    if form is not None:
        return form
    linear = linear_form_of(scorer)
    return None if linear is None else AdditiveForm.from_linear(linear, schema)


def margin_of(scorer: Scorer) -> tuple[Callable[[np.ndarray], np.ndarray], Literal["identity", "logistic"]] | None:
    """A function giving the scorer's margin exactly, and the link from margin to score, or ``None``.

    A probability saturates at 0 or 1 far from the decision boundary, so its log-odds say little
    there; a logistic model's decision function does not. A scorer offers its margin as an
    :class:`OffersMargin` (``margin_link()`` not ``None``); a scorer with a :class:`LinearForm` has one too.
    """
    if isinstance(scorer, OffersMargin):
        link = scorer.margin_link()
        if link is not None:
            return scorer.margin, link
    linear = linear_form_of(scorer)
    return None if linear is None else (linear.margin, linear.link)


@runtime_checkable
class WrapsFittedModel(Protocol):
    """A fitted decision model around a scikit-learn estimator (:class:`~recoursesim.scoring.tabular.TabularModel`).

    Attributes:
        estimator_: The fitted estimator (or pipeline) it calls.
        input: The rows it takes: ``"codes"`` (code space) or ``"frame"`` (the data's own values).
    """

    estimator_: Any
    input: str


@runtime_checkable
class StatesWidth(Protocol):
    """A scorer that says how many features a row has for it (``n_features_in_``, scikit-learn's name)."""

    n_features_in_: int


def width_of(scorer: object) -> int | None:
    """The number of features ``scorer`` reads (:class:`StatesWidth`), or ``None`` if it does not say."""
    return int(scorer.n_features_in_) if isinstance(scorer, StatesWidth) else None


@runtime_checkable
class StatesOutput(Protocol):
    """A scorer that says what its scores are: ``output_`` ``"proba"`` (probabilities) or ``"decision"``."""

    output_: Literal["proba", "decision"]


@runtime_checkable
class WrapsEstimator(Protocol):
    """A scorer around a fitted scikit-learn classifier (``estimator``), which can be cloned and refitted."""

    estimator: Any


def final_estimator(estimator: Any) -> Any:
    """The model at the end of a :class:`~recoursesim.scoring.tabular.TabularModel` and/or ``Pipeline``."""
    while True:
        if isinstance(estimator, WrapsFittedModel):
            estimator = estimator.estimator_
        elif getattr(estimator, "steps", None):
            estimator = estimator.steps[-1][1]
        else:
            return estimator


def model_name(scorer: Scorer) -> str:
    """A readable name of the model behind a scorer (``HistGradientBoostingClassifier``, ``LinearScorer``)."""
    return type(final_estimator(scorer.estimator if isinstance(scorer, WrapsEstimator) else scorer)).__name__


def numeric_scores(values: object, n: int) -> np.ndarray:
    """Return a scorer's output as ``(n,)`` finite float64 scores, or raise naming what it returned.

    Args:
        values: What ``scorer.score`` returned for ``n`` rows.
        n: The number of rows scored.

    Raises:
        DataError: the scores are not numbers (strings, objects), not one per row, or not finite.
    """
    from recoursesim.errors import DataError

    fix = f"make the scorer's score(X) return {n} finite floats, one per row of X (higher is better)"
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        example = repr(array.flat[0]) if array.size else "nothing"
        raise DataError("scorer", f"returned {array.dtype} values such as {example}, not numbers", fix)
    if array.shape != (n,):
        raise DataError("scorer", f"returned an array of shape {array.shape} for {n} rows", fix)
    scores = array.astype(np.float64)
    if not np.all(np.isfinite(scores)):
        first = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise DataError("scorer", f"returned {scores[first]} for row {first}", fix)
    return scores
