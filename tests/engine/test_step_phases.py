"""The step's phases: the refit order chosen at build time, and the observers' snapshot."""

import numpy as np
import pytest

from recoursesim import registry
from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.refit_order import REFIT_ORDERS, act_then_refit, refit_order_of, refit_then_act, refit_then_recommend
from recoursesim.scenario import Scenario
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
    assert Scenario.bundled("default").build_model(seed=0).refit_order is act_then_refit


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
