"""ScenarioModel: scalar parameters, Mesa's collectors, batch_run and the new data recorders."""

import multiprocessing

import numpy as np
import pandas as pd
import pytest
from mesa.experimental.data_collection import DatasetConfig, ParquetDataRecorder

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.mesa_native import RecourseScenario, ScenarioModel, batch_run, resolve, scaled_effort
from recoursesim.mesa_native import batch as mesa_batch
from recoursesim.metrics import recourse_over_time, recourse_summary
from recoursesim.scenario import load_scenario
from recoursesim.simulate import simulate
from recoursesim.sweep import iter_point_results

PER_STEP = ["etr", "ttr", "selection_rate", "n_recourse", "n_scored", "n_selected"]


def _run(model: ScenarioModel) -> ScenarioModel:
    while model.running:
        model.step()
    return model


@pytest.mark.parametrize(
    ("base", "params"),
    [
        ("default", {"k": 15, "steps": 6}),  # cost effort, one cut-off
        ("effort-rewarding", {"steps": 4}),  # score-gain effort
        ("bell2024-cns", {"steps": 3, "initial": 300, "k": 40}),  # one threshold per agent
    ],
)
def test_reporters_equal_the_ledger_metrics_bit_for_bit(base, params):
    model = _run(ScenarioModel(base, seed=3, collect_agents=False, **params))
    collected = model.datacollector.get_model_vars_dataframe()
    assert collected["latest_step"].tolist() == list(range(model.n_steps + 1))
    over_time = recourse_over_time(model.ledger, effort=model.effort_measure)
    pooled = recourse_summary(model.ledger, effort=model.effort_measure).set_index("group")
    assert over_time["n_recourse"].sum() > 0  # the comparison covers real recourse successes
    for group in model.group_names:
        mine = over_time[over_time["group"] == group].set_index("step")
        for metric in PER_STEP:
            assert np.array_equal(
                collected[f"{metric}_{group}"].to_numpy(), mine[metric].to_numpy(dtype=float), equal_nan=True
            ), (metric, group)
        assert np.array_equal(
            [getattr(model, f"etr_pooled_{group}"), getattr(model, f"ttr_pooled_{group}")],
            [pooled.loc[group, "etr"], pooled.loc[group, "ttr"]],
            equal_nan=True,
        )
        assert getattr(model, f"waiting_{group}") == np.sum(
            model.table.group[model.waiting_ids] == model.group_names.index(group)
        )
    thresholds = model.ledger.groupby("step")["threshold"].mean().to_numpy()
    np.testing.assert_allclose(collected["cutoff"].to_numpy(), thresholds, rtol=1e-12)


def test_parameters_set_the_scenario_keys():
    model = _run(ScenarioModel("default", seed=5, k=12, steps=3, initial=150, entrants=7, collect_agents=False))
    expected = simulate(
        load_scenario("default").with_overrides(
            {"selection.k": 12, "run.steps": 3, "population.initial": 150, "population.entrants": 7}
        ),
        seed=5,
    )
    pd.testing.assert_frame_equal(model.ledger, expected.ledger)


@pytest.mark.parametrize("base", ["default", "bell2024-baseline"])
def test_effort_scale_multiplies_every_capacity(base):
    plain = ScenarioModel(base, seed=2, steps=1, collect_agents=False)
    doubled = ScenarioModel(base, seed=2, steps=1, effort_scale=2.0, collect_agents=False)
    np.testing.assert_allclose(doubled.table.effort, 2.0 * plain.table.effort, rtol=1e-12)
    assert plain.table.effort.min() >= 0 and np.any(plain.table.effort > 0)


def test_effort_scale_of_a_dataset_population():
    spec = {"name": "dataset", "effort": {"a": {"mean": 0.0, "sd": 1.0, "scale": 0.2}, "b": {"scale": 0.5}}}
    assert scaled_effort(spec, 3.0)["population.effort"] == {
        "a": {"mean": 0.0, "sd": 1.0, "scale": pytest.approx(0.6)},
        "b": {"scale": 1.5},
    }
    assert spec["effort"]["a"]["scale"] == 0.2  # the scenario's table is not changed


@pytest.mark.parametrize(
    ("params", "field"),
    [({"k": "ten"}, "k"), ({"steps": -1}, "steps"), ({"effort_scale": -0.5}, "effort_scale"), ({"base": "nope"}, "")],
)
def test_bad_parameters_name_the_field(params, field):
    with pytest.raises(ConfigError) as caught:
        resolve(params)
    assert field in str(caught.value) and "\n" not in str(caught.value)


def test_unscored_entrants_have_the_score_they_get_next():
    model = ScenarioModel("default", seed=4, steps=3, collect_agents=False)
    model.step()
    entrants = [a for a in model.agents if a.entry_step == model.t]
    assert len(entrants) == 20
    promised = {a.unique_id: a.score for a in entrants}
    assert np.isfinite(model.agents.agg("score", np.mean))  # was NaN: the entrants were unscored
    model.step()
    record = model.ledger_store.step_record(-1)
    got = dict(zip(record.agent_id.tolist(), record.score.tolist(), strict=True))
    assert all(got[i] == score for i, score in promised.items())


def test_agent_reporters_are_collected():
    model = ScenarioModel("default", seed=1, steps=2)
    model.step()
    agents = model.datacollector.get_agent_vars_dataframe()
    assert len(agents) == 200 and agents["score"].notna().all()
    assert set(agents["group"]) == {"advantaged", "disadvantaged"}
    assert (agents["effort_spent"] >= 0).all() and (agents["effort_spent"] > 0).any()


