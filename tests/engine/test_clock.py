"""One clock: the model's step ``t`` is read from Mesa's clock, under Mesa 3 and Mesa 4 alike."""

import pytest

from recoursesim.scenario import Scenario
from tests.engine.test_step_phases import _Recorder


def _model(steps=3, seed=0):
    spec = Scenario.bundled("default").spec | {"run": {"steps": steps, "seed": seed}}
    return Scenario.from_dict(spec).build_model(seed=seed)


def test_t_is_mesas_clock_between_steps():
    model = _model(steps=3)
    assert model.t == 0 and model.time == 0
    for done in range(1, 5):
        model.step()
        assert model.t == done and model.time == done
        assert model.ledger["step"].max() == done - 1  # the step just run is t - 1
    assert not model.running


def test_t_is_read_only():
    model = _model()
    with pytest.raises(AttributeError):
        model.t = 2


def test_mesas_own_driver_moves_t():
    model = _model(steps=4)
    model.run_for(2)  # Mesa's driver: two ticks of its clock run two steps of ours
    assert model.t == 2 and sorted(model.ledger["step"].unique()) == [0, 1]
    model.run()
    assert model.t == 5 and not model.running


def test_a_step_after_the_end_is_refused_and_t_stays_at_t_plus_one():
    model = _model(steps=2).run()
    ledger = model.ledger
    with pytest.raises(RuntimeError, match=r"the run has ended after step T=2"):
        model.step()
    assert model.t == 3  # Mesa's clock counted the refused call; the model's step did not run
    assert model.time == 4
    assert model.ledger.equals(ledger)
    assert model.run() is model and model.t == 3  # run() past the end runs nothing


def test_run_until_stops_after_the_step_named():
    model = _model(steps=5)
    model.run(until=2)
    assert model.t == 3 and model.running
    model.run(until=99)
    assert model.t == 6 and not model.running


def test_observers_see_the_step_being_run_and_snapshot_between_steps_the_next():
    model = _model(steps=3)
    recorder = _Recorder()
    model.observers = (recorder,)
    model.step()
    assert [snap.step for snap in recorder.snapshots] == [0]
    assert model.snapshot().step == 1  # between steps: the step to run next
    model.run()
    assert [snap.step for snap in recorder.snapshots] == [0, 1, 2, 3]
    assert set(model.observations["step"]) == {0, 1, 2, 3}
