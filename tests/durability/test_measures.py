"""Durability measures against hand-computed values (docs/durability.md)."""

import numpy as np
import pandas as pd
import pytest

from recoursesim.durability import durability_summary, expired_effort_share, kaplan_meier, recommendation_fates
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.selection.base import Selection
from recoursesim.simulate import simulate


class RisingCutoff:
    """Everyone at or above ``start + rise * t`` is selected: the cut-off rises by ``rise`` per step."""

    def __init__(self, start: float, rise: float) -> None:
        self.start, self.rise = start, rise

    def select(self, scores, context):
        cutoff = self.start + self.rise * context.step
        return Selection(scores >= cutoff, cutoff)


class Overshoot:
    """Recommends the point ``overshoot`` above the cut-off along the ranker's weights (no bounds)."""

    def __init__(self, overshoot: float, weights=(0.5, 0.5)) -> None:
        self.overshoot, self.w = overshoot, np.asarray(weights)

    def recommend(self, features, scores, threshold, scorer):
        gap = np.where(scores < threshold, threshold + self.overshoot - scores, 0.0)
        return features + gap[:, None] * self.w / (self.w @ self.w)

    def cost(self, moves):
        return np.sqrt((moves * moves).sum(axis=1))


def _toy(overshoot: float, steps: int = 8):
    spec = Scenario.bundled("default").spec | {"run": {"steps": steps, "seed": 0}}
    model = Scenario.from_dict(spec).build_model(seed=3)
    model.selector = RisingCutoff(0.4, 0.1)
    model.recourse = Overshoot(overshoot)
    return model.run()


def test_rising_cutoff_gives_the_known_validity_and_durations():
    # The cut-off rises by 0.1 per step and every recommendation lands 0.25 above it, so it is still
    # accepted 1 and 2 steps later (0.25 >= 0.2) and refused from 3 steps on (0.25 < 0.3).
    model = _toy(0.25)
    fates = recommendation_fates(model, horizon=5)
    assert len(fates) > 100
    last = model.n_steps
    for h, expected in ((0, True), (1, True), (2, True), (3, False), (4, False), (5, False)):
        judged = fates[f"valid_{h}"].dropna()
        assert len(judged) == int((fates["step"] + h <= last).sum())
        assert judged.astype(bool).eq(expected).all(), h
    # followed until the agent left or the run ended: expires after exactly 3 steps if followed that long
    end = np.where(model.table.exit_step[fates["agent_id"]] >= 0, model.table.exit_step[fates["agent_id"]], last)
    followed = end - fates["step"].to_numpy()
    np.testing.assert_array_equal(fates["expired"].to_numpy(), followed >= 3)
    np.testing.assert_array_equal(fates["duration"].to_numpy(), np.minimum(followed, 3))
    summary = durability_summary(fates)
    assert (summary["validity_1"] == 1.0).all() and (summary["validity_3"] == 0.0).all()
    assert (summary["median_duration"] == 3.0).all()


def test_exact_recommendations_under_a_rising_cutoff_expire_after_one_step():
    fates = recommendation_fates(_toy(0.0), horizon=3)
    assert fates["valid_0"].all()
    assert not fates["valid_1"].dropna().astype(bool).any()
    assert (fates.loc[fates["expired"], "duration"] == 1).all()
    assert expired_effort_share(fates) == 1.0  # every move was toward a recommendation gone by the next step


@pytest.mark.parametrize(("name", "steps"), [("default", 20), ("german-credit-lending", 6)])
def test_fixed_model_with_a_falling_cutoff_never_expires(name, steps):
    result = simulate(name, seed=1, steps=steps)
    cutoffs = result.ledger.groupby("step")["threshold"].first().to_numpy()
    assert np.all(np.diff(cutoffs) <= 0) and cutoffs[-1] < cutoffs[0]  # the premise: the cut-off falls
    fates = result.durability
    assert len(fates) > 0 and not fates["expired"].any()
    summary = result.durability_summary
    columns = [c for c in summary if c.startswith(("validity_", "survival_", "valid_at"))]
    assert (summary[columns] == 1.0).all().all()
    assert (summary["expired_effort_share"] == 0.0).all()


def test_kaplan_meier_matches_a_hand_table():
    # durations 1 2 2 3 4 5 with expiries at 1, 2 and 3 (the second 2, the 4 and the 5 censored):
    # S(1) = 5/6, S(2) = 5/6 * 4/5 = 2/3, S(3) = 2/3 * 2/3 = 4/9, then flat.
    curve = kaplan_meier(np.array([1, 2, 2, 3, 4, 5]), np.array([True, True, False, True, False, False]))
    expected = pd.DataFrame(
        {
            "time": [0, 1, 2, 3, 4, 5],
            "at_risk": [6, 6, 5, 3, 2, 1],
            "expired": [0, 1, 1, 1, 0, 0],
            "censored": [0, 0, 1, 0, 1, 1],
            "survival": [1, 5 / 6, 2 / 3, 4 / 9, 4 / 9, 4 / 9],
        }
    )
    pd.testing.assert_frame_equal(curve.drop(columns="std_error"), expected, check_dtype=False)
    # Greenwood: se(1) = S(1) sqrt(1 / (6 * 5)); se(2) = S(2) sqrt(1/30 + 1/(5 * 4))
    assert curve["std_error"].iloc[1] == pytest.approx(5 / 6 * np.sqrt(1 / 30))
    assert curve["std_error"].iloc[2] == pytest.approx(2 / 3 * np.sqrt(1 / 30 + 1 / 20))


def test_kaplan_meier_without_censoring_is_the_empirical_survival():
    rng = np.random.default_rng(0)
    durations = rng.integers(1, 9, size=200)
    curve = kaplan_meier(durations, np.ones(200, dtype=bool))
    for h in range(9):
        assert curve["survival"].iloc[h] == pytest.approx(np.mean(durations > h))


def test_fates_of_a_model_that_has_not_stepped_are_empty():
    model = Scenario.bundled("default").build_model(seed=0)
    fates = recommendation_fates(model, horizon=3)
    assert fates.empty and {"valid_3", "duration", "expired"} <= set(fates.columns)


def test_fates_of_a_run_that_kept_no_recommendations_name_the_argument():
    spec = Scenario.bundled("default").spec | {
        "run": {"steps": 2, "seed": 0},
        "model": {"record_recommendations": False},
    }
    model = Scenario.from_dict(spec).build_model(seed=0).run()
    with pytest.raises(ConfigError) as caught:
        recommendation_fates(model)
    assert caught.value.field == "record_recommendations" and "model.record_recommendations" in caught.value.fix
