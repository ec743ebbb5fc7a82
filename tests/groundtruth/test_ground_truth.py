"""Ground truth: true features follow only causal moves; precision, improvement and gaming counts."""

import copy

import numpy as np
import pandas as pd
import pytest

from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.groundtruth.observer import GroundTruthObserver
from recoursesim.ledger import Ledger
from recoursesim.observers import PopulationSnapshot
from recoursesim.scenario import Scenario
from recoursesim.scoring.linear import LinearScorer
from recoursesim.simulate import simulate


def _snapshot(ledger, step, ids, features, group_of):
    scorer = LinearScorer([1.0, 1.0])
    return PopulationSnapshot(
        step=step,
        agent_id=np.asarray(ids, dtype=np.int64),
        features=np.asarray(features, dtype=float),
        group=np.asarray(group_of)[np.asarray(ids, dtype=np.int64)],
        feature_names=("real", "proxy"),
        group_names=("a", "b"),
        scorer=scorer,
        threshold=1.0,
        rng=np.random.default_rng(0),
        ledger=ledger,
        group_of=np.asarray(group_of),
        initial_scorer=scorer,
    )


def _value(frame, metric, group=None):
    rows = frame[(frame["metric"] == metric) & (frame["group"].isna() if group is None else frame["group"] == group)]
    return float(rows["value"].iloc[0])


def test_hand_traced_two_steps():
    """Three agents; truly qualified iff real >= 1; only `real` is causal.

    step 0: agent 0 (a) at (1.2, 0) is selected; agent 1 (a) at (0.5, 0) moves real +0.6 -> improves;
            agent 2 (b) at (0.2, 0) moves proxy +1.0 -> games.
    step 1: agents 1 and 2 are both selected (after recourse): 1 improved, 2 gamed.
    """
    group_of = np.array([0, 0, 1])
    ledger = Ledger(("real", "proxy"), ("a", "b"))
    x0 = np.array([[1.2, 0.0], [0.5, 0.0], [0.2, 0.0]])
    ledger.record(0, np.array([0, 1, 2]), x0, x0.sum(axis=1), 1.0, np.array([True, False, False]))
    after = np.array([[1.1, 0.0], [0.2, 1.0]])
    ledger.record_actions(np.array([False, True, True]), after, np.array([0.6, 1.0]))
    observer = GroundTruthObserver(outcome="linear", weights={"real": 1.0}, cutoff=1.0, causal=["real"])
    first = observer.observe(_snapshot(ledger, 0, [1, 2], after, group_of))
    assert _value(first, "n_selected") == 1 and _value(first, "precision") == 1.0
    assert _value(first, "n_acted") == 2 and _value(first, "n_acted_improved") == 1
    assert _value(first, "improvement_rate") == 0.5
    assert np.isnan(_value(first, "gaming_rate"))  # nobody selected after recourse yet

    ledger.record(1, np.array([1, 2]), after, after.sum(axis=1), 1.0, np.array([True, True]))
    ledger.record_actions(np.array([False, False]), np.empty((0, 2)), np.empty(0))
    second = observer.observe(_snapshot(ledger, 1, [], np.empty((0, 2)), group_of))
    assert _value(second, "n_selected") == 2 and _value(second, "precision") == 0.5
    assert _value(second, "n_recourse_success") == 2
    assert _value(second, "n_success_improved") == 1 and _value(second, "n_success_gamed") == 1
    assert _value(second, "gaming_rate") == 0.5
    assert _value(second, "n_acted") == 0  # step 0's moves were counted at step 0, not again
    assert _value(second, "n_success_gamed", "b") == 1 and _value(second, "n_success_improved", "a") == 1


def test_every_two_reads_the_skipped_steps_from_the_ledger():
    spec = _default(steps=6)
    every_step = _observations(spec, {"every": 1}).query("group != group")
    every_two = _observations(spec, {"every": 2}).query("group != group")
    counts = ["n_selected", "n_recourse_success", "n_success_gamed", "n_acted", "n_acted_improved"]
    for metric in counts:
        total_one = every_step.loc[every_step["metric"] == metric, "value"].sum()
        total_two = every_two.loc[every_two["metric"] == metric, "value"].sum()
        assert total_one == total_two, metric


def _default(steps=10, **changes):
    spec = Scenario.bundled("default").spec | {"run": {"steps": steps, "seed": 0}}
    spec.update(changes)
    return spec


