import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog, minimize

from recoursesim.errors import ConfigError
from recoursesim.recourse import LinearRecourse, OffsetTargetRecourse, project_l1, project_l2
from recoursesim.scoring import LinearScorer


def test_l2_projection_auditors_spec_vector():
    # docs/model.md example: w=(0.5,0.5), b=0, target 0.6, x=(0.2,0.4): gap 0.3, x' = x + 0.3*w/0.5 = (0.5, 0.7)
    scorer = LinearScorer([0.5, 0.5])
    x = np.array([[0.2, 0.4], [1.0, 1.0]])
    rec = LinearRecourse().recommend(x, scorer.score(x), 0.6, scorer)
    np.testing.assert_allclose(rec, [[0.5, 0.7], [1.0, 1.0]])  # (1,1) already favourable: unchanged


def test_l2_projection_with_upper_bound_pins_the_coordinate_and_moves_the_other():
    # w=(1,1), target 1.5 from (0,0); unconstrained x'=(0.75,0.75); with x0 <= 0.5 the exact solution is (0.5, 1.0)
    x = np.zeros((1, 2))
    moved, ok = project_l2(
        x, np.full((1, 2), -np.inf), np.array([[0.5, np.inf]]), np.ones(2), np.ones(2), np.array([1.5])
    )
    np.testing.assert_allclose(moved, [[0.5, 1.0]])
    assert ok.all()


def test_l2_infeasible_target_returns_best_point_and_flags_it():
    x = np.zeros((1, 2))
    moved, ok = project_l2(x, np.zeros((1, 2)), np.ones((1, 2)), np.ones(2), np.ones(2), np.array([5.0]))
    np.testing.assert_allclose(moved, [[1.0, 1.0]])
    assert not ok.any()


def test_immutable_and_increase_only_features_respected():
    scorer = LinearScorer([1.0, -1.0, 1.0])
    recourse = LinearRecourse(
        action_set={"immutable": ["x2"], "increase_only": ["x1"]}, feature_names=("x0", "x1", "x2")
    )
    x = np.array([[0.0, 0.5, 0.2]])
    rec = recourse.recommend(x, scorer.score(x), 1.0, scorer)
    # x1 would like to decrease (negative weight) but may only increase; x2 is frozen: all change goes to x0
    np.testing.assert_allclose(rec, [[1.3, 0.5, 0.2]])


def test_l1_moves_most_efficient_feature_first():
    # w=(1, 2): feature 1 gives 2 score per unit cost; needs 1.0 -> move x1 by 0.5 only
    moved, feasible = project_l1(
        np.zeros((1, 2)),
        np.full((1, 2), -np.inf),
        np.full((1, 2), np.inf),
        np.array([1.0, 2.0]),
        np.ones(2),
        np.array([1.0]),
    )
    np.testing.assert_allclose(moved, [[0.0, 0.5]])
    assert feasible.all()
    # with x1 capped at 0.25 (gain 0.5), the rest (0.5) comes from x0
    moved, _ = project_l1(
        np.zeros((1, 2)),
        np.full((1, 2), -np.inf),
        np.array([[np.inf, 0.25]]),
        np.array([1.0, 2.0]),
        np.ones(2),
        np.array([1.0]),
    )
    np.testing.assert_allclose(moved, [[0.5, 0.25]])


def test_logistic_scorer_recommendation_lands_at_probability_threshold():
    from sklearn.linear_model import LogisticRegression

    from recoursesim.scoring import ClassifierScorer

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X.sum(axis=1) > 0).astype(int)
    scorer = ClassifierScorer(LogisticRegression().fit(X, y))
    x = np.array([[-1.0, -1.0]])
    rec = LinearRecourse().recommend(x, scorer.score(x), 0.7, scorer)
    assert scorer.score(rec)[0] == pytest.approx(0.7, abs=1e-9)


def test_nonlinear_scorer_rejected_with_clear_error():
    from sklearn.tree import DecisionTreeClassifier

    from recoursesim.scoring import ClassifierScorer

    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    scorer = ClassifierScorer(DecisionTreeClassifier().fit(X, [0, 1]))
    with pytest.raises(ConfigError, match="needs a linear scorer"):
        LinearRecourse().recommend(X, scorer.score(X), 0.9, scorer)


box = st.floats(-2, 2)


