"""Outcome models: the true (not the decision model's) answer to "is this agent qualified?"."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from recoursesim._validate import check_float
from recoursesim.errors import ConfigError
from recoursesim.features.capabilities import OffersLabelledRows
from recoursesim.scoring.base import Scorer, standardised_terms

#: Outcome model names a scenario can give.
OUTCOMES: tuple[str, ...] = ("linear", "decision", "fitted")


@runtime_checkable
class OutcomeModel(Protocol):
    """Says who is truly qualified, from the agents' *true* features."""

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return one boolean per row of ``features``."""
        ...


class LinearOutcome:
    """Qualified when ``weights · z >= cutoff`` (a stated function of the latent qualification).

    Args:
        weights: One weight per feature (0 for features that do not matter).
        cutoff: The qualification cut-off.
    """

    def __init__(self, weights: np.ndarray, cutoff: float) -> None:
        self.weights = np.asarray(weights, dtype=float)
        self.cutoff = float(cutoff)

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return ``features @ weights >= cutoff``."""
        return np.asarray(features, dtype=float) @ self.weights >= self.cutoff


class DecisionOutcome:
    """Qualified when a fixed scorer (for example the step-0 decision model) scores ``>= cutoff``.

    Args:
        scorer: The scorer that defines qualification.
        cutoff: The score cut-off.
    """

    def __init__(self, scorer: Scorer, cutoff: float) -> None:
        self.scorer = scorer
        self.cutoff = float(cutoff)

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return ``scorer.score(features) >= cutoff``."""
        return np.asarray(self.scorer.score(np.asarray(features, dtype=float)), dtype=float) >= self.cutoff


class FittedOutcome:
    """Qualified when a logistic regression fitted on all labelled rows gives ``P(y = 1) >= cutoff``.

    This is an assumption, not a fact about the data: it treats the best logistic fit of the
    labels on the agents' features as the true outcome. Categorical features (by their column
    index in the agents' feature codes) are one-hot encoded, the others standardised. After the
    fit the model is kept as its margin (a lookup table per categorical feature plus a linear
    term), so judging thousands of agents every step costs one vectorised sum. The fit depends only
    on the labelled rows, so a process keeps it (for up to eight data sets) and the next run or seed
    on the same rows reuses it instead of refitting.

    Args:
        features: ``(n, d)`` every labelled row, in the agents' feature space.
        labels: ``(n,)`` their 0/1 labels.
        cutoff: The probability cut-off (in (0, 1)).
        categorical: Column indices of categorical features.
    """

    def __init__(
        self, features: np.ndarray, labels: np.ndarray, cutoff: float = 0.5, categorical: Sequence[int] = ()
    ) -> None:
        features = np.asarray(features, dtype=float)
        self.cutoff = check_float("cutoff", cutoff, minimum=0.0, maximum=1.0)
        if not 0.0 < self.cutoff < 1.0:
            raise ConfigError("cutoff", f"must lie strictly between 0 and 1, got {cutoff}", "use e.g. 0.5")
        self.categorical = [int(j) for j in categorical]
        self.numeric = [j for j in range(features.shape[1]) if j not in set(self.categorical)]
        labels = np.asarray(labels).astype(int)
        key = _fit_key(features, labels, self.categorical)
        if key not in _FITS:
            if len(_FITS) >= _MAX_FITS:
                _FITS.pop(next(iter(_FITS)))
            _FITS[key] = _fit_margin(features, labels, self.categorical, self.numeric)
        self._tables, self._weights, self._intercept = _FITS[key]
        self._lookup = _dense_lookup(self._tables)
        self._margin_cut = float(np.log(self.cutoff / (1.0 - self.cutoff)))

    def margin(self, features: np.ndarray) -> np.ndarray:
        """The fitted model's log-odds of ``y = 1`` for each row."""
        features = np.asarray(features, dtype=float)
        margin = features[:, self.numeric] @ self._weights + self._intercept
        if self._lookup is not None:  # integer codes: one gather for every categorical column
            table, offsets, sizes = self._lookup
            values = features[:, self.categorical]
            with np.errstate(invalid="ignore"):  # NaN codes are unknown, like any other unseen value
                codes = np.clip(values, -1, sizes).astype(np.int64)
            known = (codes == values) & (codes >= 0) & (codes < sizes)
            terms = table[np.where(known, codes, sizes) + offsets]  # slot ``sizes`` of each column holds 0
            for column in range(terms.shape[1]):  # column by column, as the searchsorted path adds them
                margin += terms[:, column]
            return margin
        for column, (codes, weights) in zip(self.categorical, self._tables, strict=True):
            position = np.clip(np.searchsorted(codes, features[:, column]), 0, codes.size - 1)
            known = codes[position] == features[:, column]
            margin += np.where(known, weights[position], 0.0)
        return margin

    def qualified(self, features: np.ndarray) -> np.ndarray:
        """Return ``P(y = 1 | features) >= cutoff`` under the fitted model."""
        return self.margin(features) >= self._margin_cut


