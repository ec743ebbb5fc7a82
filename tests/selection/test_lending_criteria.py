"""The lending criteria and the outcome curve against values computed by hand on 3-point score distributions.

Scores 300, 500, 700. Group A: shares 0.5, 0.3, 0.2, repayment 0.5, 0.7, 0.95; group B: shares
0.2, 0.3, 0.5, repayment 0.6, 0.85, 0.95; A is a quarter of the population. With u₊ = 1, u₋ = −4
(break-even 0.8) a loan is worth −1.5, −0.5, 0.75 in A and −1, 0.25, 0.75 in B.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.errors import ConfigError
from recoursesim.selection.lending import (
    CRITERIA,
    LendingGroup,
    Utility,
    demographic_parity,
    equal_opportunity,
    max_utility,
    max_utility_blind,
    policy_at_rate,
    selection_rate,
    threshold_score,
    true_positive_rate,
)
from recoursesim.selection.outcome_curve import ScoreChange, delta_mu, outcome_curve

SCORES = np.array([300.0, 500.0, 700.0])
A = LendingGroup("A", SCORES, np.array([0.5, 0.3, 0.2]), np.array([0.5, 0.7, 0.95]), 1.0)
B = LendingGroup("B", SCORES, np.array([0.2, 0.3, 0.5]), np.array([0.6, 0.85, 0.95]), 3.0)
PAPER = Utility(repaid=1.0, default=-4.0)


def test_max_utility_lends_where_the_loan_pays_off() -> None:
    # break-even 0.8: A only at 700 (rate 0.2), B at 500 and 700 (rate 0.8).
    policy_a, policy_b = max_utility([A, B], PAPER)
    assert PAPER.break_even == pytest.approx(0.8)
    np.testing.assert_array_equal(policy_a, [0, 0, 1])
    np.testing.assert_array_equal(policy_b, [0, 1, 1])
    assert threshold_score(SCORES, policy_a) == 700 and threshold_score(SCORES, policy_b) == 500


def test_group_blind_max_utility_picks_the_cut_off_of_highest_total_utility() -> None:
    # Total utility by cut-off: above 700 0.31875, 500 0.3375, 300 0: the cut-off is 500 for both groups.
    policy_a, policy_b = max_utility_blind([A, B], PAPER)
    np.testing.assert_array_equal(policy_a, [0, 1, 1])
    np.testing.assert_array_equal(policy_b, [0, 1, 1])


def test_demographic_parity_picks_the_common_rate_of_highest_utility() -> None:
    # Slope of total utility in the common rate: 0.75 on [0, 0.2], 0.4375 on [0.2, 0.5], -0.1875 on [0.5, 0.8].
    policy_a, policy_b = demographic_parity([A, B], PAPER)
    np.testing.assert_allclose(policy_a, [0, 1, 1], atol=1e-12)
    np.testing.assert_allclose(policy_b, [0, 0, 1], atol=1e-12)
    assert selection_rate(A.pmf, policy_a) == pytest.approx(0.5)
    assert selection_rate(B.pmf, policy_b) == pytest.approx(0.5)


def test_equal_opportunity_picks_the_common_true_positive_rate_of_highest_utility() -> None:
    # The optimum is A's breakpoint t = 0.40 / 0.65 = 8/13; B then lends at 500 with
    # probability (8/13 * 0.85 - 0.475) / 0.255 = 0.18853695...
    policy_a, policy_b = equal_opportunity([A, B], PAPER)
    share = (8 / 13 * 0.85 - 0.475) / 0.255
    np.testing.assert_allclose(policy_a, [0, 1, 1], atol=1e-12)
    np.testing.assert_allclose(policy_b, [0, share, 1], atol=1e-12)
    assert true_positive_rate(A, policy_a) == pytest.approx(8 / 13)
    assert true_positive_rate(B, policy_b) == pytest.approx(8 / 13)
    assert selection_rate(B.pmf, policy_b) == pytest.approx(0.5 + 0.3 * share)
    assert threshold_score(SCORES, policy_b) == pytest.approx(500 + (1 - share) * 200)


def test_delta_mu_keeps_the_expected_score_within_the_scale() -> None:
    # A: at 300 the expected 262.5 is raised to 300 (change 0), at 500 +7.5, at 700 +63.75.
    change = ScoreChange()
    np.testing.assert_allclose(change.expected(SCORES, A.repay), [0.0, 7.5, 63.75])
    np.testing.assert_allclose(change.expected(SCORES, B.repay), [0.0, 41.25, 63.75])
    policy_a, policy_b = equal_opportunity([A, B], PAPER)
    share = (8 / 13 * 0.85 - 0.475) / 0.255
    assert delta_mu(A, policy_a, change) == pytest.approx(0.3 * 7.5 + 0.2 * 63.75)
    assert delta_mu(B, policy_b, change) == pytest.approx(0.5 * 63.75 + 0.3 * share * 41.25)


def test_outcome_curve_regions_and_rates() -> None:
    # Changes 0, -37.5, 63.75 at shares 0.2, 0.6, 0.2: Δμ is 0, 12.75, -9.75, -9.75 at rates 0, 0.2, 0.8, 1.
    group = LendingGroup("C", SCORES, np.array([0.2, 0.6, 0.2]), np.array([0.5, 0.5, 0.95]), 1.0)
    curve = outcome_curve(group, ScoreChange())
    np.testing.assert_allclose(curve.rate, [0, 0.2, 0.8, 1.0])
    np.testing.assert_allclose(curve.delta_mu, [0, 12.75, -9.75, -9.75])
    assert curve.harm_rate() == pytest.approx(0.2 + 0.6 * 12.75 / 22.5)
    assert curve.region(0.1, 0.2) == "relative harm"
    assert curve.region(0.3, 0.1) == "relative improvement"
    assert curve.region(0.6, 0.1) == "active harm"
    assert curve.region(0.2, 0.2) == "as max utility"


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Utility(default=2.0), "utility.default"),
        (lambda: Utility(repaid=-1.0), "utility.repaid"),
        (lambda: ScoreChange(default=150.0), "score_change.default"),
        (lambda: ScoreChange(repaid=float("nan")), "score_change.repaid"),
    ],
)
def test_a_gain_where_the_paper_requires_a_loss_is_refused(make, field) -> None:
    with pytest.raises(ConfigError) as caught:
        make()
    assert caught.value.field == field


_pmfs = st.lists(st.floats(0.01, 1.0), min_size=2, max_size=8).map(lambda v: np.array(v) / np.sum(v))


@st.composite
def _groups(draw: st.DrawFn) -> list[LendingGroup]:
    m = draw(st.integers(2, 8))
    score = np.linspace(300, 850, m)
    groups = []
    for name in ("A", "B"):
        weights = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=m, max_size=m)))
        repay = np.array(draw(st.lists(st.floats(0.01, 0.99), min_size=m, max_size=m)))
        groups.append(LendingGroup(name, score, weights / weights.sum(), repay, draw(st.floats(0.1, 10.0))))
    return groups


def _utility(groups: list[LendingGroup], policies: list[np.ndarray]) -> float:
    shares = np.array([g.size for g in groups]) / sum(g.size for g in groups)
    return float(
        sum(w * np.sum(g.pmf * p * PAPER.per_loan(g.repay)) for w, g, p in zip(shares, groups, policies, strict=True))
    )


@settings(max_examples=60, deadline=None)
@given(_groups(), st.floats(0.0, 1.0))
def test_each_criterion_meets_its_constraint_and_none_beats_max_utility(groups, rate) -> None:
    best = _utility(groups, max_utility(groups, PAPER))
    for name, criterion in CRITERIA.items():
        policies = criterion(groups, PAPER)
        assert all(np.all((p >= 0) & (p <= 1)) for p in policies), name
        assert _utility(groups, policies) <= best + 1e-12, name
    dp = demographic_parity(groups, PAPER)
    assert selection_rate(groups[0].pmf, dp[0]) == pytest.approx(selection_rate(groups[1].pmf, dp[1]), abs=1e-9)
    # demographic parity is the best common rate: no other common rate does better
    assert _utility(groups, [policy_at_rate(g.pmf, rate) for g in groups]) <= _utility(groups, dp) + 1e-12
    eo = equal_opportunity(groups, PAPER)
    assert true_positive_rate(groups[0], eo[0]) == pytest.approx(true_positive_rate(groups[1], eo[1]), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(_pmfs, st.floats(0.0, 1.0))
def test_a_threshold_policy_selects_exactly_its_rate_from_the_top(pmf, rate) -> None:
    policy = policy_at_rate(pmf, rate)
    assert selection_rate(pmf, policy) == pytest.approx(rate, abs=1e-12)
    assert np.all(np.diff(policy) >= 0)  # never lends below a score it turns down


@settings(max_examples=60, deadline=None)
@given(_groups(), st.floats(0.0, 1.0))
def test_the_outcome_curve_at_a_rate_is_the_delta_mu_of_the_threshold_policy_at_that_rate(groups, rate) -> None:
    change = ScoreChange()
    for group in groups:
        curve = outcome_curve(group, change)
        assert curve.at(rate) == pytest.approx(delta_mu(group, policy_at_rate(group.pmf, rate), change), abs=1e-9)
        assert curve.delta_mu[0] == 0.0 and curve.rate[-1] == pytest.approx(1.0)


def test_equal_opportunity_refuses_a_group_without_would_be_repayers() -> None:
    nobody = LendingGroup("N", SCORES, np.array([0.5, 0.3, 0.2]), np.zeros(3), 1.0)
    with pytest.raises(ConfigError, match=r"groups\.N: nobody in the group would repay"):
        equal_opportunity([A, nobody], PAPER)


def test_a_group_blind_cut_off_needs_one_score_grid() -> None:
    other = LendingGroup("O", SCORES + 1.0, B.pmf, B.repay, 1.0)
    with pytest.raises(ConfigError, match="groups: are not on one score grid"):
        max_utility_blind([A, other], PAPER)