def _observations(spec, ground_truth):
    table = {"name": "ground_truth", "outcome": "linear", "weights": {"skill": 1.0}, "cutoff": 0.6} | ground_truth
    result = simulate(Scenario.from_dict(spec | {"observers": [table]}), 4)
    return result.model.observations


def _totals(observations):
    everyone = observations[observations["group"].isna()]
    return everyone.groupby("metric")["value"].sum()


def test_no_causal_feature_means_no_improvement():
    totals = _totals(_observations(_default(), {"causal": []}))
    assert totals["n_acted"] > 100  # agents did act
    assert totals["n_acted_improved"] == 0 and totals["n_success_improved"] == 0
    assert totals["n_recourse_success"] > 0 and totals["n_success_gamed"] > 0


def test_all_causal_and_outcome_is_the_decision_model_means_no_gaming():
    spec = _default(selection={"name": "threshold", "threshold": 0.6})
    observations = _observations(spec, {"outcome": "decision", "weights": None, "cutoff": 0.6})
    totals = _totals(observations)
    assert totals["n_recourse_success"] > 10  # recourse did succeed
    assert totals["n_success_gamed"] == 0
    assert totals["n_selected_qualified"] == totals["n_selected"]
    rates = observations[(observations["metric"] == "gaming_rate") & observations["value"].notna()]
    assert (rates["value"] == 0).all() and len(rates) > 0


def test_decision_outcome_defaults_to_the_step_zero_cut_off_and_flags_gaming_under_top_k():
    table = {"outcome": "decision", "weights": None, "cutoff": None, "causal": []}
    observations = _observations(_default(), table)
    assert _totals(observations)["n_success_gamed"] > 0
    # the default cut-off is the step-0 cut-off: stating that value explicitly gives the same observations
    spec = _default()
    step_zero = simulate(Scenario.from_dict(spec), 4).model.ledger
    cutoff = float(step_zero.loc[step_zero["step"] == 0, "threshold"].iloc[0])
    explicit = _observations(spec, table | {"cutoff": cutoff})
    pd.testing.assert_frame_equal(observations, explicit)
    # and another cut-off gives other observations
    other = _observations(spec, table | {"cutoff": cutoff + 0.05})
    assert not observations["value"].equals(other["value"])


def test_same_seed_same_rows():
    spec = _default(steps=5)
    pd.testing.assert_frame_equal(_observations(spec, {}), _observations(spec, {}))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"causal": ["skil"]}, r"observers\[0\]\.causal: unknown feature 'skil'"),
        ({"causal": "skill"}, r"observers\[0\]\.causal: must be a list"),
        ({"weights": {"height": 1.0}}, r"observers\[0\]\.weights: unknown feature 'height'"),
        ({"weights": None}, r"observers\[0\]\.weights: the linear outcome needs"),
        ({"outcome": "fitted", "weights": None}, r"observers\[0\]\.outcome: \"fitted\" needs a population with labels"),
        ({"outcome": "oracle"}, r"observers\[0\]\.outcome: unknown value 'oracle'"),
        ({"every": 0}, r"observers\[0\]\.every: must be >= 1"),
    ],
)
def test_bad_ground_truth_tables_fail_when_the_scenario_loads(table, message):
    base = {"name": "ground_truth", "outcome": "linear", "weights": {"skill": 1.0}, "cutoff": 0.6}
    spec = _default() | {"observers": [{k: v for k, v in (base | table).items() if v is not None}]}
    with pytest.raises(ConfigError, match=message):
        Scenario.from_dict(spec)


def test_fitted_outcome_and_held_out_split_on_german_credit():
    from recoursesim.groundtruth.outcome import labelled_rows
    from recoursesim.populations.dataset import DatasetPopulation
    from recoursesim.shift.model_shift import labelled_test_split

    population = DatasetPopulation(dataset="german", group="sex")
    features, labels = labelled_rows(population)
    assert features.shape == (1000, len(population.feature_names)) and set(np.unique(labels)) == {0, 1}
    observer = GroundTruthObserver(outcome="fitted").bind(RunContext.of(population))
    model = observer._outcome_model(_snapshot_for(population))
    share = model.qualified(features).mean()
    assert 0.5 < share < 0.95  # German credit: 70% good risks; the fit reproduces roughly that share
    assert labelled_test_split(population) is None  # not fitted yet: no applicant pool
    population.fit(np.random.default_rng(0))
    test_features, test_labels = labelled_test_split(population)
    assert test_features.shape[0] == population.pool_rows_.size == test_labels.size