@pytest.fixture
def restore_start_method():
    """mesa.batch_run forces the 'spawn' start method for the whole process; put it back afterwards."""
    before = multiprocessing.get_start_method(allow_none=True)
    yield
    multiprocessing.set_start_method(before, force=True)


def test_batch_run_in_two_processes_equals_recoursesim_sweep(tmp_path, restore_start_method):
    """The same scenario, grid and spawned seeds: mesa.batch_run and `recoursesim sweep` agree exactly."""
    out = tmp_path / "sweep"
    status = main(
        ["sweep", "default", "--seeds", "2", "--root-seed", "11", "--grid", "selection.k=10,25",
         "--grid", "run.steps=4", "--out", str(out), "--quiet"]
    )  # fmt: skip
    assert status == 0
    seeds = np.random.SeedSequence(11).spawn(2)
    # mesa.batch_run on Mesa 3; on Mesa 4 (no batch_run) each run is ScenarioModel(scenario=RecourseScenario(...)).
    batch = batch_run({"base": "default", "k": [10, 25], "steps": 4}, seeds, number_processes=2)
    assert len(batch) == 2 * 2 * 5  # points x seeds x steps 0..4
    compared = 0
    for _, params, rows in iter_point_results(out):
        k = params["selection.k"]
        for seed_index, shard in rows.groupby("seed_index"):
            mine = batch[(batch["k"] == k) & (batch["iteration"] == seed_index)].sort_values("Step")
            assert mine["latest_step"].tolist() == [0, 1, 2, 3, 4]
            per_step = shard[shard["step"].notna()]
            for (group, metric), series in per_step.groupby(["group", "metric"]):
                if metric in PER_STEP:
                    values = series.sort_values("step")["value"].to_numpy()
                    assert np.array_equal(mine[f"{metric}_{group}"].to_numpy(), values, equal_nan=True)
                    compared += 1
            pooled = shard[shard["step"].isna()].set_index(["group", "metric"])["value"]
            last = mine.iloc[-1]
            for group in ("advantaged", "disadvantaged"):
                assert np.array_equal(
                    [last[f"etr_pooled_{group}"], last[f"ttr_pooled_{group}"]],
                    [pooled[(group, "etr")], pooled[(group, "ttr")]],
                    equal_nan=True,
                )
    assert compared == 2 * 2 * 2 * len(PER_STEP)


@pytest.mark.skipif(not mesa_batch.has_batch_run(), reason="Mesa 4 has no mesa.batch_run to compare with")
def test_the_mesa_4_path_gives_the_table_mesa_batch_run_gives(monkeypatch, restore_start_method):
    """Without mesa.batch_run (Mesa 4), the runs go through RecourseScenario: same rows, columns and numbers."""
    seeds = np.random.SeedSequence(5).spawn(2)
    parameters = {"base": "default", "k": [10, 25], "steps": 3}
    with_mesa = batch_run(parameters, seeds)
    monkeypatch.setattr(mesa_batch, "has_batch_run", lambda: False)
    without = batch_run(parameters, seeds)
    assert list(without.columns) == list(with_mesa.columns)
    pd.testing.assert_frame_equal(without, with_mesa, check_dtype=False)


def test_batch_run_refuses_an_unknown_parameter():
    with pytest.raises(ConfigError, match="parameters speed: is not a ScenarioModel parameter"):
        batch_run({"speed": 3}, [0])


def test_mesa_scenario_with_the_parquet_recorder(tmp_path):
    """Mesa 4's direction: parameters in a Scenario object, data through the new recorders."""
    scenario = RecourseScenario(rng=3, k=15, steps=4)
    model = ScenarioModel(scenario=scenario)
    assert model.scenario is scenario and model.n_steps == 4 and model.selector.k == 15
    recorder = ParquetDataRecorder(
        model, config={"recourse": DatasetConfig(interval=1), "agents": DatasetConfig(interval=2)}, output_dir=tmp_path
    )
    with pytest.raises((ValueError, TypeError), match=r"during model run|frozen"):
        scenario.k = 20  # Mesa 3.5 freezes a scenario while its model runs, Mesa 4 from the start
    # Mesa's own way to run a model for a time: steps 0 … T are T + 1 time units. Mesa 4's recorder stores
    # the final state when run_for ends (its run-ended signal); Mesa 3.5 buffers until finalised.
    model.run_for(model.n_steps + 1)
    if hasattr(recorder, "finalise"):
        recorder.finalise()
    recorded = recorder.get_table_dataframe("recourse")  # flushes the buffer to recourse.parquet
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "recourse.parquet"), recorded)
    # Mesa stamps a snapshot with its time: the state after `time` steps (time 0: before any step).
    assert recorded["time"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert recorded["latest_step"].isna().iloc[0]
    collected = model.datacollector.get_model_vars_dataframe().reset_index(drop=True)
    after = recorded.iloc[1:].reset_index(drop=True)[collected.columns]
    pd.testing.assert_frame_equal(after, collected, check_dtype=False)
    agents = recorder.get_table_dataframe("agents")
    assert sorted(agents["time"].unique()) == [0.0, 2.0, 4.0, 5.0]
    assert set(agents.columns) >= {"unique_id", "group", "score", "effort_spent", "time"}
    same = ScenarioModel("default", seed=3, k=15, steps=4, collect_agents=False)
    _run(same)
    pd.testing.assert_frame_equal(same.ledger, model.ledger)  # the Scenario form is the same run


def test_explicit_keywords_override_the_mesa_scenario():
    model = ScenarioModel(seed=9, k=30, scenario=RecourseScenario(rng=1, k=15, steps=2), collect_agents=False)
    assert model.selector.k == 30 and model.n_steps == 2 and model.seed == 9
