import numpy as np
import pandas as pd
import pytest

from recoursesim.auditors.effort import (
    EqualityOfEffortAuditor,
    LinearAdditiveSCM,
    MinimalInterventionRecourse,
    acr_curve,
    equality_of_effort,
    make_effort_synthetic,
    synthetic_auditor,
)
from recoursesim.auditors.effort.setup import fit_logistic_audit
from recoursesim.errors import ConfigError, DataError


def _mean_acr1(alpha, seeds):
    return float(np.mean([synthetic_auditor(make_effort_synthetic(1000, alpha, s)).system()["ACR"] for s in seeds]))


def test_synthetic_acceptance_twenty_seeds():
    assert 1.7 < _mean_acr1(2.0, range(20)) < 2.3
    assert 0.9 < _mean_acr1(0.0, range(20)) < 1.1


def test_system_level_equals_curve_at_q1_and_unprotected_reciprocal():
    auditor = synthetic_auditor(make_effort_synthetic(400, 2.0, 7))
    curve = auditor.curve([0.2, 1.0], "protected").set_index("q")
    assert curve.loc[1.0, "mean"] == pytest.approx(auditor.system()["ACR"])
    assert curve.loc[1.0, "ci_high"] - curve.loc[1.0, "ci_low"] == pytest.approx(0.0, abs=1e-9)
    other = auditor.curve([1.0], "unprotected")["mean"].iloc[0]
    assert other == pytest.approx(1 / auditor.system()["ACR"])
    assert (curve["n_defined"] <= curve["n_centres"]).all()


def test_acr_rises_with_alpha():
    values = [_mean_acr1(a, range(3)) for a in (0.0, 1.0, 2.0, 3.0)]
    assert values == sorted(values)


def _toy():
    frame = pd.DataFrame({"s": [0, 0, 0, 1, 1, 1], "x": [0.0, 1.0, 2.0, 1.0, 2.0, 3.0]})
    scm = LinearAdditiveSCM(["s", "x"], np.zeros((2, 2)))
    recourse = MinimalInterventionRecourse(scm, {"x": 1.0}, -2.5, actionable=["x"], ranges=[1.0, 3.0], sensitive=["s"])
    return frame, recourse


def test_toy_system_and_centre_by_hand():
    frame, recourse = _toy()
    # unfavourable: x < 2.5 -> rows 0,1,2 (group 0) and 3,4 (group 1); cost = (2.5 - x)/3
    result = equality_of_effort(frame, recourse, "s", 0)
    assert result["Phi_own"] == pytest.approx((2.5 + 1.5 + 0.5) / 9)
    assert result["Phi_other"] == pytest.approx((1.5 + 0.5) / 6)
    assert result["ACR"] == pytest.approx(1.5)
    assert result["RD"] == 0 and result["decision"] is False
    local = equality_of_effort(frame, recourse, "s", 0, centre=2, q=0.2)
    # distances from x=2 over range 3 to the others: [2/3, 1/3, 1/3, 0, 1/3] -> q=0.2 radius 0.8/3
    # I = {row 2 (own group), row 4 (other group, x = 2)}; both cost 0.5/3
    assert local["size"] == 2 and local["n_own"] == 1 and local["n_other"] == 1
    assert local["ACR"] == pytest.approx(1.0) and local["decision"] is True
    curve = acr_curve(frame, recourse, "s", 0, qs=[0.2, 1.0])
    assert curve["n_centres"].tolist() == [3, 3]
    assert curve.loc[1, "mean"] == pytest.approx(1.5)


def test_error_cases():
    frame, recourse = _toy()
    with pytest.raises(DataError, match="single value"):
        EqualityOfEffortAuditor(recourse, "s", 0).fit(frame.assign(s=0))
    with pytest.raises(DataError, match="does not occur"):
        EqualityOfEffortAuditor(recourse, "s", 5).fit(frame)
    with pytest.raises(ConfigError, match="sensitive"):
        MinimalInterventionRecourse(
            recourse.scm, {"x": 1.0}, 0.0, actionable=["s", "x"], ranges=[1, 1], sensitive=["s"]
        )
    with pytest.raises(ConfigError, match="cycle"):
        LinearAdditiveSCM.fit(pd.DataFrame({"a": [1.0, 2.0], "b": [2.0, 1.0]}), {"a": ["b"], "b": ["a"]})
    a = np.zeros((2, 2))
    a[1, 0] = 1.0
    chain = LinearAdditiveSCM(["a", "b"], a)
    with pytest.raises(ConfigError, match="antichain"):
        MinimalInterventionRecourse(chain, [1.0, 1.0], -1.0, actionable=["a", "b"], ranges=[1, 1])
    with pytest.raises(ConfigError, match="q"):
        acr_curve(frame, recourse, "s", 0, qs=[0.0])
    with pytest.raises(ConfigError, match="unknown SCM variable"):
        MinimalInterventionRecourse(recourse.scm, {"x": 1.0}, 0.0, actionable=["zz"], ranges=[1, 1])


def test_subsets_handle_non_antichain():
    a = np.zeros((2, 2))
    a[1, 0] = 2.0  # b <- 2a
    chain = LinearAdditiveSCM(["a", "b"], a)
    solver = MinimalInterventionRecourse(
        chain, [0.0, 1.0], -1.0, actionable=["a", "b"], ranges=[1.0, 1.0], intervention="subsets"
    )
    result = solver.solve(np.array([[0.0, 0.0]]))
    assert result.cost[0] == pytest.approx(0.5)  # via a: total effect 2
    np.testing.assert_allclose(result.counterfactual[0], [0.5, 1.0])


def test_fit_logistic_audit_errors():
    frame = pd.DataFrame({"g": ["a", "b"] * 10, "x": np.arange(20.0), "y": [0, 1] * 10})
    with pytest.raises(DataError, match="single value"):
        fit_logistic_audit(
            frame.assign(g="a"),
            sensitive="g",
            protected_value="a",
            target="y",
            variables=["x"],
            dag={},
            actionable=["x"],
        )
    with pytest.raises(DataError, match="'nope', not a column of the data"):
        fit_logistic_audit(
            frame, sensitive="g", protected_value="a", target="y", variables=["nope"], dag={}, actionable=["x"]
        )


def test_a_protected_value_that_does_not_occur_is_named_by_its_option():
    frame = pd.DataFrame({"g": ["a", "b"] * 10, "x": np.arange(20.0), "y": [0, 1] * 10})
    with pytest.raises(DataError, match=r"^protected: 'zz' does not occur in g; fix: use one of \['a', 'b'\]$"):
        fit_logistic_audit(
            frame, sensitive="g", protected_value="zz", target="y", variables=["x"], dag={}, actionable=["x"]
        )
    frame, recourse = _toy()
    with pytest.raises(DataError, match=r"^protected_value: 5 does not occur in s"):
        EqualityOfEffortAuditor(recourse, "s", 5).fit(frame)