def _snapshot_for(population):
    return PopulationSnapshot(
        step=0,
        agent_id=np.zeros(0, dtype=np.int64),
        features=np.zeros((0, len(population.feature_names))),
        group=np.zeros(0, dtype=np.int64),
        feature_names=tuple(population.feature_names),
        group_names=tuple(population.group_names),
        scorer=None,
        threshold=0.5,
        rng=np.random.default_rng(0),
    )


def test_fitted_outcome_margin_equals_the_sklearn_pipeline():
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from recoursesim.groundtruth.outcome import FittedOutcome

    rng = np.random.default_rng(0)
    features = np.column_stack([rng.normal(size=300), rng.integers(0, 4, 300), rng.normal(3, 2, 300)])
    labels = (features[:, 0] + (features[:, 1] == 2) + rng.normal(size=300) > 0.5).astype(int)
    outcome = FittedOutcome(features, labels, 0.5, categorical=[1])
    reference = make_pipeline(
        ColumnTransformer([("c", OneHotEncoder(handle_unknown="ignore"), [1]), ("n", StandardScaler(), [0, 2])]),
        LogisticRegression(max_iter=2000),
    ).fit(features, labels)
    probe = np.vstack([features[:50], [[0.1, 7.0, 3.0]]])  # category 7 never seen: contributes nothing
    expected = reference.decision_function(probe)
    np.testing.assert_allclose(outcome.margin(probe), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(outcome.qualified(probe), expected >= 0)


def _german_like_rows(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    features = np.column_stack([rng.normal(size=300), rng.integers(0, 4, 300), rng.integers(1, 6, 300)])
    labels = features[:, 0] + (features[:, 1] == 2) - (features[:, 2] == 5) + rng.normal(size=300) > 0.3
    return features, labels.astype(int)


def test_fitted_outcome_lookup_equals_the_searchsorted_margin_bit_for_bit():
    from recoursesim.groundtruth.outcome import FittedOutcome

    features, labels = _german_like_rows()
    outcome = FittedOutcome(features, labels, 0.5, categorical=[1, 2])
    assert outcome._lookup is not None  # small integer codes: the gather path is used
    # seen codes, an unseen code inside the range (0 of column 2), above it, negative, fractional, NaN
    odd = np.array([[0.3, 3.0, 0.0], [0.3, 9.0, 5.0], [0.3, -1.0, 2.0], [0.3, 1.5, 2.5], [0.3, np.nan, 1.0]])
    probe = np.vstack([features[:80], odd])
    searched = copy.copy(outcome)
    searched._lookup = None
    np.testing.assert_array_equal(outcome.margin(probe), searched.margin(probe))
    # an unknown code contributes nothing: the 9 row equals the row with its category term removed
    codes, weights = outcome._tables[0]
    seen = outcome.margin(np.array([[0.3, 3.0, 5.0]]))[0]
    assert outcome.margin(odd[1:2])[0] == pytest.approx(seen - weights[list(codes).index(3.0)], abs=1e-12)


def test_fitted_outcome_reuses_the_fit_for_the_same_rows(monkeypatch):
    from recoursesim.groundtruth import outcome as module

    features, labels = _german_like_rows(1)
    fits = []
    real = module._fit_margin
    monkeypatch.setattr(module, "_fit_margin", lambda *args: fits.append(1) or real(*args))
    first = module.FittedOutcome(features, labels, 0.5, categorical=[1, 2])
    again = module.FittedOutcome(features.copy(), labels.copy(), 0.7, categorical=[1, 2])
    assert len(fits) == 1  # same rows, labels and categorical columns: no second fit
    np.testing.assert_array_equal(first.margin(features), again.margin(features))
    assert again.qualified(features).sum() < first.qualified(features).sum()  # the cut-off is its own
    module.FittedOutcome(features, 1 - labels, 0.5, categorical=[1, 2])
    module.FittedOutcome(features, labels, 0.5, categorical=[1])
    assert len(fits) == 3  # other labels, other categorical columns: fitted anew


def test_fitted_outcome_keeps_searchsorted_for_fractional_codes():
    from recoursesim.groundtruth.outcome import FittedOutcome

    features, labels = _german_like_rows(2)
    features[:, 1] = features[:, 1] / 2  # codes 0, 0.5, 1, 1.5
    outcome = FittedOutcome(features, labels, 0.5, categorical=[1, 2])
    assert outcome._lookup is None
    assert np.all(np.isfinite(outcome.margin(features)))
