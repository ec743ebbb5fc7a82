"""Repeated risk minimisation on the location family D(θ) = N(μ + εθ, σ²) with squared loss, and the trainer."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from recoursesim.errors import ConfigError
from recoursesim.training import PerformativeTrainer, repeated_risk_minimisation

MU, SIGMA = 2.0, 1.0


def exact(epsilon):
    """RRM in expectation: E_{Z ~ D(θ)} (θ' - Z)² is minimised at θ' = E Z = μ + εθ."""
    return (lambda theta: MU + epsilon * theta), (lambda mean: mean)


def sampled(epsilon, n, seed):
    """RRM on samples: draw n points from D(θ) and minimise the empirical squared loss numerically."""
    rng = np.random.default_rng(seed)

    def induce(theta):
        return rng.normal(MU + epsilon * theta[0], SIGMA, n)

    def minimise(z):
        return minimize_scalar(lambda t: np.mean((t - z) ** 2), bracket=(z.min(), z.max()), tol=1e-12).x

    return induce, minimise


@pytest.mark.parametrize("epsilon", [0.2, 0.5, 0.9])
def test_converges_to_the_stable_point_at_rate_epsilon(epsilon):
    stable = MU / (1 - epsilon)  # θ* = μ + εθ*
    iterates = repeated_risk_minimisation(0.0, *exact(epsilon), steps=12)[:, 0]
    gaps = iterates - stable
    assert gaps[0] == pytest.approx(-stable)
    # each retrain shrinks the distance to θ* by exactly ε: θ_{t+1} - θ* = ε (θ_t - θ*)
    assert np.allclose(gaps[1:] / gaps[:-1], epsilon)
    assert abs(gaps[-1]) == pytest.approx(stable * epsilon**12)


@pytest.mark.parametrize("epsilon", [1.5, 2.0])
def test_diverges_for_epsilon_above_one(epsilon):
    stable = MU / (1 - epsilon)  # a fixed point exists (negative) but repels
    iterates = repeated_risk_minimisation(0.0, *exact(epsilon), steps=30)[:, 0]
    gaps = iterates - stable
    assert np.allclose(gaps[1:] / gaps[:-1], epsilon)
    assert abs(iterates[-1]) > 1e5 and np.all(np.diff(np.abs(gaps)) > 0)


def test_sampled_rrm_reaches_the_stable_point_within_sampling_error():
    epsilon, n = 0.5, 200_000
    stable = MU / (1 - epsilon)
    iterates = repeated_risk_minimisation(0.0, *sampled(epsilon, n, seed=1), steps=30)[:, 0]
    # at stationarity θ_t = μ + εθ_{t-1} + (sample-mean noise, sd σ/√n): sd σ / √(n (1 - ε²))
    sd = SIGMA / math.sqrt(n * (1 - epsilon**2))
    assert abs(iterates[-1] - stable) < 5 * sd
    # while far from θ* the gap shrinks by ε, up to the sample mean's noise (sd σ/√n) over the gap
    early = np.abs(iterates[:5] - stable)
    assert np.allclose(early[1:] / early[:-1], epsilon, atol=5 * (SIGMA / math.sqrt(n)) / early[:-1])


def test_sampled_rrm_diverges_for_epsilon_above_one():
    iterates = repeated_risk_minimisation(0.0, *sampled(1.5, 10_000, seed=2), steps=25)[:, 0]
    assert iterates[-1] > 1e4


def test_stops_once_an_update_moves_at_most_tol():
    iterates = repeated_risk_minimisation(0.0, *exact(0.5), steps=100, tol=1e-6)
    moves = np.abs(np.diff(iterates[:, 0]))
    assert moves[-1] <= 1e-6 < moves[-2]
    assert iterates.shape[0] < 101


def test_bad_arguments():
    with pytest.raises(ConfigError, match=r"^steps:"):
        repeated_risk_minimisation(0.0, *exact(0.5), steps=-1)
    with pytest.raises(ConfigError, match=r"^tol:"):
        PerformativeTrainer(tol=-1.0)


def test_the_trainer_records_its_changes_and_stops_when_stable(small_run):
    result = small_run({"name": "performative", "tol": 1e9})
    history = result.model.trainer.history_
    # the first refit's change is below the (huge) tolerance: stable, no refit afterwards
    assert len(history) == 1 and history[0]["stable"] is True and history[0]["change"] >= 0
    assert result.ledger["step"].max() == 3


def test_the_trainer_keeps_refitting_without_a_tolerance(small_run):
    history = small_run({"name": "performative"}).model.trainer.history_
    assert len(history) == 4 and not any(h["stable"] for h in history)
    assert all(h["change"] > 0 for h in history)