#: Fitted margins by data set (see :func:`_fit_key`): runs and seeds of one scenario in a process fit once.
_FITS: dict[bytes, tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, float]] = {}
_MAX_FITS = 8


def _fit_key(features: np.ndarray, labels: np.ndarray, categorical: Sequence[int]) -> bytes:
    """A digest of everything the fit depends on (the rows, the labels, which columns are categorical)."""
    digest = hashlib.blake2b(digest_size=20)
    for part in (np.asarray(features.shape), np.ascontiguousarray(features), labels, np.asarray(categorical)):
        digest.update(np.ascontiguousarray(part).tobytes())
        digest.update(b"|")
    return digest.digest()


def _fit_margin(
    features: np.ndarray, labels: np.ndarray, categorical: list[int], numeric: list[int]
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, float]:
    """Fit the one-hot + standardised logistic regression; return it as its margin.

    Returns:
        Per categorical column ``(codes, weights)``, the weights of the raw numeric columns, the intercept.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from recoursesim.threads import single_threaded

    encoder = OneHotEncoder(handle_unknown="ignore")
    scaler = StandardScaler()
    model = LogisticRegression(max_iter=2000)
    transform = ColumnTransformer([("categorical", encoder, categorical), ("numeric", scaler, numeric)])
    with single_threaded():
        make_pipeline(transform, model).fit(features, labels)
    encoder = transform.named_transformers_["categorical"]  # the fitted clones
    scaler = transform.named_transformers_["numeric"]
    categories = list(encoder.categories_) if categorical else []
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0) if numeric else np.ones(0)
    mean = scaler.mean_ if numeric else np.zeros(0)
    blocks, weights, intercept = standardised_terms(
        model.coef_[0], model.intercept_, [len(codes) for codes in categories], mean, scale
    )
    tables = [
        (_frozen(np.asarray(codes, dtype=float)), _frozen(block.copy()))
        for codes, block in zip(categories, blocks, strict=True)
    ]
    return tables, _frozen(weights), intercept


def _dense_lookup(tables: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One flat table of the categorical weights indexed by integer code, when every code is a small integer.

    Column ``j`` occupies ``sizes[j] + 1`` slots from ``offsets[j]``: slot ``c`` holds the weight of
    code ``c`` (0 for codes the fit did not see) and the last slot 0 (codes out of range). ``None``
    when some code is negative, fractional or above 4096 (the searchsorted path handles those).
    """
    if not tables or not all(
        codes.size and np.all(codes == np.round(codes)) and codes.min() >= 0 and codes.max() < 4096
        for codes, _ in tables
    ):
        return None
    sizes = np.array([int(codes.max()) + 1 for codes, _ in tables], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes + 1)[:-1]]).astype(np.int64)
    table = np.zeros(int(np.sum(sizes + 1)))
    for (codes, weights), offset in zip(tables, offsets, strict=True):
        table[offset + codes.astype(np.int64)] = weights
    return table, offsets, sizes


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def labelled_rows(population: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Every labelled row ``(features, labels)`` of a population's data set, or ``None`` if it has no labels.

    A population offers them through a ``labelled_rows()`` method
    (:class:`~recoursesim.features.capabilities.OffersLabelledRows`), as the ``dataset``
    population does.
    """
    return population.labelled_rows() if isinstance(population, OffersLabelledRows) else None


def weight_vector(weights: object, feature_names: Sequence[str]) -> np.ndarray:
    """Turn a ``{feature: weight}`` table into one weight per feature (unlisted features weigh 0)."""
    if not isinstance(weights, Mapping) or not weights:
        raise ConfigError(
            "weights", f"must be a table of feature weights, got {weights!r}", "write weights = {x0 = 1.0}"
        )
    check_feature_names("weights", list(weights), feature_names)
    vector = np.zeros(len(feature_names))
    for name, value in weights.items():
        vector[list(feature_names).index(name)] = check_float(f"weights.{name}", value)
    if not np.any(vector):
        raise ConfigError("weights", "are all zero", "give at least one feature a non-zero weight")
    return vector


def check_feature_names(field: str, given: Sequence[object], feature_names: Sequence[str]) -> None:
    """Raise a :class:`ConfigError` naming the first entry of ``given`` that is not a feature."""
    unknown = [name for name in given if name not in feature_names]
    if unknown:
        raise ConfigError(
            field, f"unknown feature {unknown[0]!r}", f"use features of the population: {', '.join(feature_names)}"
        )
