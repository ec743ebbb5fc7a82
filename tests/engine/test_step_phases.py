"""The step's phases: the refit order chosen at build time, and the observers' snapshot."""

import numpy as np
import pytest

from recoursesim import registry
from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.refit_order import REFIT_ORDERS, act_then_refit, refit_order_of, refit_then_act, refit_then_recommend
from recoursesim.scenario import Scenario
from recoursesim.scoring import LinearScorer
from recoursesim.training.refit import RefitTrainer


class _Recorder:
    """An observer keeping every snapshot it is given."""

    name = "recorder"
    every = 1

    def __init__(self):
        self.snapshots = []

    def observe(self, snapshot):
        self.snapshots.append(snapshot)
        return {"n": float(snapshot.agent_id.size)}


def test_snapshot_threshold_belongs_to_the_snapshot_agents():
    # CNS with per-group cut-offs gives one threshold per scored agent; with patience some of the
    # rejected agents leave, so the snapshot holds fewer agents than were scored.
    spec = Scenario.bundled("default").spec | {
        "run": {"steps": 5, "seed": 0},
        "selection": {"name": "cns", "k": 20},
        "model": {"patience": 2},
    }
    model = Scenario.from_dict(spec).build_model(seed=4)
    recorder = _Recorder()
    model.observers = (recorder,)
    model.run()
    ledger = model.ledger
    assert len(recorder.snapshots) == 6
    for t, snap in enumerate(recorder.snapshots):
        scored = ledger[ledger["step"] == t].set_index("agent_id")
        assert snap.threshold.shape == snap.agent_id.shape
        assert snap.agent_id.size < len(scored)  # winners and the impatient are gone
        assert not scored.loc[snap.agent_id, "selected"].any()
        np.testing.assert_array_equal(snap.threshold, scored.loc[snap.agent_id, "threshold"].to_numpy())
        # two groups, two cut-offs: the snapshot's thresholds are each agent's own group's
        for code in (0, 1):
            assert np.unique(snap.threshold[snap.group == code]).size == 1


def test_snapshot_threshold_is_nan_for_entrants_not_yet_scored():
    spec = Scenario.bundled("default").spec | {"run": {"steps": 2, "seed": 0}, "selection": {"name": "cns", "k": 20}}
    model = Scenario.from_dict(spec).build_model(seed=1)
    model.step()
    snap = model.snapshot()
    entered = model.table.entry_step[snap.agent_id] == 1
    assert entered.sum() == 20
    assert np.isnan(snap.threshold[entered]).all() and np.isfinite(snap.threshold[~entered]).all()


@pytest.mark.parametrize(
    ("order", "strategy"),
    [("spec", act_then_refit), ("reference", refit_then_recommend), ("refit_before_acting", refit_then_act)],
)
def test_the_refit_order_is_chosen_when_the_model_is_built(order, strategy):
    scenario = Scenario.bundled("bell2024-cda").with_overrides({"run.steps": 1, "training.order": order})
    assert scenario.build_model(seed=0).refit_order is strategy
    assert REFIT_ORDERS[order] is strategy


def test_no_trainer_recommends_then_acts():
    model = Scenario.bundled("default").with_overrides({"run.steps": 1}).build_model(seed=0)
    assert model.refit_order is act_then_refit
    before = model.table.features.copy()
    model.run()
    ledger = model.ledger
    waiting = ledger.loc[(ledger["step"] == 0) & ~ledger["selected"], "agent_id"].to_numpy()
    # every rejected agent was given a recommendation and acted on it: some moved, none of the selected did
    assert len(waiting) and np.any(model.table.features[waiting] != before[waiting])


class _Phases:
    """A stand-in for the model that records which phase ran, under which model and at which cut-off."""

    def __init__(self):
        self.scorer = LinearScorer([1.0, 0.0])  # the selecting model scores x0
        self.calls = []

    def _name(self, scorer):
        return "old" if scorer.weights[0] == 1.0 else "new"

    def recommend(self, state, scorer, scores, threshold):
        self.calls.append(("recommend", self._name(scorer), float(np.max(threshold))))
        return state.features + 1.0

    def act(self, state, recommendation, scorer, scores, threshold):
        self.calls.append(("act", self._name(scorer), float(np.max(threshold)), float(scores.max())))

    def retrain(self, state, recommendation):
        self.calls.append(("retrain",))
        self.scorer = LinearScorer([0.0, 1.0])  # the refitted model scores x1

    def reselect_threshold(self, state, scores):
        self.calls.append(("reselect", float(scores.max())))
        return 0.7

    def restate_threshold(self, state, threshold):
        self.calls.append(("restate", threshold))
        state.threshold = threshold


def _sequence(order, step=1):
    from recoursesim.refit_order import StepState

    phases = _Phases()
    features = np.array([[0.2, 0.9], [0.4, 0.3]])
    state = StepState(step, np.arange(2), features, features[:, 0], np.array([False, False]), 0.5)
    REFIT_ORDERS[order](phases, state)
    return phases.calls


def test_each_refit_order_runs_its_phases_in_its_own_sequence_under_the_right_model():
    # scores under the old model (x0): max 0.4; under the refitted one (x1): max 0.9; the cut-off is 0.5, reselected 0.7
    assert _sequence("spec") == [("recommend", "old", 0.5), ("act", "old", 0.5, 0.4), ("retrain",)]
    assert _sequence("reference") == [
        ("recommend", "old", 0.5),
        ("retrain",),
        ("reselect", 0.9),
        ("recommend", "new", 0.7),
        ("act", "new", 0.7, 0.9),
    ]
    assert _sequence("refit_before_acting") == [("recommend", "old", 0.5), ("retrain",), ("act", "new", 0.5, 0.9)]
    assert _sequence("refit_then_restate") == [
        ("recommend", "old", 0.5),
        ("retrain",),
        ("reselect", 0.9),
        ("restate", 0.7),
        ("recommend", "new", 0.7),
        ("act", "new", 0.7, 0.9),
    ]
    # the authors' order does not refit at the first step
    assert _sequence("refit_then_restate", step=0) == [("recommend", "old", 0.5), ("act", "old", 0.5, 0.4)]


class _OddTrainer(RefitTrainer):
    """A plug-in trainer that names a refit order that does not exist."""

    def __init__(self):
        super().__init__()
        self.order = "bogus"


def test_unknown_refit_order_of_a_plugin_trainer_fails_at_load(monkeypatch, tmp_path, capsys):
    with pytest.raises(ConfigError, match=r"training\.order: unknown refit order 'bogus'; fix: use one of spec"):
        refit_order_of(_OddTrainer())
    monkeypatch.setitem(registry._REGISTRY["trainer"], "odd_order", _OddTrainer)
    spec = Scenario.bundled("default").spec | {"training": {"name": "odd_order"}}
    with pytest.raises(ConfigError, match=r"training\.order: unknown refit order 'bogus'"):
        Scenario.from_dict(spec)
    path = tmp_path / "odd.toml"
    path.write_text('preset = "bell2024"\n[training]\nname = "odd_order"\n', encoding="utf-8")
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "training.order: unknown refit order 'bogus'" in err[0]
    assert not (tmp_path / "out").exists()
