"""The built-in logistic refit: Newton from the previous solution, equal to scikit-learn's converged fit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from recoursesim.reproductions.bell2024 import setting_scenario
from recoursesim.training import CounterfactualAugmentationTrainer, RefitTrainer
from recoursesim.training import refit as refit_module
from recoursesim.training.warm_logistic import (
    binary_classes,
    fit_newton,
    fitted_logistic,
    full_step_passes,
    largest_relative,
    solves_exactly,
)


def converged_sklearn(features, labels, c=1.0):
    """scikit-learn's own Newton solver run to convergence on the same objective."""
    return LogisticRegression(C=c, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(features, labels)


def cda_training_sets(monkeypatch, seed=1):
    """The (features, labels) of every refit of a paper-scale CDA run, and the trainer's solutions."""
    seen = []
    fit = refit_module.fitted_logistic

    def spy(prototype, features, labels, start):
        estimator = fit(prototype, features, labels, start)
        seen.append((features.copy(), labels.copy(), None if start is None else start.copy(), estimator))
        return estimator

    monkeypatch.setattr(refit_module, "fitted_logistic", spy)
    setting_scenario("adv_more", 3, "cda").build_model(seed).run()
    return seen


def test_every_cda_refit_equals_a_fresh_sklearn_fit_within_1e_6(monkeypatch):
    seen = cda_training_sets(monkeypatch)
    assert len(seen) == 21  # the first fit on the initial population, then one per step from step 1 on
    assert seen[0][2] is None and all(start is not None for _, _, start, _ in seen[1:])  # warm from step 1
    for features, labels, _, ours in seen:
        reference = converged_sklearn(features, labels)
        np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=0, atol=1e-6)
        np.testing.assert_allclose(ours.intercept_, reference.intercept_, rtol=0, atol=1e-6)
        np.testing.assert_array_equal(ours.classes_, reference.classes_)
        np.testing.assert_allclose(ours.predict_proba(features), reference.predict_proba(features), atol=1e-9)


def test_warm_start_takes_fewer_iterations_and_lands_on_the_same_solution(monkeypatch):
    seen = cda_training_sets(monkeypatch)
    for features, labels, _, ours in seen[1:]:
        cold, cold_iterations = fit_newton(features, labels, 1.0)
        np.testing.assert_allclose(np.r_[ours.coef_[0], ours.intercept_], cold, rtol=0, atol=1e-9)
        assert ours.n_iter_[0] <= cold_iterations


def test_hand_computed_optimum_of_a_symmetric_problem():
    # x = -1 (label 0) and x = +1 (label 1): by symmetry b = 0; the objective is 2C·log(1 + e^(−w)) + w²/2,
    # whose gradient −2C(1 − σ(w)) + w vanishes at w = 2C(1 − σ(w)); with C = 1, w ≈ 0.67483 (bisection below).
    beta, _ = fit_newton(np.array([[-1.0], [1.0]]), np.array([0.0, 1.0]), 1.0)
    lo, hi = 0.0, 2.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid < 2 * (1 - 1 / (1 + np.exp(-mid))) else (lo, mid)
    assert beta[1] == pytest.approx(0.0, abs=1e-12)
    assert beta[0] == pytest.approx(lo, abs=1e-10)
    assert 0.6748 < beta[0] < 0.6749


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(20, 300),
    d=st.integers(1, 4),
    c=st.sampled_from([0.01, 0.1, 1.0, 10.0]),
)
def test_any_start_reaches_sklearns_solution(seed, n, d, c):
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(n, d))
    labels = (features @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)
    if labels.min() == labels.max():
        labels[0] = 1 - labels[0]
    start = rng.normal(scale=20.0, size=d + 1)  # far from the optimum: the line search must hold it
    ours = fitted_logistic(LogisticRegression(C=c).get_params(), features, labels, start)
    reference = converged_sklearn(features, labels, c)
    np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, reference.intercept_, rtol=0, atol=1e-6)


def test_only_the_plain_logistic_objective_takes_the_newton_path():
    assert solves_exactly(LogisticRegression()) and solves_exactly(LogisticRegression(C=0.1, max_iter=50))
    for other in (
        LogisticRegression(class_weight="balanced"),
        LogisticRegression(fit_intercept=False),
        LogisticRegression(l1_ratio=0.5, solver="saga"),
        LogisticRegression(solver="liblinear"),
    ):
        assert not solves_exactly(other)
    assert RefitTrainer()._newton and CounterfactualAugmentationTrainer(estimator_params={"C": 0.5})._newton
    assert not RefitTrainer(estimator_params={"class_weight": "balanced"})._newton
    # a user's estimator object is always cloned and fitted by scikit-learn, even a plain LogisticRegression
    assert not RefitTrainer(estimator=LogisticRegression())._newton


