import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.auditors.effort import LinearAdditiveSCM, MinimalInterventionRecourse, cost_ratio
from recoursesim.auditors.effort.german import german_auditor
from recoursesim.datasets import load_german

coefs = st.lists(st.floats(-3, 3).filter(lambda v: abs(v) > 0.05), min_size=3, max_size=3)


@settings(max_examples=40, deadline=None)
@given(coefs, st.floats(-2, 2), st.integers(0, 10_000))
def test_recourse_reaches_threshold_at_minimal_cost(coef, intercept, seed):
    rng = np.random.default_rng(seed)
    a = np.zeros((3, 3))
    a[2, 0] = rng.uniform(-1, 1)  # X3 <- X1; actionable {X1, X2} is an antichain
    scm = LinearAdditiveSCM(["x1", "x2", "x3"], a)
    ranges = rng.uniform(0.5, 3, 3)
    solver = MinimalInterventionRecourse(scm, coef, intercept, actionable=["x1", "x2"], ranges=ranges)
    lp = MinimalInterventionRecourse(scm, coef, intercept, actionable=["x1", "x2"], ranges=ranges, method="lp")
    x = rng.normal(size=(20, 3))
    result = solver.solve(x)
    assert (result.cost >= 0).all()
    assert (result.cost[~result.unfavourable] == 0).all()
    reached = result.counterfactual[np.isfinite(result.cost)] @ np.asarray(coef) + intercept
    assert (reached >= -1e-7).all()
    np.testing.assert_allclose(result.cost, lp.solve(x).cost, atol=1e-7)


@given(
    st.lists(st.one_of(st.floats(0.01, 10), st.just(math.inf)), max_size=12),
    st.lists(st.one_of(st.floats(0.01, 10), st.just(math.inf)), max_size=12),
)
def test_cost_ratio_invariants(own, other):
    r = cost_ratio(np.array(own), np.array(other))
    for key in ("rho_own", "rho_other"):
        assert math.isnan(r[key]) or 0 <= r[key] <= 1
    assert math.isnan(r["RD"]) or -1 <= r["RD"] <= 1
    assert math.isnan(r["ACR"]) or r["ACR"] > 0
    swapped = cost_ratio(np.array(other), np.array(own))
    if not math.isnan(r["ACR"]):
        assert r["ACR"] * swapped["ACR"] == pytest.approx(1.0)


def test_german_direction_matches_paper():
    dataset = load_german()
    auditor, _ = german_auditor(dataset.frame, target=dataset.target)
    protected = auditor.curve([0.2, 1.0], "protected").set_index("q")["mean"]
    unprotected = auditor.curve([1.0], "unprotected").set_index("q")["mean"]
    assert protected[1.0] > 1.2 and protected[0.2] > 1.2  # inequality of effort against women
    assert unprotected[1.0] < 0.8
    assert protected[1.0] * unprotected[1.0] == pytest.approx(1.0)
