"""Exact counterfactual scoring of a logistic model from its coefficients, without calling it per row.

The registry's logistic model (:mod:`recoursesim.auditors.facts.models`: :class:`FrameEncoder`
then scikit-learn's ``LogisticRegression``) predicts the class ``classes_[1]`` exactly when its
decision value ``intercept + sum of coef * encoded column`` is above 0. Each feature contributes
one *term* that depends only on that feature's value code, so a counterfactual's decision value is
the sum of the terms of its context (the individual's values outside the action's features) and
the terms of the action. The terms are computed once per (feature, code) from the encoder's reading
of the coefficients (:meth:`~recoursesim.scoring.encoding.OneHotStandardiser.column_terms`: a
category's coefficient, or a number's slope per raw unit times its value).

Adding the terms so, rather than as the model does (centring and scaling each number first), changes
the sum by at most a few units in the last place of the largest magnitude involved,
:attr:`LinearCodes.bound`. The
scorer compares the context's sum with minus the action's sum, which is exact, and wherever the
two are closer than :data:`TIE_TOLERANCE` times the bound (far more than any rounding), it builds
the counterfactual row and lets the model decide. The predictions are therefore the model's own, at
the cost of one comparison per (individual, action) instead of a model call per distinct row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.mining import mask_columns
from recoursesim.auditors.facts.models import FrameEncoder

#: Decision values within this fraction of the magnitude of 0 are left to the model.
TIE_TOLERANCE = 1e-9

#: (individual, action) entries decided per block (bounds memory).
BLOCK_ENTRIES = 1_000_000


@dataclass(frozen=True)
class LinearCodes:
    """The decision terms of a logistic model per feature and value code.

    Attributes:
        terms: Per feature, the decision term of each value code.
        intercept: The model's intercept.
        favourable_above: Whether the favourable label is the one predicted above 0 (``classes_[1]``).
        intercept_parts: The sum of the magnitudes the intercept was formed from (the model's own
            intercept and each number's slope times its mean), or 0 if it is the model's own.
    """

    terms: tuple[np.ndarray, ...]
    intercept: float
    favourable_above: bool
    intercept_parts: float = 0.0

    @property
    def bound(self) -> float:
        """Return the largest magnitude a row's sum involves: its terms' and the intercept's parts."""
        largest = sum(float(np.abs(t).max(initial=0.0)) for t in self.terms)
        return max(abs(self.intercept), self.intercept_parts) + largest

    def row_terms(self, codes: np.ndarray) -> np.ndarray:
        """Return the ``(n, d)`` term of each feature of each row of a full code matrix (no missing values)."""
        return np.column_stack([self.terms[j][codes[:, j]] for j in range(codes.shape[1])])

    def sum(self, codes: np.ndarray, columns: list[int]) -> np.ndarray:
        """Return the sum of the terms of ``columns`` for each row of ``codes`` (one column per feature listed)."""
        return np.column_stack([self.terms[j][codes[:, i]] for i, j in enumerate(columns)]).sum(axis=1)


def linear_codes(model: Any, space: ItemSpace, positive_label: object) -> LinearCodes | None:
    """Return the model's decision terms when it is the registry's logistic pipeline, else ``None``.

    ``None`` (score with ``model.predict``) unless ``model`` is a fitted scikit-learn ``Pipeline``
    of exactly a :class:`FrameEncoder` and a binary ``LogisticRegression`` (not a subclass) whose
    classes include ``positive_label``, every encoded column is a feature of ``space``, and no
    value is missing.

    Args:
        model: The audited model.
        space: The encoded data.
        positive_label: The favourable label.
    """
    if not isinstance(model, Pipeline) or len(model.steps) != 2:
        return None
    encoder, classifier = model.steps[0][1], model.steps[1][1]
    if not isinstance(encoder, FrameEncoder) or type(classifier) is not LogisticRegression:
        return None
    if not hasattr(encoder, "n_features_out_") or not hasattr(classifier, "coef_"):
        return None
    classes = list(classifier.classes_)
    coef = np.asarray(classifier.coef_, dtype=float)
    if len(classes) != 2 or positive_label not in classes or coef.shape != (1, encoder.n_features_out_):
        return None
    if not set(encoder.columns_) <= set(space.features) or (space.codes < 0).any() or not space.features:
        return None
    # One probe row per code (row c holds code c of every feature, clipped to its range), read as
    # the model reads it: category codes and numbers, then the model's term of each.
    longest = max(len(values) for values in space.values)
    probe = np.column_stack([np.minimum(np.arange(longest), len(v) - 1) for v in space.values]).astype(np.int32)
    read = encoder.to_codes(space.frame(probe))
    column_terms = encoder.column_terms(coef, classifier.intercept_)
    terms = []
    for j, name in enumerate(space.features):
        k = len(space.values[j])
        if name not in encoder.columns_:
            terms.append(np.zeros(k))
            continue
        column = encoder.columns_.index(name)
        raw = read[:k, column]
        block = column_terms.blocks[column]
        if encoder.numeric_[column]:
            terms.append(column_terms.slopes[column] * raw)
        else:
            code = np.rint(raw).astype(np.int64)
            known = (code >= 0) & (code < block.size)
            terms.append(np.append(block, 0.0)[np.where(known, code, block.size)])  # unknown: the 0 appended
    shifts = column_terms.slopes[encoder.numeric_] * encoder.mean_
    parts = abs(float(np.ravel(classifier.intercept_)[0])) + float(np.abs(shifts).sum())
    return LinearCodes(tuple(terms), column_terms.constant, classes[1] == positive_label, parts)


class LinearScorer:
    """Score (individual, action) counterfactuals from a logistic model's terms.

    Same use as :class:`recoursesim.auditors.facts.counterfactuals.CounterfactualScorer`:
    :meth:`add` one plan per action feature mask, :meth:`run`, then read each plan's :meth:`result`.

    Args:
        linear: The model's terms.
        codes: ``(n, d)`` code matrix of the individuals the plans refer to.
        predict: Maps a code matrix to a boolean array (the model), asked near decision value 0.

    Attributes:
        n_rows: Counterfactual rows the model was asked about (near-ties).
        n_applications: (individual, action) applications queued.
        n_calls: Calls of ``predict``.
    """

    def __init__(self, linear: LinearCodes, codes: np.ndarray, predict: Callable[[np.ndarray], np.ndarray]) -> None:
        self.linear = linear
        self.codes = codes
        self.predict = predict
        self.terms = linear.row_terms(codes) if len(codes) else np.zeros(codes.shape)
        self.tolerance = TIE_TOLERANCE * linear.bound
        self.plans: list[tuple[list[int], np.ndarray, np.ndarray, np.ndarray]] = []
        self.n_rows = 0
        self.n_applications = 0
        self.n_calls = 0

    def add(self, fmask: int, avalues: np.ndarray, rows: np.ndarray) -> None:
        """Queue applying each of ``avalues`` (``(k, d)`` action rows fixing ``fmask``) to ``codes[rows]``."""
        fcols = mask_columns(fmask, self.codes.shape[1])
        self.plans.append((fcols, avalues, rows, avalues[:, fcols]))
        self.n_applications += len(rows) * len(avalues)

    def run(self) -> None:
        """Nothing to batch: each plan is scored when it is read."""

    def result(self, plan_index: int) -> np.ndarray:
        """Return ``(len(rows), k)``: does each action of plan ``plan_index`` work for each of its rows."""
        fcols, _, rows, on_f = self.plans[plan_index]
        context = [j for j in range(self.codes.shape[1]) if j not in set(fcols)]
        threshold = -self.linear.sum(on_f, fcols)  # the action works where the context's sum exceeds it
        works = np.empty((len(rows), len(on_f)), dtype=bool)
        step = max(1, BLOCK_ENTRIES // max(1, len(on_f)))
        for lo in range(0, len(rows), step):
            block = rows[lo : lo + step]
            works[lo : lo + step] = self._decide(block, context, fcols, on_f, threshold)
        return works

    def _decide(
        self, rows: np.ndarray, context: list[int], fcols: list[int], on_f: np.ndarray, threshold: np.ndarray
    ) -> np.ndarray:
        """Return whether each action works for each of ``rows``; ask the model about near-ties."""
        value = self.terms[np.ix_(rows, context)].sum(axis=1) + self.linear.intercept
        above = value[:, None] > threshold[None, :]
        works = above if self.linear.favourable_above else ~above
        near = (value[:, None] >= (threshold - self.tolerance)[None, :]) & (
            value[:, None] <= (threshold + self.tolerance)[None, :]
        )
        if near.any():
            who, which = np.nonzero(near)
            counterfactual = self.codes[rows[who]]
            counterfactual[:, fcols] = on_f[which]
            works[who, which] = self.predict(counterfactual)
            self.n_rows += len(who)
            self.n_calls += 1
        return works
