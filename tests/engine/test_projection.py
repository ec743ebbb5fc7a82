import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog, minimize

from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.recourse import LinearRecourse, OffsetTargetRecourse, project_l1, project_l2
from recoursesim.recourse.projection import SEQUENTIAL_SUM, feature_sum
from recoursesim.scoring import LinearScorer


def test_l2_projection_auditors_spec_vector():
    # docs/model.md example: w=(0.5,0.5), b=0, target 0.6, x=(0.2,0.4): gap 0.3, x' = x + 0.3*w/0.5 = (0.5, 0.7)
    scorer = LinearScorer([0.5, 0.5])
    x = np.array([[0.2, 0.4], [1.0, 1.0]])
    rec = LinearRecourse().bind(RunContext()).recommend(x, scorer.score(x), 0.6, scorer)
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
        action_set={"immutable": ["x2"], "increase_only": ["x1"]},
    ).bind(RunContext(feature_names=("x0", "x1", "x2")))
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
    rec = LinearRecourse().bind(RunContext()).recommend(x, scorer.score(x), 0.7, scorer)
    assert scorer.score(rec)[0] == pytest.approx(0.7, abs=1e-9)


def test_nonlinear_scorer_rejected_with_clear_error():
    from sklearn.tree import DecisionTreeClassifier

    from recoursesim.scoring import ClassifierScorer

    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    scorer = ClassifierScorer(DecisionTreeClassifier().fit(X, [0, 1]))
    with pytest.raises(ConfigError, match="needs a linear scorer"):
        LinearRecourse().bind(RunContext()).recommend(X, scorer.score(X), 0.9, scorer)


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
    recourse = LinearRecourse(action_set={"lower": [0.0, 0.0], "upper": [1.0, 1.0]}).bind(RunContext())
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


def test_feature_sum_adds_in_numpys_order():
    # 1e16 + 1 rounds back to 1e16 (ties to even; the spacing there is 2), so in-order addition of
    # (1e16, 1, 1) gives 1e16, not the exact 1e16 + 2, and numpy's sum along a short axis agrees.
    terms = [np.array([1e16]), np.array([1.0]), np.array([1.0])]
    assert feature_sum(terms)[0] == 1e16
    assert np.stack(terms, axis=-1).sum(axis=-1)[0] == 1e16
    # From 8 terms numpy adds pairwise: (1e16, 1 x 7) -> ((1e16+1)+(1+1)) + ((1+1)+(1+1)) = 1e16 + 6.
    eight = [np.array([1e16])] + [np.array([1.0])] * 7
    assert SEQUENTIAL_SUM == 7 and feature_sum(eight)[0] == 1e16 + 6
    # A sum of negative zeros is +0.0, as numpy's.
    assert not np.signbit(feature_sum([np.array([-0.0]), np.array([-0.0])])).any()


def test_feature_sum_is_bit_identical_to_numpys_sum_for_every_width():
    rng = np.random.default_rng(3)
    for d in range(1, 13):
        values = rng.standard_normal((500, 4, d)) * np.exp(rng.uniform(-30, 30, (500, 4, d)))
        values[rng.random(values.shape) < 0.2] = -0.0
        values[rng.random(values.shape) < 0.1] = 0.0
        ours = feature_sum([values[..., j] for j in range(d)])
        assert ours.view(np.uint64).tolist() == values.sum(axis=-1).view(np.uint64).tolist()


def _project_l2_dense(x, lo, hi, w, c, target):
    """The projection evaluated at every breakpoint as one ``(n, 2d + 1, d)`` array (its first form)."""
    n = x.shape[0]
    w = np.broadcast_to(w, x.shape)
    need = target - (np.clip(x, lo, hi) * w).sum(axis=1)
    s = w / c
    slope = w * s
    with np.errstate(divide="ignore", invalid="ignore"):
        t_lo, t_hi = (lo - x) / s, (hi - x) / s
    still = s == 0
    start = np.where(still, 0.0, np.maximum(np.where(s > 0, t_lo, t_hi), 0.0))
    end = np.where(still, 0.0, np.maximum(np.where(s > 0, t_hi, t_lo), 0.0))
    breaks = np.sort(np.concatenate([np.zeros((n, 1)), start, end], axis=1), axis=1)
    finite = np.isfinite(breaks)
    safe = np.where(finite, breaks, 0.0)
    clipped = np.clip(safe[:, :, None], start[:, None, :], end[:, None, :])
    gained = np.where(finite, ((clipped - start[:, None, :]) * slope[:, None, :]).sum(axis=2), np.inf)
    last = np.maximum((gained < need[:, None]).sum(axis=1) - 1, 0)
    rows = np.arange(n)
    at = safe[rows, last]
    seg_slope = (((start <= at[:, None]) & (end > at[:, None])) * slope).sum(axis=1)
    feasible = (need <= 0) | (seg_slope > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = at + (need - gained[rows, last]) / seg_slope
    top = np.where(finite, breaks, -np.inf).max(axis=1)
    lam = np.where(need <= 0, 0.0, np.where(feasible, lam, top))
    return np.clip(x + lam[:, None] * s, lo, hi), feasible


def test_project_l2_is_bit_identical_to_the_dense_formulation():
    rng = np.random.default_rng(7)
    for trial in range(400):
        n, d = int(rng.integers(1, 30)), int(rng.integers(1, 11))
        x = rng.normal(size=(n, d))
        lo, hi = x - np.abs(rng.normal(size=(n, d))), x + np.abs(rng.normal(size=(n, d)))
        if trial % 4 == 0:  # unbounded features
            lo = np.where(rng.random((n, d)) < 0.3, -np.inf, lo)
            hi = np.where(rng.random((n, d)) < 0.3, np.inf, hi)
        if trial % 4 == 1:  # a frozen feature
            lo[:, 0] = hi[:, 0] = x[:, 0]
        w = rng.normal(size=d) if trial % 2 else rng.normal(size=(n, d))
        w = np.where(rng.random(w.shape) < 0.2, 0.0, w)
        c = rng.uniform(0.1, 3, size=d)
        target = (np.broadcast_to(w, (n, d)) * x).sum(axis=1) + rng.normal(size=n) * rng.choice([0.1, 1, 10])
        (moved, ok), (ref, ref_ok) = project_l2(x, lo, hi, w, c, target), _project_l2_dense(x, lo, hi, w, c, target)
        assert moved.view(np.uint64).tolist() == ref.view(np.uint64).tolist()
        assert ok.tolist() == ref_ok.tolist()