def test_largest_relative_by_hand_and_as_numpy_computes_it():
    # |0.5| / max(1, 0.2) = 0.5, |-3| / max(1, 6) = 0.5, |0.25| / max(1, -0.5) = 0.25: the largest is 0.5
    assert largest_relative([0.5, -3.0, 0.25], [0.2, 6.0, -0.5]) == 0.5
    assert largest_relative([1e-3, 2.0], [1.0, -8.0]) == 0.25
    assert np.isnan(largest_relative([0.1, np.nan], [1.0, 1.0]))
    assert np.isnan(largest_relative([0.1, 0.2], [np.nan, 1.0]))  # np.maximum passes a NaN on
    rng = np.random.default_rng(0)
    for _ in range(200):
        changes, values = rng.normal(size=4) * 10.0 ** rng.integers(-8, 3), rng.normal(size=4) * 3
        expected = np.max(np.abs(changes) / np.maximum(1.0, np.abs(values)))
        assert largest_relative(changes.tolist(), values.tolist()) == expected


def test_binary_classes_equal_numpys_unique():
    for labels in (
        np.array([0, 1, 1, 0]),
        np.array([1, 1, 1]),
        np.array([2, 0, 1]),
        np.array([True, False]),
        np.array([0.0, 1.0, 1.0]),
        np.array([7, 3, 3], dtype=np.int8),
        np.array([], dtype=int),
    ):
        ours, reference = binary_classes(labels), np.unique(labels)
        assert ours.dtype == reference.dtype and ours.tolist() == reference.tolist()
    assert binary_classes(np.array([5, 2, 5])).tolist() == [2, 5]


def test_full_step_passes_by_hand():
    z = np.zeros(3)
    # the largest margin change is 1.5 and the curvature equals the decrease: (e^1.5 - 2.5) / 2.25 = 0.881 < 1
    assert full_step_passes(z, np.array([1.5, -0.2, 0.0]), decrease=1.0, curvature=1.0)
    assert not full_step_passes(z, np.array([0.0, -1.6, 0.0]), decrease=1.0, curvature=1.0)  # a margin moves 1.6
    assert not full_step_passes(z, np.array([0.1, 0.0, 0.0]), decrease=1.0, curvature=1.2)  # not a Newton step
    assert not full_step_passes(z, np.array([0.1, 0.0, 0.0]), decrease=0.0, curvature=0.0)  # no descent
    assert full_step_passes(np.zeros(0), np.zeros(0), decrease=1e-3, curvature=1e-3)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 200),
    spread=st.sampled_from([0.1, 1.0, 3.0, 10.0]),
    c=st.sampled_from([0.01, 1.0, 100.0]),
)
def test_a_full_step_the_bound_accepts_passes_the_line_search_test(seed, n, spread, c):
    # The objective is computed here as fit_newton computes it; whenever the bound says the full
    # Newton step passes, the Armijo test on the computed objective passes too.
    rng = np.random.default_rng(seed)
    x = np.column_stack([rng.normal(size=(n, 2)) * spread, np.ones(n)])
    y = (rng.random(n) < 0.5).astype(float)
    penalty = np.array([1.0 / c, 1.0 / c, 0.0])
    beta = rng.normal(size=3) * rng.choice([0.01, 0.3, 1.0])

    def objective(b):
        z = x @ b
        return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(penalty * b * b))

    p = 1 / (1 + np.exp(-(x @ beta)))
    gradient = x.T @ (p - y) + penalty * beta
    hessian = (x.T * (p * (1 - p))) @ x + np.diag(penalty)
    step = np.linalg.solve(hessian, gradient)
    decrease = float(gradient @ step)
    if full_step_passes(x @ beta, x @ (beta - step), decrease, float(step @ hessian @ step)):
        assert objective(beta - step) <= objective(beta) - 1e-4 * decrease


@pytest.mark.parametrize(("seed", "n", "d", "c"), [(296, 146, 1, 0.01), (0, 100, 2, 1.0)])
def test_a_start_whose_probabilities_are_all_exactly_one_still_reaches_the_solution(seed, n, d, c):
    # With an intercept of 50 every row's probability is 1.0 in floating point, so the Hessian's
    # intercept row is zero (singular) while the intercept's gradient counts the 0-labels. A
    # least-squares step never moved the intercept: the first case (found by hypothesis) stopped
    # after 2 iterations at intercept 42.9 against scikit-learn's 0.060.
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(n, d))
    labels = (features @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)
    start = np.zeros(d + 1)
    start[-1] = 50.0
    assert np.all(1.0 / (1.0 + np.exp(-(features @ start[:-1] + start[-1]))) == 1.0)
    ours = fitted_logistic(LogisticRegression(C=c).get_params(), features, labels, start)
    reference = converged_sklearn(features, labels, c)
    np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, reference.intercept_, rtol=0, atol=1e-6)
