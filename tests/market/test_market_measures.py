"""Market measures against hand-computed values, and their properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from recoursesim.errors import ConfigError
from recoursesim.metrics.market import (
    homogenization,
    recourse_portability,
    rejection_rates,
    systemic_exclusion,
)

T, F = True, False
# Four applicants, two lenders. Applicant 3 applied only to lender 0.
APPLIED = np.array([[T, T], [T, T], [T, T], [T, F]])
ACCEPTED = np.array([[T, F], [F, F], [F, T], [F, T]])  # applicant 3's acceptance at lender 1 is ignored
GROUP = np.array([0, 0, 1, 1])


def test_systemic_exclusion_by_hand():
    # rejected everywhere they applied: applicant 1 (both) and applicant 3 (its one lender)
    assert systemic_exclusion(APPLIED, ACCEPTED, GROUP) == {"all": 0.5, "0": 0.5, "1": 0.5}


def test_applicants_who_applied_nowhere_are_not_counted():
    applied = np.vstack([APPLIED, [[F, F]]])
    accepted = np.vstack([ACCEPTED, [[F, F]]])
    assert systemic_exclusion(applied, accepted)["all"] == 0.5


def test_rejection_rates_by_hand():
    # lender 0: applicants 0..3, rejects 1, 2, 3 -> 3/4; lender 1: applicants 0..2, rejects 0, 1 -> 2/3
    assert np.allclose(rejection_rates(APPLIED, ACCEPTED), [[3 / 4, 2 / 3]])
    # group 0 (applicants 0, 1): lender 0 rejects 1 of 2, lender 1 rejects 2 of 2
    # group 1 (applicants 2, 3): lender 0 rejects 2 of 2, lender 1 rejects 0 of 1
    assert np.allclose(rejection_rates(APPLIED, ACCEPTED, GROUP), [[1 / 2, 1], [1, 0]])


def test_homogenization_by_hand():
    result = homogenization(APPLIED, ACCEPTED, GROUP)
    # pooled: observed 2 excluded; expected 3 * (3/4 * 2/3) + 3/4 = 1.5 + 0.75 = 2.25
    assert result["all"] == pytest.approx(2 / 2.25)
    # group 0: observed 1; expected 2 * (1/2 * 1) = 1
    assert result["0"] == pytest.approx(1.0)
    # group 1: observed 1 (applicant 3); expected (1 * 0) + 1 = 1
    assert result["1"] == pytest.approx(1.0)


def test_identical_decisions_by_hand():
    applied = np.ones((5, 3), dtype=bool)
    decision = np.array([T, F, F, T, F])
    accepted = np.repeat(decision[:, None], 3, axis=1)
    # each lender rejects 3/5; everybody rejected by one is rejected by all
    assert systemic_exclusion(applied, accepted)["all"] == pytest.approx(0.6)
    assert homogenization(applied, accepted)["all"] == pytest.approx(0.6 / 0.6**3)


def test_one_lender_is_never_homogenised():
    applied = np.ones((6, 1), dtype=bool)
    accepted = np.array([[T], [F], [F], [T], [F], [T]])
    assert homogenization(applied, accepted)["all"] == pytest.approx(1.0)


def test_nobody_rejected_gives_nan_homogenization():
    applied = np.ones((3, 2), dtype=bool)
    assert math.isnan(homogenization(applied, applied)["all"])


def test_portability_by_hand():
    nan = np.nan
    recommendation = np.array([[1.0, 2.0], [nan, nan], [0.5, 0.5], [3.0, 1.0]])
    applied = np.array([[T, T], [T, T], [T, F], [F, F]])
    accepted = np.array([[T, F], [T, T], [T, F], [F, F]])
    # pairs of recommended applicants (0, 2, 3) with the lenders they applied to: (0,0) (0,1) (2,0)
    # accepted: (0,0) and (2,0) -> 2/3; applicant 1 had no recommendation, applicant 3 applied nowhere
    result = recourse_portability(recommendation, applied, accepted, np.array(["a", "a", "b", "b"]))
    assert result["all"] == pytest.approx(2 / 3)
    assert result["a"] == pytest.approx(1 / 2)
    assert result["b"] == pytest.approx(1.0)


def test_bad_shapes_are_refused():
    with pytest.raises(ConfigError, match=r"^applied:"):
        systemic_exclusion(np.ones((3, 2), dtype=bool), np.ones((3, 3), dtype=bool))
    with pytest.raises(ConfigError, match=r"^applied:"):
        systemic_exclusion(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ConfigError, match=r"^group:"):
        systemic_exclusion(np.ones((3, 2), dtype=bool), np.ones((3, 2), dtype=bool), np.zeros(2))
    with pytest.raises(ConfigError, match=r"^recommendation:"):
        recourse_portability(np.ones((2, 2)), np.ones((3, 2), dtype=bool), np.ones((3, 2), dtype=bool))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rates=st.lists(st.floats(0.2, 0.8), min_size=2, max_size=3),
)
def test_independent_random_lenders_give_homogenization_one(seed, rates):
    """Independent lenders: homogenization ≈ 1 within sampling error.

    With n applicants all applying to every lender and lender j rejecting each independently with
    probability p_j, the observed exclusion X/n estimates P = Π p_j with standard error
    sqrt(P(1-P)/n), and the ratio's denominator (product of estimated rates) is within a few
    sqrt(p(1-p)/n) of P too. n = 20,000 and the smallest P here is 0.2^3 = 0.008: the ratio's
    relative standard error is below sqrt((1-P)/(nP)) + Σ_j sqrt((1-p_j)/(n p_j)) ≈ 0.079 + 0.03 · 3;
    the tolerance is 5 of those standard errors, computed from the drawn rates.
    """
    rng = np.random.default_rng(seed)
    n = 20_000
    p = np.array(rates)
    applied = np.ones((n, p.size), dtype=bool)
    accepted = rng.random((n, p.size)) >= p
    chance = float(np.prod(p))
    relative_se = math.sqrt((1 - chance) / (n * chance)) + float(np.sum(np.sqrt((1 - p) / (n * p))))
    assert homogenization(applied, accepted)["all"] == pytest.approx(1.0, abs=5 * relative_se)


@settings(max_examples=50, deadline=None)
@given(
    decision=arrays(bool, st.integers(1, 40)),
    lenders=st.integers(1, 4),
)
def test_identical_decisions_exclude_at_each_lenders_rejection_rate(decision, lenders):
    applied = np.ones((decision.size, lenders), dtype=bool)
    accepted = np.repeat(decision[:, None], lenders, axis=1)
    rates = rejection_rates(applied, accepted)
    assert np.allclose(rates, 1 - decision.mean())
    assert systemic_exclusion(applied, accepted)["all"] == pytest.approx(1 - decision.mean())


@settings(max_examples=100, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 30), st.integers(1, 4)),
    seed=st.integers(0, 2**32 - 1),
)
def test_shares_are_between_zero_and_one(shape, seed):
    rng = np.random.default_rng(seed)
    applied = rng.random(shape) < 0.7
    accepted = rng.random(shape) < 0.5
    group = rng.integers(0, 3, shape[0])
    recommendation = np.where(rng.random((shape[0], 1)) < 0.5, rng.random((shape[0], 2)), np.nan)
    for measure in (
        systemic_exclusion(applied, accepted, group),
        recourse_portability(recommendation, applied, accepted, group),
    ):
        values = np.array([v for v in measure.values() if not math.isnan(v)])
        assert np.all((values >= 0) & (values <= 1))
    ratio = homogenization(applied, accepted, group)
    assert all(math.isnan(v) or v >= 0 for v in ratio.values())
    # systemic exclusion is never above the lowest rejection rate of a lender everyone applied to
    everyone = applied.all(axis=0)
    if everyone.any() and applied.any(axis=1).all():
        lowest = np.nanmin(rejection_rates(applied, accepted)[0][everyone])
        assert systemic_exclusion(applied, accepted)["all"] <= lowest + 1e-12
