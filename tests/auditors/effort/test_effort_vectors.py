import math

import numpy as np
import pandas as pd
import pytest

from recoursesim.auditors.effort import (
    LinearAdditiveSCM,
    MinimalInterventionRecourse,
    cost_ratio,
    effort_decision,
    mixed_distance,
    neighbourhood,
    neighbourhood_radii,
)

# --- B.8.1 distance ---------------------------------------------------------------------------


def test_mixed_distance_vector():
    d = mixed_distance(
        np.array([[30.0, 50.0]]),
        np.array([["A"]]),
        np.array([40.0, 100.0]),
        np.array([[40.0, 70.0]]),
        np.array([["B"]]),
    )
    assert d[0, 0] == pytest.approx(1.45)


def test_constant_feature_contributes_zero():
    d = mixed_distance(np.array([[1.0, 5.0], [2.0, 5.0]]))
    assert d[0, 1] == pytest.approx(1.0)


# --- B.8.2 neighbourhoods ---------------------------------------------------------------------

POINTS = np.array([[0.0], [1.0], [2.0], [3.0], [10.0]])


@pytest.mark.parametrize(
    ("q", "radius", "members"),
    [(0.25, 0.175, [0, 1]), (0.5, 0.25, [0, 1, 2]), (0.75, 0.475, [0, 1, 2, 3]), (1.0, 1.0, [0, 1, 2, 3, 4])],
)
def test_neighbourhood_vector(q, radius, members):
    d = mixed_distance(POINTS, ranges=np.array([10.0]))
    np.testing.assert_allclose(d[0], [0, 0.1, 0.2, 0.3, 1.0])
    assert neighbourhood_radii(d[:1], [q])[0, 0] == pytest.approx(radius)
    assert neighbourhood(d[0], 0, q).tolist() == members


def test_ties_at_radius_are_included():
    d = np.array([0.0, 0.5, 0.5, 0.5, 0.9])
    assert neighbourhood(d, 0, 0.5).tolist() == [0, 1, 2, 3]


# --- B.8.3 closed-form recourse ---------------------------------------------------------------

SCM2 = LinearAdditiveSCM(["X2", "X3"], np.zeros((2, 2)))
MODEL = ((1.0, 2.0), -4.0)


def _solve(x, model, scm, actionable, ranges, **options):
    """One point's minimal recourse: ``(cost, delta, counterfactual)``."""
    coef, intercept = model
    solver = MinimalInterventionRecourse(scm, coef, intercept, actionable=actionable, ranges=ranges, **options)
    result = solver.solve(np.asarray(x, dtype=float)[np.newaxis, :])
    return float(result.cost[0]), result.delta[0], result.counterfactual[0]


@pytest.mark.parametrize("method", ["closed_form", "lp"])
@pytest.mark.parametrize(
    ("kwargs", "cost", "delta"),
    [
        ({}, 0.5, (2, 0)),
        ({"direction": {"X2": "decrease"}}, 1.0, (0, 1)),
        ({"upper": {"X2": 2.0}}, 0.75, (1, 0.5)),
    ],
)
def test_closed_form_vector(method, kwargs, cost, delta):
    c, d, _ = _solve([1, 0.5], MODEL, SCM2, ["X2", "X3"], [4, 1], method=method, **kwargs)
    assert c == pytest.approx(cost, abs=1e-9)
    np.testing.assert_allclose(d, delta, atol=1e-9)


def test_no_recourse_is_inf():
    cost, _, _ = _solve([1, 0.5], MODEL, SCM2, ["X2"], [4, 1], upper={"X2": 2.0})
    assert cost == math.inf


def test_favourable_point_costs_zero():
    c, d, x = _solve([3, 1], MODEL, SCM2, ["X2", "X3"], [4, 1])
    assert c == 0 and not np.any(d)
    np.testing.assert_allclose(x, [3, 1])


def test_boundary_counts_as_favourable():
    c, _, _ = _solve([4.0 - 1e-12, 0.0], MODEL, SCM2, ["X2", "X3"], [4, 1])
    assert c == 0


# --- B.8.4 SCM propagation --------------------------------------------------------------------


def _chain_scm():
    a = np.zeros((4, 4))
    a[1, 0] = 2.0
    a[3, 2] = 0.5
    return LinearAdditiveSCM(["X1", "X2", "X3", "X4"], a)


def test_total_effects_and_propagation():
    scm = _chain_scm()
    coef = np.array([0, 1, 1, 2.0])
    assert (coef @ scm.total_effects_)[1] == pytest.approx(1.0)
    assert (coef @ scm.total_effects_)[2] == pytest.approx(2.0)
    c, d, x = _solve([1, 1, 1, 1], (coef, -5.0), scm, ["X2", "X3"], [1, 2, 2, 1])
    assert c == pytest.approx(0.25)
    np.testing.assert_allclose(d, [0, 0.5])
    np.testing.assert_allclose(x, [1, 1, 1.5, 1.25])


