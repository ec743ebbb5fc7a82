import numpy as np
import pytest
from scipy.special import logit

from recoursesim.behaviour import ActionContext, BoundedEffortBehaviour, FollowExactlyBehaviour, LogitStepBehaviour
from recoursesim.component import RunContext
from recoursesim.recourse import LinearRecourse
from recoursesim.scoring import LinearScorer


class FixedNormal:
    """A stand-in rng whose normal draws are fixed, to hand-check formulas."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=float)

    def normal(self, loc, scale, size):
        size = int(np.prod(size))
        return loc + scale * self.values[:size]


def ctx(x, rec, effort, rng, threshold=0.6, scorer=None):
    scorer = scorer or LinearScorer([0.5, 0.5])
    x = np.asarray(x, dtype=float)
    return ActionContext(
        features=x,
        recommendation=np.asarray(rec, dtype=float),
        effort=np.asarray(effort, dtype=float),
        scores=scorer.score(x),
        threshold=threshold,
        scorer=scorer,
        cost=LinearRecourse().bind(RunContext()).cost,
        rng=rng,
        step=0,
    )


def test_logit_step_matches_the_reference_formula_by_hand():
    # x = (0.3, 0.5): f = 0.4, c = 0.1 + 0.8*0.4 = 0.42; x' = (0.0, 0.2): f = 0.1, r = 0.18.
    # delta = |N(0, sigma)| with the draw 1.0 and sigma = 0.05 -> tau = 0.47.
    # d = (logit 0.47 - logit 0.42) / (logit 0.18 - logit 0.42) < 0; direction (x'-x)/|x'-x| = -(1,1)/sqrt2
    c, r, tau = 0.42, 0.18, 0.47
    d = (logit(tau) - logit(c)) / (logit(r) - logit(c))
    expected = np.array([0.3, 0.5]) + d * np.array([-1, -1]) / np.sqrt(2)
    new = LogitStepBehaviour().act(ctx([[0.3, 0.5]], [[0.0, 0.2]], [0.05], FixedNormal([1.0])))
    np.testing.assert_allclose(new[0], expected)
    assert new[0, 0] > 0.3  # moves forward although x' is behind
    assert expected[0] == pytest.approx(0.3 + 0.12005, abs=1e-4)  # |d| = 0.20263 / 1.19358 = 0.16977; / sqrt2


def test_logit_step_clips_to_bounds_and_leaves_agents_at_threshold():
    x = [[1.05, 1.05], [0.6, 0.6]]
    new = LogitStepBehaviour().act(ctx(x, [[0.2, 0.2], [0.6, 0.6]], [5.0, 5.0], FixedNormal([1.0, 1.0]), threshold=1.2))
    # a large effort draw pushes the first agent forward past the upper bound: it is clipped to exactly 1.1
    np.testing.assert_array_equal(new[0], [1.1, 1.1])
    np.testing.assert_array_equal(new[1], [0.6, 0.6])  # at its recommendation: no move


def test_bounded_effort_moves_by_budget_and_never_past_the_recommendation():
    # distance from (0,0) to (0.3,0.4) is 0.5; budget = |draw| * capacity = 0.2 -> 40% of the way
    new = BoundedEffortBehaviour().act(ctx([[0.0, 0.0]], [[0.3, 0.4]], [0.2], FixedNormal([1.0])))
    np.testing.assert_allclose(new, [[0.12, 0.16]])
    # budget 1.0 > distance: stops exactly at the recommendation
    new = BoundedEffortBehaviour(budget="constant").act(ctx([[0.0, 0.0]], [[0.3, 0.4]], [1.0], FixedNormal([0.0])))
    np.testing.assert_allclose(new, [[0.3, 0.4]])


def test_bounded_effort_binary_is_all_or_nothing():
    behaviour = BoundedEffortBehaviour(budget="constant", adaptation="binary")
    new = behaviour.act(ctx([[0.0, 0.0], [0.0, 0.0]], [[0.3, 0.4], [0.3, 0.4]], [0.4, 0.6], FixedNormal([0, 0])))
    np.testing.assert_allclose(new, [[0.0, 0.0], [0.3, 0.4]])


def test_follow_exactly():
    rec = np.array([[0.3, 0.4]])
    new = FollowExactlyBehaviour().act(ctx([[0.0, 0.0]], rec, [0.0], FixedNormal([0.0])))
    np.testing.assert_array_equal(new, rec)
    assert new is not rec
