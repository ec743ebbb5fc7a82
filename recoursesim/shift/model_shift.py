"""Model shift: how far the decision model has moved from the step-0 model."""

from __future__ import annotations

from typing import Any, Self

import numpy as np
import pandas as pd

from recoursesim._validate import check_int
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.features.capabilities import OffersTestSplit
from recoursesim.observers import PopulationSnapshot
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer, StatesOutput, linear_form_of
from recoursesim.shift._common import check_name, cut_off, rows, step_zero


@register("observer", "model_shift")
class ModelShiftObserver(Component):
    """Disagreement, decisiveness, parameter drift and test performance of the current decision model.

    The reference sample is drawn once per run: at most ``reference_size`` agents of the step-0
    population (before anyone acted), with their step-0 scores from the ledger. ``s_0`` is the
    step-0 cut-off (median of per-agent thresholds). At each observation the model that will score
    the next step is compared with the step-0 model:

    - ``disagreement``: share of the reference sample on which the two models' decisions at the
      fixed cut-off ``s_0`` differ (so it measures the model, not the moving cut-off);
    - ``decisiveness``: mean squared distance of the current model's reference scores from ``s_0``
      (a model that pushes scores away from its cut-off is more decisive);
    - ``param_change``: Euclidean norm of the change of ``(coefficients, intercept)`` since step 0,
      for linear models (NaN otherwise);
    - ``accuracy`` and ``auc``: on the population's held-out labelled test split, when it has one
      (decisions at probability 0.5 for probability scores, else at ``s_0``).

    Args:
        every: Observe every ``every`` steps.
        reference_size: At most this many step-0 agents in the reference sample.
        name: Observer name in the observations.

    :meth:`bind` keeps the run's population, whose labelled test split (if any) is used.
    """

    def __init__(self, every: int = 1, reference_size: int = 1000, name: str = "model_shift") -> None:
        self.every = every
        check_int("every", every, minimum=1)
        self.reference_size = reference_size
        check_int("reference_size", reference_size, minimum=1)
        self.name = name
        check_name(name)
        self.population_: Any = None
        self._test: tuple[np.ndarray, np.ndarray] | None = None
        self._state: tuple[np.ndarray, np.ndarray, float, np.ndarray | None] | None = None

    def bind(self, context: RunContext) -> Self:
        """Keep the run's population (``population_``), for its labelled test split."""
        self.population_ = context.population
        return self

    def observe(self, snapshot: PopulationSnapshot) -> pd.DataFrame:
        """Return rows (group NA) ``disagreement, decisiveness, param_change, accuracy, auc``."""
        if self._state is None or snapshot.step == 0:
            self._state = self._reference(snapshot)
            self._test = labelled_test_split(self.population_)  # the population is fitted by now
        sample, initial_scores, s0, initial_params = self._state
        scores = np.asarray(snapshot.scorer.score(sample), dtype=float)
        entries: list[tuple[object, str, float]] = [
            (pd.NA, "disagreement", float(np.mean((scores >= s0) != (initial_scores >= s0)))),
            (pd.NA, "decisiveness", float(np.mean((scores - s0) ** 2))),
        ]
        params = _parameters(snapshot.scorer)
        change = np.nan
        if params is not None and initial_params is not None and params.shape == initial_params.shape:
            change = float(np.linalg.norm(params - initial_params))
        entries.append((pd.NA, "param_change", change))
        if self._test is not None:
            entries += [
                (pd.NA, metric, value) for metric, value in heldout_performance(snapshot.scorer, *self._test, s0)
            ]
        return rows(entries)

    def _reference(self, snapshot: PopulationSnapshot) -> tuple[np.ndarray, np.ndarray, float, np.ndarray | None]:
        record, _ = step_zero(snapshot)
        n = record.agent_id.shape[0]
        take = np.arange(n) if n <= self.reference_size else np.sort(snapshot.rng.choice(n, self.reference_size, False))
        initial = snapshot.initial_scorer
        return (
            np.array(record.features[take], dtype=float),
            np.array(record.score[take], dtype=float),
            cut_off(record.threshold),
            None if initial is None else _parameters(initial),
        )


def labelled_test_split(population: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The population's held-out labelled rows ``(features, labels)`` in agent feature space, if it has them.

    A population offers them with a ``test_split()`` method
    (:class:`~recoursesim.features.capabilities.OffersTestSplit`); the fitted ``dataset``
    population gives the rows of its applicant pool, which the step-0 model was not fitted on.
    Populations without labels give ``None``.
    """
    split = population.test_split() if isinstance(population, OffersTestSplit) else None
    if split is None:
        return None
    features, labels = split
    features = np.asarray(features, dtype=float)
    labels = np.asarray(labels).astype(int)
    if features.ndim != 2 or labels.shape != (features.shape[0],) or np.unique(labels).size < 2:
        raise ConfigError(
            "population",
            "has a test split that is not (features, two-class labels)",
            "make test_split() return (an (n, d) feature array, n labels with both classes)",
        )
    return features, labels


def heldout_performance(scorer: Scorer, features: np.ndarray, labels: np.ndarray, s0: float) -> list[tuple[str, float]]:
    """Accuracy and ROC AUC of ``scorer`` on labelled rows.

    Decisions are at probability 0.5 for a classifier's probabilities, else at ``s0``.
    """
    from sklearn.metrics import roc_auc_score

    scores = np.asarray(scorer.score(features), dtype=float)
    cut = 0.5 if isinstance(scorer, StatesOutput) and scorer.output_ == "proba" else s0
    return [
        ("accuracy", float(np.mean((scores >= cut) == (labels == 1)))),
        ("auc", float(roc_auc_score(labels, scores))),
    ]


def _parameters(scorer: Scorer) -> np.ndarray | None:
    form = linear_form_of(scorer)
    if form is None:
        return None
    return np.append(np.asarray(form.coef, dtype=float).ravel(), float(form.intercept))
