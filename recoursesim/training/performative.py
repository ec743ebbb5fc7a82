"""Performative prediction: repeated risk minimisation (Perdomo, Zrnic, Mendler-Dünner & Hardt 2020).

A deployed model ``θ`` changes the data it is later trained on: the data follow a distribution map
``D(θ)``. Repeated risk minimisation (RRM) retrains on the data the deployed model induced,
``θ_{t+1} = argmin_θ E_{Z ~ D(θ_t)} loss(Z; θ)``. A fixed point is *performatively stable*: the
model is optimal for the data it induces. When the loss is strongly convex and the map is
Lipschitz with a small enough constant ``ε``, RRM converges to the stable point at a linear rate;
otherwise it may diverge. For the location family ``D(θ) = N(μ + εθ, σ²)`` with squared loss,
``θ_{t+1} = μ + εθ_t``: the stable point is ``μ / (1 - ε)``, reached at rate ``ε`` for ``ε < 1``,
and the iterates diverge for ``ε > 1`` (docs/markets.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from recoursesim._validate import check_float, check_int
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer
from recoursesim.training.base import TrainingContext
from recoursesim.training.refit import RefitTrainer


def repeated_risk_minimisation[D](
    theta: np.ndarray | float,
    induce: Callable[[np.ndarray], D],
    minimise: Callable[[D], np.ndarray | float],
    steps: int,
    tol: float = 0.0,
) -> np.ndarray:
    """Run repeated risk minimisation from ``theta``: deploy, observe the induced data, retrain.

    Args:
        theta: The first deployed parameters (a scalar or a vector).
        induce: ``D(θ)``: the data (a sample, or anything ``minimise`` reads) the deployed ``θ`` induces.
        minimise: The risk minimiser: the parameters minimising the loss on the data given.
        steps: At most this many retrains.
        tol: Stop early once an update moves the parameters by at most ``tol`` (max-norm); 0 never stops early.

    Returns:
        ``(k + 1, p)`` the iterates ``θ_0, ..., θ_k`` (``k <= steps``), one row each.
    """
    check_int("steps", steps, minimum=0)
    tolerance = check_float("tol", tol, minimum=0.0)
    current = np.atleast_1d(np.asarray(theta, dtype=float))
    iterates = [current]
    for _ in range(steps):
        following = np.atleast_1d(np.asarray(minimise(induce(current)), dtype=float))
        iterates.append(following)
        moved = float(np.max(np.abs(following - current))) if following.size else 0.0
        current = following
        if not np.isfinite(moved) or moved <= tolerance:
            break
    return np.vstack(iterates)


@register("trainer", "performative", "repeated_risk_minimisation")
class PerformativeTrainer(RefitTrainer):
    """Repeated risk minimisation in the simulation: retrain on the population the deployed models induced.

    Each step the model is refitted, as :class:`~recoursesim.training.RefitTrainer` does, on the
    scored population — agents that have already moved in response to the models deployed
    before — with this step's outcomes. It records how far each refit moved the model, the largest
    change of score over this step's population, ``max |M_{t+1}(x) - M_t(x)|`` (RRM's convergence
    diagnostic, model-agnostic), in ``history_`` as ``"change"``. Once a refit moves the scores
    by at most ``tol``, the model is performatively stable to within ``tol``: it is kept from
    then on (``"stable": True`` in ``history_``) and later steps do not refit.

    Args:
        tol: Stop refitting once a refit changes no score by more than this (score units); 0 never stops.
        estimator: As :class:`~recoursesim.training.RefitTrainer`.
        estimator_params: As :class:`~recoursesim.training.RefitTrainer`.
        initial_threshold: As :class:`~recoursesim.training.RefitTrainer`.
        retrain_every: Refit every this many steps.
        output: ``"proba"`` or ``"decision"``.
        order: As :class:`~recoursesim.training.RefitTrainer`.
    """

    def __init__(
        self,
        tol: float = 0.0,
        estimator: str | Any | None = None,
        estimator_params: Mapping[str, Any] | None = None,
        initial_threshold: float | None = None,
        retrain_every: int = 1,
        output: str = "proba",
        order: str = "spec",
    ) -> None:
        super().__init__(estimator, estimator_params, initial_threshold, retrain_every, output, order)
        self.tol = tol
        self._tol = check_float("tol", tol, minimum=0.0)
        self._stable = False

    def start(self, features: np.ndarray, group: np.ndarray, scorer: Scorer, rng: np.random.Generator) -> Scorer:
        """The first model (see :class:`~recoursesim.training.RefitTrainer`); a run starts unstable."""
        self._stable = False
        return super().start(features, group, scorer, rng)

    def update(self, context: TrainingContext) -> Scorer:
        """One RRM step: refit on the induced population, unless the model is already stable."""
        if self._stable:
            return context.scorer
        model = super().update(context)
        if model is not context.scorer and self.history_:
            change = np.abs(np.asarray(model.score(context.features), dtype=float) - context.scores)
            moved = float(change.max()) if change.size else 0.0
            self._stable = self._tol > 0 and moved <= self._tol
            self.history_[-1].update({"change": moved, "stable": self._stable})
        return model
