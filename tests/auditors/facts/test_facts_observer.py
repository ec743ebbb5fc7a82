import math

import numpy as np
import pandas as pd
import pytest

from recoursesim.auditors.facts import FactsObserver
from recoursesim.errors import ConfigError
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


class SumScorer:
    """score = x0 + x1."""

    def score(self, features):
        return features[:, 0] + features[:, 1]


def grid_snapshot(scorer=None, threshold: float = 2.0) -> PopulationSnapshot:
    """x0, x1 in {0, 1}; positive iff both are 1 (score x0 + x1 >= 2, or x0 * x1 >= 1).

    Group A (code 1): 10 agents at each of (0,0), (0,1), (1,0), (1,1). Group B (code 0): 12 at
    (0,0), 4 at (0,1), 4 at (1,0), 12 at (1,1). Each feature is half 0, half 1, so its two quantile
    bins are {0} and {1} (medians 0 and 1), ordinal with cost 1 per step.
    """
    cells = [((0, 0), 1, 10), ((0, 1), 1, 10), ((1, 0), 1, 10), ((1, 1), 1, 10)]
    cells += [((0, 0), 0, 12), ((0, 1), 0, 4), ((1, 0), 0, 4), ((1, 1), 0, 12)]
    features = np.array([xy for xy, _, k in cells for _ in range(k)], dtype=float)
    group = np.array([g for _, g, k in cells for _ in range(k)])
    return PopulationSnapshot(
        step=3,
        agent_id=np.arange(len(group)),
        features=features,
        group=group,
        feature_names=("x0", "x1"),
        group_names=("B", "A"),
        scorer=scorer or SumScorer(),
        threshold=threshold,
        rng=np.random.default_rng(0),
    )


def test_observer_rows_match_a_hand_computed_audit():
    # Affected: A 30 (10 each at (0,0), (0,1), (1,0)), B 20 (12, 4, 4). Common subgroups (5%):
    # {x0=lo}, {x0=hi}, {x1=lo}, {x1=hi} and the three affected cells -> 7. Actions (mined on the
    # (1,1) agents): {x0=hi}, {x1=hi}, {x0=hi, x1=hi}. With the paper's rule:
    #   {x0=lo} <- {x0=hi}: works for x1 = 1: A 10/20 = 0.5, B 4/16 = 0.25 (same for {x1=lo})
    #   {x0=hi}, {x1=hi}: no action changes them; the three cells <- {x0=hi, x1=hi}: 1 vs 1.
    # Equal Effectiveness: 2 unfair subgroups, top 0.25. Choice (phi 0.3): 1 vs 0 -> top 1;
    # (phi 0.7): 0 vs 0 or 1 vs 1 -> none. Macro cost at phi 0.3 on {x0=lo}: 1 vs inf -> inf.
    observer = FactsObserver(every=2, n_bins=2, min_support=0.05)
    assert isinstance(observer, Observer)
    rows = observation_rows(observer.name, 3, observer.observe(grid_snapshot()))
    assert list(rows.columns) == ["step", "observer", "group", "metric", "value"]
    values = dict(zip(rows["metric"], rows["value"], strict=True))
    _assert_grid_audit(values)
    assert values["n_unfair:equal_choice_for_recourse[macro, phi=0.3]"] == 2
    assert values["top_score:equal_choice_for_recourse[macro, phi=0.7]"] == 0
    assert values["n_unfair:equal_cost_of_effectiveness[macro, phi=0.3]"] == 2
    # Everyone with recourse pays 1 (or 2 in the (0,0) cell) in both groups.
    assert values["top_score:equal_conditional_mean_recourse[micro]"] == 0


def _assert_grid_audit(values: dict) -> None:
    """The hand-computed FACTS audit of the {0, 1} grid, shared by its additive and product scorers."""
    assert values["n_subgroups"] == 7
    for view in ("micro", "macro"):
        assert values[f"top_score:equal_effectiveness[{view}]"] == pytest.approx(0.25)
        assert values[f"n_unfair:equal_effectiveness[{view}]"] == 2
    assert values["top_score:equal_choice_for_recourse[macro, phi=0.3]"] == 1
    assert values["n_unfair:equal_choice_for_recourse[macro, phi=0.7]"] == 0
    assert math.isinf(values["top_score:equal_cost_of_effectiveness[macro, phi=0.3]"])


def test_observer_on_a_product_scorer_matches_the_hand_computed_audit():
    # A non-additive scorer: on the {0, 1} grid, x0 * x1 >= 1 selects the same (1, 1) cell as
    # x0 + x1 >= 2, so the hand-computed audit above holds: group B (more agents at (0, 0)) gets
    # effectiveness 0.25 where A gets 0.5 on {x0=lo} and {x1=lo}.
    observer = FactsObserver(every=2, n_bins=2, min_support=0.05)
    rows = observation_rows("facts", 3, observer.observe(grid_snapshot(ProductScorer(), threshold=1.0)))
    values = dict(zip(rows["metric"], rows["value"], strict=True))
    _assert_grid_audit(values)
    # On continuous data, the product scorer still gives common subgroups and a positive top score.
    spread = FactsObserver(every=2, n_bins=4, min_support=0.05, actions="subsets").observe(snapshot(ProductScorer()))
    spread_values = dict(zip(spread["metric"], spread["value"], strict=True))
    assert spread_values["n_subgroups"] > 0 and spread_values["top_score:equal_effectiveness[macro]"] > 0


def test_observer_linear_scorer_and_skip_when_one_group_unaffected():
    observer = FactsObserver(min_support=0.05)
    result = observer.observe(snapshot(LinearScorer([0.5, 0.5]), threshold=0.4))
    assert isinstance(result, pd.DataFrame) and len(result) > 3
    # Threshold below every score: nobody is affected -> the audit is skipped, not crashed.
    skipped = observation_rows("facts", 3, observer.observe(snapshot(LinearScorer([0.5, 0.5]), threshold=-1.0)))
    assert dict(zip(skipped["metric"], skipped["value"], strict=True)) == {
        "n_subgroups": 0.0,
        "skipped": 1.0,
        "skipped:protected: group 'B' has no negatively predicted (affected) individual": 1.0,
        "too_few_rows": 1.0,
        "too_few_rows:protected: group 'B' has no negatively predicted (affected) individual": 1.0,
    }


def test_observer_rejects_an_unknown_action_rule():
    with pytest.raises(ConfigError, match="actions"):
        FactsObserver(actions="all")


def test_scenario_observer_config_selects_the_action_rule():
    from recoursesim.scenario import Scenario
    from recoursesim.simulate import simulate

    base = Scenario.bundled("default").spec | {"run": {"steps": 2, "seed": 0}}
    spec = base | {"observers": [{"name": "facts", "every": 2, "actions": "subsets"}]}
    result = simulate(Scenario.from_dict(spec), 1)
    observer = next(o for o in result.model.observers if o.name == "facts")
    assert observer.actions == "subsets"
    assert (result.model.observations["observer"] == "facts").any()
    with pytest.raises(ConfigError, match="actions"):
        Scenario.from_dict(base | {"observers": [{"name": "facts", "actions": "everything"}]})
