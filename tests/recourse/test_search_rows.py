"""The search generator scores fewer rows without changing a single recommendation.

Three savings are checked against the plain way of doing the same thing: repeated rows scored
once (:func:`~recoursesim.recourse.probe_cache.score_distinct`), the shrink's quarter points
scored lowest first and only while rejected, and agents with the same profile searched once.
"""

from __future__ import annotations

import numpy as np

from recoursesim.component import RunContext
from recoursesim.recourse import SearchRecourse
from recoursesim.recourse.probe_cache import score_distinct
from recoursesim.scoring import LinearScorer
from tests.counting import Counting


class EagerShrink(SearchRecourse):
    """The bisection as it was: every quarter point of every agent scored in each round."""

    def _bisect(self, features, moved, delta, threshold, scorer):
        accepted = np.ones(features.shape[0])
        some = np.flatnonzero((delta != 0).any(axis=1))
        rejected = np.zeros(some.size)
        quarters = np.array([0.25, 0.5, 0.75])
        for _ in range((self.bisection_steps + 1) // 2 if some.size else 0):
            fractions = rejected[:, None] + (accepted[some] - rejected)[:, None] * quarters[None, :]
            trial = self._at(
                np.repeat(features[some], 3, 0),
                np.repeat(moved[some], 3, 0),
                np.repeat(delta[some], 3, 0),
                fractions.ravel(),
            )
            ok = (np.asarray(scorer.score(trial), dtype=float) >= np.repeat(threshold[some], 3)).reshape(-1, 3)
            lowest = np.where(ok, fractions, np.inf).min(axis=1)
            highest_rejected = np.where(~ok & (fractions < lowest[:, None]), fractions, -np.inf).max(axis=1)
            accepted[some] = np.where(np.isfinite(lowest), lowest, accepted[some])
            rejected = np.maximum(rejected, highest_rejected)
        return accepted


def _setting(world, n: int):
    agents = world.agents[:n]
    scores = world.scorer.score(agents)
    return agents, scores, float(np.quantile(scores, 0.8))


def test_score_distinct_scores_each_row_once_and_gives_every_row_its_score():
    rows = np.array([[0.1, 0.2], [0.3, 0.4], [0.1, 0.2], [0.5, 0.6], [0.3, 0.4], [0.1, 0.2]])
    scorer = Counting(LinearScorer([1.0, 2.0], intercept=0.5))
    out = score_distinct(scorer, rows)
    assert scorer.rows == 3
    np.testing.assert_array_equal(out, [1.0, 1.6, 1.0, 2.2, 1.6, 1.0])  # 0.5 + x0 + 2 x1, by hand
    scorer.rows = 0
    assert np.array_equal(score_distinct(scorer, rows[:2]), scorer.scorer.score(rows[:2])) and scorer.rows == 2
    assert score_distinct(scorer, rows[:0]).shape == (0,)


def test_shrinking_lowest_point_first_gives_the_eager_recommendations_from_fewer_rows(german_gbm):
    agents, scores, threshold = _setting(german_gbm, 200)
    lazy_scorer, eager_scorer = Counting(german_gbm.scorer), Counting(german_gbm.scorer)
    lazy = SearchRecourse(action_set=german_gbm.action_set).bind(RunContext(schema=german_gbm.schema))
    eager = EagerShrink(action_set=german_gbm.action_set).bind(RunContext(schema=german_gbm.schema))
    out = lazy.recommend(agents, scores, threshold, lazy_scorer)
    reference = eager.recommend(agents, scores, threshold, eager_scorer)
    assert np.array_equal(out, reference)
    assert np.array_equal(lazy.found_, eager.found_)
    assert (out != agents).any()  # some agents were moved (and shrunk)
    assert lazy_scorer.rows < 0.95 * eager_scorer.rows


def test_agents_sharing_a_profile_get_the_recommendation_of_that_profile_searched_alone(german_gbm):
    agents, scores, threshold = _setting(german_gbm, 60)
    rng = np.random.default_rng(0)
    pick = rng.permutation(np.concatenate([np.arange(60), rng.integers(0, 60, size=90)]))  # 1 to 5 copies
    crowd, crowd_scores = agents[pick], scores[pick]
    crowd_scorer, distinct_scorer = Counting(german_gbm.scorer), Counting(german_gbm.scorer)
    deduplicated = SearchRecourse(action_set=german_gbm.action_set).bind(RunContext(schema=german_gbm.schema))
    out = deduplicated.recommend(crowd, crowd_scores, threshold, crowd_scorer)
    # every distinct profile searched once, in a generator of its own, then handed to each copy
    per_profile = SearchRecourse(action_set=german_gbm.action_set).bind(RunContext(schema=german_gbm.schema))
    expected = per_profile.recommend(agents, scores, threshold, distinct_scorer)
    assert np.array_equal(out, expected[pick])
    assert np.array_equal(deduplicated.found_, per_profile.found_[pick])
    assert (out != crowd).any()
    # 150 agents cost the model no more than their 60 profiles (bar the final check of each agent)
    assert crowd_scorer.rows <= distinct_scorer.rows + len(crowd)
