"""The search generator's probe cache and its handling of repeated profiles."""

from __future__ import annotations

import pickle

import numpy as np

from recoursesim.component import RunContext
from recoursesim.recourse import SearchRecourse
from recoursesim.recourse.probe_cache import ProbeCache
from recoursesim.scoring import LinearScorer
from tests.counting import Counting


def _setting(world, n: int = 150):
    agents = world.agents[:n]
    scores = world.scorer.score(agents)
    return agents, scores, float(np.quantile(scores, 0.8))


def _search(world) -> SearchRecourse:
    return SearchRecourse(action_set=world.action_set).bind(RunContext(schema=world.schema))


def test_a_second_call_reuses_the_probes_and_gives_the_same_recommendations(german_gbm):
    agents, scores, threshold = _setting(german_gbm)
    scorer = Counting(german_gbm.scorer)
    search = _search(german_gbm)
    first = search.recommend(agents, scores, threshold, scorer)
    rows_first, scorer.rows = scorer.rows, 0
    second = search.recommend(agents, scores, threshold, scorer)
    assert np.array_equal(first, second)
    # the probes (about 40 rows per rejected agent here) are not scored again
    n_below = int((scores < threshold).sum())
    assert rows_first - scorer.rows >= 20 * n_below
    assert len(search.probe_cache_) == n_below


def test_the_cache_is_emptied_for_another_scorer_object(german_gbm, german_logistic):
    agents, scores, threshold = _setting(german_gbm)
    search = _search(german_gbm)
    search.recommend(agents, scores, threshold, german_gbm.scorer)
    # the same rows under another model: as a fresh generator would do it
    other_scores = german_logistic.scorer.score(agents)
    other_threshold = float(np.quantile(other_scores, 0.8))
    warm = search.recommend(agents, other_scores, other_threshold, german_logistic.scorer)
    fresh_generator = _search(german_gbm)
    fresh = fresh_generator.recommend(agents, other_scores, other_threshold, german_logistic.scorer)
    assert np.array_equal(warm, fresh)
    assert np.array_equal(search.found_, fresh_generator.found_)


def test_the_cache_is_emptied_when_the_model_is_refitted_in_place():
    features = np.random.default_rng(1).uniform(0.0, 0.5, size=(40, 2))
    scorer = LinearScorer([1.0, 0.0])
    search = SearchRecourse().bind(RunContext())
    search.recommend(features, scorer.score(features), 0.6, scorer)
    assert len(search.probe_cache_) > 0
    scorer.coef_ = np.array([0.0, 1.0])  # the same object, another model: stale probes would move x0
    warm = search.recommend(features, scorer.score(features), 0.6, scorer)
    fresh_generator = SearchRecourse().bind(RunContext())
    fresh = fresh_generator.recommend(features, scorer.score(features), 0.6, scorer)
    assert np.array_equal(warm, fresh)
    assert np.array_equal(search.found_, fresh_generator.found_)


def test_changed_features_are_probed_anew():
    features = np.random.default_rng(2).uniform(0.0, 0.5, size=(30, 2))
    scorer = Counting(LinearScorer([0.5, 0.5]))
    search = SearchRecourse().bind(RunContext())
    search.recommend(features, scorer.scorer.score(features), 0.6, scorer)
    cached = len(search.probe_cache_)
    moved = features + 0.1  # every agent moved: no profile is remembered
    warm = search.recommend(moved, scorer.scorer.score(moved), 0.6, scorer)
    assert len(search.probe_cache_) == cached + len(moved)
    assert np.array_equal(
        warm, SearchRecourse().bind(RunContext()).recommend(moved, scorer.scorer.score(moved), 0.6, scorer.scorer)
    )


def test_identical_agents_get_identical_recommendations(german_gbm):
    agents, scores, threshold = _setting(german_gbm, 60)
    repeated = np.concatenate([agents, agents[::-1]])
    repeated_scores = np.concatenate([scores, scores[::-1]])
    search = _search(german_gbm)
    out = search.recommend(repeated, repeated_scores, threshold, german_gbm.scorer)
    assert np.array_equal(out[:60], out[60:][::-1])
    assert np.array_equal(search.found_[:60], search.found_[60:][::-1])
    single = _search(german_gbm)
    assert np.array_equal(single.recommend(agents, scores, threshold, german_gbm.scorer), out[:60])


def test_a_pickled_generator_starts_with_an_empty_cache():
    features = np.random.default_rng(3).uniform(0.0, 1.0, size=(20, 2))
    scorer = LinearScorer([0.5, 0.5])
    search = SearchRecourse().bind(RunContext())
    search.recommend(features, scorer.score(features), 0.6, scorer)
    copy = pickle.loads(pickle.dumps(search))
    assert len(search.probe_cache_) > 0 and len(copy.probe_cache_) == 0
    assert np.array_equal(
        copy.recommend(features, scorer.score(features), 0.6, scorer),
        search.recommend(features, scorer.score(features), 0.6, scorer),
    )


def test_probe_cache_forgets_everything_for_another_scorer_or_changed_scores():
    rows = np.arange(8, dtype=float).reshape(4, 2)
    first, second = object(), object()
    cache = ProbeCache()
    cache.lookup(first, rows, np.zeros(4))
    cache.store(rows, np.zeros(4), np.ones((4, 3)))
    hit, scores = cache.lookup(first, rows, np.zeros(4))
    assert hit.all() and np.all(scores == 1.0)
    assert not cache.lookup(second, rows, np.zeros(4))[0].any()  # another model object
    assert len(cache) == 0 and cache.layout is None
    cache.store(rows, np.zeros(4), np.ones((4, 3)))
    changed = np.array([0.0, 0.0, 0.5, 0.0])  # the same object scores a remembered profile differently
    assert not cache.lookup(second, rows, changed)[0].any()
    assert len(cache) == 0


def test_probe_cache_keeps_at_most_its_limit():
    cache = ProbeCache(limit=10)
    scorer = object()
    rows = np.arange(24, dtype=float).reshape(12, 2)
    cache.lookup(scorer, rows[:0], np.zeros(0))
    cache.store(rows[:8], np.arange(8.0), np.ones((8, 3)))
    cache.store(rows[8:], np.arange(8.0, 12.0), 2 * np.ones((4, 3)))
    assert len(cache) <= 10
    hit, scores = cache.lookup(scorer, rows, np.arange(12.0))
    assert hit[8:].all() and np.all(scores[-4:] == 2.0)  # the newest profiles are kept
    assert not hit[:2].any()  # the oldest went
