"""Exact counterfactual scoring of a logistic model from its coefficients, without calling it per row.

The registry's logistic model (:mod:`recoursesim.auditors.facts.models`: :class:`FrameEncoder`
then scikit-learn's ``LogisticRegression``) predicts the class ``classes_[1]`` exactly when its
decision value ``intercept + sum of coef * encoded column`` is above 0. Each feature contributes
one *term* that depends only on that feature's value code, so a counterfactual's decision value is
the sum of the terms of its context (the individual's values outside the action's features) and
the terms of the action. The terms are computed once per (feature, code) by the model's own
encoder and coefficients.

Adding the terms in another order than the model does changes the sum by at most a few units in
the last place of the sum of the absolute terms (the *magnitude*). Wherever the decision value lies
within :data:`TIE_TOLERANCE` times the magnitude of 0, the counterfactual row is built and the
model itself decides. The predictions are therefore the model's own, bit for bit, at the cost of a
few additions per (individual, action) instead of a model call per distinct row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from recoursesim.auditors.facts.encoding import ItemSpace
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
    """

    terms: tuple[np.ndarray, ...]
    intercept: float
    favourable_above: bool

    def part(self, codes: np.ndarray, columns: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Return the summed terms and absolute terms of ``columns`` for each row of ``codes``.

        Args:
            codes: ``(n, c)`` value codes (no missing values) of the features ``columns``.
            columns: The feature index of each column of ``codes``.
        """
        value = np.zeros(len(codes))
        magnitude = np.zeros(len(codes))
        for position, j in enumerate(columns):
            term = self.terms[j][codes[:, position]]
            value += term
            magnitude += np.abs(term)
        return value, magnitude


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
    if not hasattr(encoder, "columns_") or not hasattr(classifier, "coef_"):
        return None
    classes = list(classifier.classes_)
    coef = np.asarray(classifier.coef_, dtype=float)
    if len(classes) != 2 or positive_label not in classes or coef.shape != (1, encoder.n_features_out_):
        return None
    if not set(encoder.columns_) <= set(space.features) or (space.codes < 0).any() or not space.features:
        return None
    # Encode one probe row per code (row c holds code c of every feature, clipped to its range)
    # with the model's own encoder, so each term is the exact product the model computes.
    longest = max(len(values) for values in space.values)
    probe = np.column_stack([np.minimum(np.arange(longest), len(v) - 1) for v in space.values]).astype(np.int32)
    encoded = encoder.transform(space.frame(probe))
    matrix = encoded.toarray() if sparse.issparse(encoded) else np.asarray(encoded, dtype=float)
    weights = coef[0]
    spans, start = {}, 0
    for column in encoder.columns_:
        width = 1 if column in encoder.numeric_ else len(encoder.categories_[column])
        spans[column] = (start, start + width)
        start += width
    terms = []
    for j, name in enumerate(space.features):
        k = len(space.values[j])
        if name not in spans:
            terms.append(np.zeros(k))
            continue
        lo, hi = spans[name]
        # A numeric column has one product; a one-hot block at most one non-zero: exact either way.
        terms.append((matrix[:k, lo:hi] * weights[None, lo:hi]).sum(axis=1))
    return LinearCodes(tuple(terms), float(classifier.intercept_[0]), classes[1] == positive_label)


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
        self.plans: list[tuple[list[int], np.ndarray, np.ndarray, np.ndarray]] = []
        self.n_rows = 0
        self.n_applications = 0
        self.n_calls = 0

    def add(self, fmask: int, avalues: np.ndarray, rows: np.ndarray) -> None:
        """Queue applying each of ``avalues`` (full-width action rows) to ``codes[rows]``.

        Args:
            fmask: Feature mask ``F`` the actions fix.
            avalues: ``(k, d)`` action rows (value codes on ``F``).
            rows: Indices into ``codes`` of the individuals to apply them to.
        """
        d = self.codes.shape[1]
        fcols = [j for j in range(d) if fmask >> j & 1]
        self.plans.append((fcols, avalues, rows, avalues[:, fcols]))
        self.n_applications += len(rows) * len(avalues)

    def run(self) -> None:
        """Nothing to batch: each plan is scored when it is read."""

    def result(self, plan_index: int) -> np.ndarray:
        """Return ``(len(rows), k)``: does each action work for each queued row.

        Args:
            plan_index: Position of the plan in the order of :meth:`add` calls.
        """
        fcols, _, rows, on_f = self.plans[plan_index]
        context = [j for j in range(self.codes.shape[1]) if j not in set(fcols)]
        a_value, a_size = self.linear.part(on_f, fcols)
        works = np.empty((len(rows), len(on_f)), dtype=bool)
        step = max(1, BLOCK_ENTRIES // max(1, len(on_f)))
        for lo in range(0, len(rows), step):
            block = rows[lo : lo + step]
            works[lo : lo + step] = self._decide(block, context, fcols, on_f, a_value, a_size)
        return works

    def _decide(
        self,
        rows: np.ndarray,
        context: list[int],
        fcols: list[int],
        on_f: np.ndarray,
        a_value: np.ndarray,
        a_size: np.ndarray,
    ) -> np.ndarray:
        """Return whether each action works for each of ``rows``; ask the model about near-ties."""
        c_value, c_size = self.linear.part(self.codes[rows][:, context], context)
        intercept = self.linear.intercept
        value = (c_value + intercept)[:, None] + a_value[None, :]
        unsure = np.abs(value) <= TIE_TOLERANCE * ((c_size + abs(intercept))[:, None] + a_size[None, :])
        above = value > 0
        works = above if self.linear.favourable_above else ~above
        if unsure.any():
            who, which = np.nonzero(unsure)
            counterfactual = self.codes[rows[who]]
            counterfactual[:, fcols] = on_f[which]
            works[who, which] = self.predict(counterfactual)
            self.n_rows += len(who)
            self.n_calls += 1
        return works
