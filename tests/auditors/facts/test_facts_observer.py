import numpy as np
import pandas as pd

from recoursesim.auditors.facts import FactsObserver
from recoursesim.observers import Observer, PopulationSnapshot, observation_rows
from recoursesim.scoring.linear import LinearScorer


class ProductScorer:
    """score = x0 * x1 (not additive)."""

    def score(self, features):
        return features[:, 0] * features[:, 1]


def snapshot(scorer, threshold=0.25, n=400, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 2, size=n)
    features = rng.uniform(0, 1, size=(n, 2)) * np.where(group[:, None] == 1, 1.0, 0.8)
    return PopulationSnapshot(
        step=3,
        agent_id=np.arange(n),
        features=features,
        group=group,
        feature_names=("x0", "x1"),
        group_names=("B", "A"),
        scorer=scorer,
        threshold=threshold,
        rng=rng,
    )


def test_observer_protocol_and_rows():
    observer = FactsObserver(every=2, n_bins=4, min_support=0.05)
    assert isinstance(observer, Observer)
    result = observer.observe(snapshot(ProductScorer()))
    rows = observation_rows(observer.name, 3, result)
    assert list(rows.columns) == ["step", "observer", "group", "metric", "value"]
    values = dict(zip(rows["metric"], rows["value"], strict=True))
    assert values["n_subgroups"] > 0
    top = {k: v for k, v in values.items() if k.startswith("top_score:")}
    assert "top_score:equal_effectiveness[macro]" in top
    assert all(v >= 0 for v in top.values())
    # Group B's features are shrunk, so it is the one with less recourse somewhere.
    assert max(top.values()) > 0


def test_observer_linear_scorer_and_skip_when_one_group_unaffected():
    observer = FactsObserver(min_support=0.05)
    result = observer.observe(snapshot(LinearScorer([0.5, 0.5]), threshold=0.4))
    assert isinstance(result, pd.DataFrame) and len(result) > 3
    # Threshold below every score: nobody is affected -> the audit is skipped, not crashed.
    skipped = observer.observe(snapshot(LinearScorer([0.5, 0.5]), threshold=-1.0))
    assert dict(zip(skipped["metric"], skipped["value"], strict=True))["skipped"] == 1.0
