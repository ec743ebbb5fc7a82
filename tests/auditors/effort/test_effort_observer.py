import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from recoursesim.auditors.effort import EqualityOfEffortObserver
from recoursesim.errors import ConfigError
from recoursesim.observers import Observer, PopulationSnapshot
from recoursesim.scoring import ClassifierScorer, LinearScorer


def _snapshot(x, group, scorer=None, threshold=4.5):
    x = np.asarray(x, dtype=float).reshape(-1, 1)
    return PopulationSnapshot(
        step=1,
        agent_id=np.arange(len(group)),
        features=x,
        group=np.asarray(group),
        feature_names=("x",),
        group_names=("p", "u"),
        scorer=scorer or LinearScorer([1.0]),
        threshold=threshold,
        rng=np.random.default_rng(0),
    )


def _values(frame):
    return {(g, m): v for g, m, v in frame[["group", "metric", "value"]].itertuples(index=False)}


def test_effort_observer_by_hand():
    # group p: x = 0..3 (all unfavourable), group u: x = 2..5 (2, 3, 4 unfavourable); range 5
    snap = _snapshot([0, 1, 2, 3, 2, 3, 4, 5], [0, 0, 0, 0, 1, 1, 1, 1])
    observer = EqualityOfEffortObserver()
    assert isinstance(observer, Observer)
    v = _values(observer.observe(snap))
    assert v[("p", "Phi_own")] == pytest.approx(0.6)
    assert v[("p", "Phi_other")] == pytest.approx(0.3)
    assert v[("p", "ACR")] == pytest.approx(2.0)
    assert v[("u", "ACR")] == pytest.approx(0.5)
    assert v[("p", "RD")] == 0 and v[("p", "n_unfavourable")] == 4 and v[("u", "n_unfavourable")] == 3


def test_effort_observer_individual_level():
    # Costs (range 5, threshold 4.5): p = 0.9, 0.7, 0.5, 0.3; u = 0.5, 0.3, 0.1 (x = 5 is favourable).
    # Centres are p's unfavourable agents; the radius is the median of the 7 distances to the others:
    #   x=0: radius 3/5, members x <= 3: own 0.9 0.7 0.5 0.3 (0.6), other 0.5 0.3 (0.4) -> 1.5
    #   x=1: radius 2/5, the same members -> 1.5
    #   x=2: radius 1/5, members 1..3: own 0.7 0.5 0.3 (0.5), other 0.5 0.3 (0.4) -> 1.25
    #   x=3: radius 1/5, members 2..4: own 0.5 0.3 (0.4), other 0.5 0.3 0.1 (0.3) -> 4/3
    snap = _snapshot([0, 1, 2, 3, 2, 3, 4, 5], [0, 0, 0, 0, 1, 1, 1, 1])
    v = _values(EqualityOfEffortObserver(q=0.5).observe(snap))
    assert v[("p", "ACR_q_mean")] == pytest.approx((1.5 + 1.5 + 1.25 + 4 / 3) / 4)
    assert v[("p", "ACR_q_defined")] == 4
    assert v[("p", "ACR")] == pytest.approx(2.0)  # the system level is unchanged by q


def test_effort_observer_needs_linear_scorer():
    x = np.arange(8.0).reshape(-1, 1)
    tree = DecisionTreeClassifier().fit(x, [0, 0, 0, 0, 1, 1, 1, 1])
    snap = _snapshot(np.arange(8.0), [0, 1] * 4, scorer=ClassifierScorer(tree), threshold=0.5)
    with pytest.raises(ConfigError, match="linear scorer"):
        EqualityOfEffortObserver().observe(snap)
    with pytest.raises(ConfigError):
        EqualityOfEffortObserver(q=0)