def test_without_propagation_cost_doubles():
    no_edges = LinearAdditiveSCM(["X1", "X2", "X3", "X4"], np.zeros((4, 4)))
    c, _, _ = _solve([1, 1, 1, 1], ((0, 1, 1, 2), -5.0), no_edges, ["X2", "X3"], [1, 2, 2, 1])
    assert c == pytest.approx(0.5)


def test_plausibility_bound_on_descendant_uses_lp():
    c, d, x = _solve([1, 1, 1, 1], ((0, 1, 1, 2), -5.0), _chain_scm(), ["X2", "X3"], [1, 2, 2, 1], upper={"X4": 1.2})
    assert c == pytest.approx(0.3, abs=1e-9)
    np.testing.assert_allclose(d, [0.2, 0.4], atol=1e-9)
    assert x[3] <= 1.2 + 1e-9


def test_closed_form_refuses_descendant_bounds():
    from recoursesim.errors import ConfigError

    with pytest.raises(ConfigError, match="closed_form"):
        _solve(
            [1, 1, 1, 1],
            ((0, 1, 1, 2), -5.0),
            _chain_scm(),
            ["X2", "X3"],
            [1, 2, 2, 1],
            upper={"X4": 1.2},
            method="closed_form",
        )


def test_lp_matches_closed_form_on_random_points():
    rng = np.random.default_rng(3)
    scm = LinearAdditiveSCM(["a", "b", "c"], np.zeros((3, 3)))
    kw = dict(
        actionable=["a", "b", "c"],
        ranges=[2.0, 1.0, 3.0],
        direction={"b": "increase"},
        upper={"a": 1.5},
        lower={"c": -1.0},
    )
    closed = MinimalInterventionRecourse(scm, [0.5, -1.0, 0.8], -1.0, method="auto", **kw)
    lp = MinimalInterventionRecourse(scm, [0.5, -1.0, 0.8], -1.0, method="lp", **kw)
    x = rng.normal(size=(60, 3))
    assert ((x[:, 0] > 1.5) | (x[:, 2] < -1.0)).any()  # some points start outside a bound
    a, b = closed.solve(x).cost, lp.solve(x).cost
    assert np.array_equal(np.isinf(a), np.isinf(b))
    np.testing.assert_allclose(a[np.isfinite(a)], b[np.isfinite(b)], atol=1e-7)


# --- B.8.5 ACR and RD ------------------------------------------------------------------------


def test_acr_rd_vector():
    r = cost_ratio(np.array([1, 2, 3, np.inf]), np.array([1.0, 1.0]))
    assert r["Phi_own"] == 2 and r["Phi_other"] == 1 and r["ACR"] == 2
    assert r["rho_own"] == 0.75 and r["rho_other"] == 1 and r["RD"] == pytest.approx(0.25)
    assert effort_decision(r["ACR"], r["RD"], eps=0.1) is False
    assert effort_decision(r["ACR"], r["RD"], eps=0.3) is False


@pytest.mark.parametrize(
    ("acr", "rd", "rule", "expected"),
    [
        (1.1, 0.0, "one_sided", True),
        (0.5, 0.0, "one_sided", True),
        (0.5, 0.0, "band", False),
        (1.3, 0.0, "band", False),
        (1.0, 0.0, "band", True),
    ],
)
def test_decision_rule(acr, rd, rule, expected):
    assert effort_decision(acr, rd, rule=rule) is expected


def test_empty_and_infeasible_other_group():
    empty = cost_ratio(np.array([1.0]), np.array([]))
    assert math.isnan(empty["ACR"]) and math.isnan(empty["RD"])
    infeasible = cost_ratio(np.array([1.0]), np.array([np.inf, np.inf]))
    assert math.isnan(infeasible["ACR"]) and infeasible["RD"] == -1
    assert effort_decision(infeasible["ACR"], infeasible["RD"]) is False
    assert effort_decision(empty["ACR"], empty["RD"]) is None


# --- SCM fit ----------------------------------------------------------------------------------


def test_scm_fit_recovers_coefficients():
    rng = np.random.default_rng(0)
    x1 = rng.normal(size=500)
    x2 = 1.5 * x1 + 2 + 0.01 * rng.normal(size=500)
    scm = LinearAdditiveSCM.fit(pd.DataFrame({"x1": x1, "x2": x2}), {"x2": ["x1"]})
    assert scm.variables == ("x1", "x2")
    assert scm.coefficients[1, 0] == pytest.approx(1.5, abs=0.01)
    assert scm.intercepts[1] == pytest.approx(2.0, abs=0.01)