@settings(max_examples=60, deadline=None)
@given(
    x=st.lists(box, min_size=3, max_size=3),
    w=st.lists(st.floats(-2, 2).filter(lambda v: abs(v) > 0.05), min_size=3, max_size=3),
    c=st.lists(st.floats(0.2, 3), min_size=3, max_size=3),
    width=st.lists(st.floats(0.1, 3), min_size=3, max_size=3),
    gap=st.floats(0.01, 3),
)
def test_l2_and_l1_match_generic_optimisers(x, w, c, width, gap):
    x, w, c = np.array([x]), np.array(w), np.array(c)
    lo = x - np.array(width) / 2
    hi = x + np.array(width) / 2
    target = np.array([x[0] @ w + gap])
    moved, ok = project_l2(x, lo, hi, w, c, target)
    best = lo[0] + (w > 0) * (hi[0] - lo[0])  # maximiser of w.x' in the box
    feasible = best @ w >= target[0] - 1e-9
    assert bool(ok[0]) == bool(feasible)
    if feasible:
        assert moved[0] @ w == pytest.approx(target[0], abs=1e-7)
        ref = minimize(
            lambda z: ((z - x[0]) ** 2 * c).sum(),
            np.clip(x[0], lo[0], hi[0]),
            jac=lambda z: 2 * c * (z - x[0]),
            bounds=list(zip(lo[0], hi[0], strict=True)),
            constraints=[{"type": "ineq", "fun": lambda z: z @ w - target[0], "jac": lambda z: w}],
            method="SLSQP",
            options={"ftol": 1e-12, "maxiter": 500},
        )
        assert ((moved[0] - x[0]) ** 2 * c).sum() <= ref.fun + 1e-6
        moved1, _ = project_l1(x, lo, hi, w, c, target)
        # L1 as an LP over (up, down) moves: min c.(u+d) s.t. w.(x+u-d) >= target, bounds
        lp = linprog(
            np.concatenate([c, c]),
            A_ub=-np.concatenate([w, -w])[None, :],
            b_ub=[x[0] @ w - target[0]],
            bounds=[(0, h) for h in hi[0] - x[0]] + [(0, d) for d in x[0] - lo[0]],
            method="highs",
        )
        assert (np.abs(moved1[0] - x[0]) * c).sum() == pytest.approx(lp.fun, abs=1e-7)
        assert moved1[0] @ w >= target[0] - 1e-7


def test_offset_target_hand_computed():
    # f = 0.5 x0 + 0.5 x1, s_t = 0.6, offset 0.5 -> target 0.1; x = (0.3, 0.5), f = 0.4:
    # x' = x + (0.1 - 0.4) * w / |w|^2 = x - 0.3 * (1, 1) = (0.0, 0.2)
    scorer = LinearScorer([0.5, 0.5])
    x = np.array([[0.3, 0.5]])
    rec = OffsetTargetRecourse().recommend(x, scorer.score(x), 0.6, scorer)
    np.testing.assert_allclose(rec, [[0.0, 0.2]], atol=1e-12)


def test_offset_target_pins_out_of_box_coordinate():
    # x = (0.0, 0.6), f = 0.3, s_t = 0.7 -> target 0.2, gap -0.1: pass 1 gives (-0.2, 0.4); x0 < -0.1 is
    # pinned at -0.1 and x1 alone closes the gap: 0.5 * (-0.1) + 0.5 * x1 = 0.2 -> x1 = 0.5
    scorer = LinearScorer([0.5, 0.5])
    x = np.array([[0.0, 0.6]])
    rec = OffsetTargetRecourse().recommend(x, scorer.score(x), 0.7, scorer)
    np.testing.assert_allclose(rec, [[-0.1, 0.5]], atol=1e-12)


def test_linear_recourse_reports_found_and_leaves_an_unreachable_agent_in_place():
    # w = (1, 1) on the unit box: agent 0 needs score 1.5 (reachable at (0.75, 0.75)); agent 1 needs 2.5 (> 2, the
    # box's best score) and stays put; agent 2 is already above the cut-off
    scorer = LinearScorer([1.0, 1.0])
    recourse = LinearRecourse(action_set={"lower": [0.0, 0.0], "upper": [1.0, 1.0]})
    x = np.array([[0.5, 0.5], [0.5, 0.5], [0.9, 0.9]])
    threshold = np.array([1.5, 2.5, 1.5])
    rec = recourse.recommend(x, scorer.score(x), threshold, scorer)
    np.testing.assert_allclose(rec, [[0.75, 0.75], [0.5, 0.5], [0.9, 0.9]])
    np.testing.assert_array_equal(recourse.found_, [True, False, True])


def test_the_ledger_records_recourse_found_for_the_linear_generator():
    from recoursesim.scenario import Scenario

    model = Scenario.bundled("default").with_overrides({"run.steps": 2}).build_model(0).run()
    frame = model.ledger
    assert "recourse_found" in frame.columns
    acted = frame["recourse_found"].notna()
    assert acted.any() and frame.loc[acted, "recourse_found"].all()
