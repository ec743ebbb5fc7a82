import warnings

import numpy as np
import pytest
from scipy.optimize import OptimizeResult
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from recoursesim.checks import check_trainer
from recoursesim.errors import DataError
from recoursesim.training import (
    GroupRecourseLogisticRegression,
    GroupRecourseSVM,
    GroupRecourseTrainer,
    recourse_difference,
)
from recoursesim.training.group_recourse_models import PenaltyOffWarning
from recoursesim.training.group_recourse_solvers import solution

# docs/mitigations.md, Gupta worked example: a hand-typed 14-point toy with exact rational solutions
X = np.array(
    [
        (2, 1.5),
        (3, 1),
        (2.5, 2.5),
        (1, 2.5),
        (0, 3),
        (1.5, 3),
        (0.5, 0),
        (1, -0.5),
        (0, 0.5),
        (0.5, -1),
        (-2, 0.5),
        (-3, 0),
        (-2.5, 1),
        (-1.5, -0.5),
    ],
    dtype=float,
)
Y = np.array([1] * 6 + [0] * 8)
G = np.array([1, 1, 1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1])
EXACT = [
    (0.0, (0.6, 0.8), -1.4, 1.25),
    (0.5, (4 / 9, 8 / 9), -11 / 9, 0.7826237),
    (1.0, (1 / 3, 1.0), -7 / 6, 5 / (4 * np.sqrt(10))),
    (5.0, (4 / 15, 22 / 15), -26 / 15, 0.0),
]


@pytest.mark.parametrize("lam, w, b, rd", EXACT)
def test_exact_dual_matches_rational_solution(lam, w, b, rd):
    model = GroupRecourseSVM(lam=lam, solver="dual").fit(X, Y, G)
    np.testing.assert_allclose(model.coef_[0], w, atol=1e-6)
    assert model.intercept_[0] == pytest.approx(b, abs=1e-6)
    assert model.recourse_difference_ == pytest.approx(rd, abs=1e-6)
    assert model.n_iter_ == 5 and all(h["accuracy"] == 1.0 for h in model.history_)
    assert (model.predict(X) == Y).all()


@pytest.mark.parametrize("lam, w, b, rd", EXACT)
def test_smoothed_primal_within_1e3(lam, w, b, rd):
    model = GroupRecourseSVM(lam=lam, solver="smoothed").fit(X, Y, G)
    np.testing.assert_allclose(model.coef_[0], w, atol=1e-3)
    assert model.intercept_[0] == pytest.approx(b, abs=1e-3)


def test_vanilla_matches_sklearn_and_rd_is_scale_invariant():
    svc = SVC(kernel="linear", C=10 / 14).fit(X, Y)
    model = GroupRecourseSVM(lam=0.0, solver="dual").fit(X, Y, G)
    np.testing.assert_allclose(model.coef_[0], svc.coef_[0], atol=1e-3)
    sign = np.where(G == -1, 1.0, -1.0)
    assert recourse_difference(np.array([0.6, 0.8]), -1.4, X, sign) == pytest.approx(1.25)
    assert recourse_difference(np.array([1.2, 1.6]), -2.8, X, sign) == pytest.approx(1.25)


def test_group_without_negatives_turns_penalty_off_with_warning():
    keep = ~((G == -1) & (Y == 0))  # group -1 keeps only its positives
    with pytest.warns(RuntimeWarning, match="no predicted negatives"):
        model = GroupRecourseSVM(lam=1.0, solver="dual").fit(X[keep], Y[keep], G[keep])
    assert np.isnan(model.recourse_difference_)


def test_three_groups_rejected():
    with pytest.raises(DataError, match="exactly 2 groups"):
        GroupRecourseSVM().fit(X, Y, np.arange(14) % 3)


def test_logistic_variant_reduces_recourse_difference():
    plain = GroupRecourseLogisticRegression(lam=0.0).fit(X, Y, G)
    fair = GroupRecourseLogisticRegression(lam=1.0).fit(X, Y, G)
    assert fair.recourse_difference_ < plain.recourse_difference_
    p = fair.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_trainer_conformance_and_linear_form():
    check_trainer(lambda: GroupRecourseTrainer(lam=0.1))
    check_trainer(lambda: GroupRecourseTrainer(model="svm", lam=0.5))


def test_penalty_off_is_an_explicit_signal_not_any_warning(monkeypatch):
    keep = ~((G == -1) & (Y == 0))
    with pytest.warns(PenaltyOffWarning):
        model = GroupRecourseSVM(lam=1.0, solver="dual").fit(X[keep], Y[keep], G[keep])
    assert model.n_penalty_off_ == model.n_iter_ - model.warmup  # every penalised iteration
    assert GroupRecourseSVM(lam=1.0, solver="dual").fit(X, Y, G).n_penalty_off_ == 0

    # an unrelated RuntimeWarning during a refit is not mistaken for the penalty being off
    trainer = GroupRecourseTrainer(lam=0.1)
    original = GroupRecourseLogisticRegression.fit

    def noisy_fit(self, *args):
        warnings.warn("overflow somewhere", RuntimeWarning, stacklevel=2)
        return original(self, *args)

    monkeypatch.setattr(GroupRecourseLogisticRegression, "fit", noisy_fit)
    trainer.history_.append({})
    with pytest.warns(RuntimeWarning, match="overflow somewhere"):
        trainer._fit(X, Y, G, np.random.default_rng(0))
    assert "penalty_off" not in trainer.history_[-1]


def test_solver_failure_warns_but_a_precision_limited_stop_does_not():
    x = np.array([1.0, 2.0])
    with pytest.warns(ConvergenceWarning, match=r"the test solve stopped without converging \(Iteration limit"):
        solution(OptimizeResult(x=x, success=False, status=9, message="Iteration limit reached"), "the test solve")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stopped = OptimizeResult(x=x, success=False, status=8, message="Positive directional derivative for linesearch")
        np.testing.assert_array_equal(solution(stopped, "the test solve"), x)
    with pytest.warns(ConvergenceWarning):
        solution(OptimizeResult(x=np.array([np.nan]), success=True, message="ok"), "the test solve")


@parametrize_with_checks(
    [GroupRecourseLogisticRegression(), GroupRecourseSVM(solver="smoothed")],
    expected_failed_checks=lambda estimator: {},
)
def test_gupta_estimators_pass_scikit_learn_estimator_checks(estimator, check):
    """Every check of ``check_estimator`` (fit without groups: one group, the unpenalised model)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PenaltyOffWarning)
        check(estimator)


def test_fit_without_groups_is_the_unpenalised_fit_and_two_groups_are_penalised():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    groups = (rng.random(200) < 0.5).astype(int)
    X[groups == 1, 0] -= 1.0  # group 1 starts further from the boundary
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    one = GroupRecourseLogisticRegression(lam=1.0).fit(X, y)
    plain = GroupRecourseLogisticRegression(lam=0.0).fit(X, y, groups)
    assert one.recourse_difference_ == 0.0
    np.testing.assert_allclose(one.coef_, plain.coef_, rtol=1e-6, atol=1e-8)
    penalised = GroupRecourseLogisticRegression(lam=1.0).fit(X, y, groups)
    assert not np.allclose(penalised.coef_, plain.coef_)
