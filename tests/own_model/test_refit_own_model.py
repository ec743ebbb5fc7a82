"""Refitting trainers refit a clone of the user's own model (given from Python or as a skops file)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from own_model_helpers import user_pipeline
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import Pipeline

from recoursesim.cli import main
from recoursesim.datasets import load_compas
from recoursesim.features.defaults import DEFAULT_ACTIONS, DEFAULT_COLUMNS
from recoursesim.scenario import load_scenario
from recoursesim.scoring.tabular import TabularModel

IMMUTABLE = DEFAULT_ACTIONS["compas"]["immutable"]


@pytest.fixture(scope="module")
def compas_pipeline() -> Pipeline:
    data = load_compas()
    frame = data.frame[[*DEFAULT_COLUMNS["compas"], data.target]].dropna()
    return user_pipeline(frame.sample(1500, random_state=1), data.target)


def _spec(trainer: dict) -> dict:
    return {
        "run": {"steps": 3, "seed": 0},
        "population": {"name": "dataset", "dataset": "compas", "group": "sex", "initial": 120, "entrants": 10},
        "selection": {"name": "top_k", "k": 15},
        "recourse": {"name": "search"},
        "behaviour": {"name": "bounded_effort"},
        "training": trainer,
    }


def _never_moved(ledger: pd.DataFrame, columns: list[str]) -> bool:
    return bool((ledger.groupby("agent_id", observed=True)[columns].nunique() == 1).all().all())


@pytest.mark.parametrize("trainer", [{"name": "cda"}, {"name": "refit"}])
def test_refitting_trainer_refits_a_clone_of_the_users_pipeline(compas_pipeline, trainer) -> None:
    probe = load_compas().frame[DEFAULT_COLUMNS["compas"]].dropna().sample(200, random_state=7)
    before = compas_pipeline.predict_proba(probe)[:, 1]
    scenario = load_scenario(_spec(trainer), model=compas_pipeline)
    model = scenario.build_model(seed=0)
    codes = model.population.schema.encode(probe)
    user_scores = model.scorer.score(codes)
    np.testing.assert_allclose(user_scores, before)  # step 0 decides with the user's own model

    seen = []
    while model.running:
        model.step()
        fitted = model.scorer.estimator
        assert isinstance(fitted, TabularModel) and fitted.input == "frame"
        pipeline = fitted.estimator_
        assert isinstance(pipeline, Pipeline) and pipeline is not compas_pipeline  # a clone, of the user's type
        assert isinstance(pipeline[-1], HistGradientBoostingClassifier) and pipeline[-1].max_iter == 20
        assert pipeline[-1].random_state == 0  # the user's fixed random state is kept
        seen.append(model.scorer.score(codes))
    assert all(entry["refitted"] for entry in model.trainer.history_)
    assert len(seen) == 4
    for earlier, later in zip([user_scores, *seen], seen, strict=False):
        assert np.abs(earlier - later).max() > 1e-6  # the model changed in every refit
    np.testing.assert_array_equal(compas_pipeline.predict_proba(probe)[:, 1], before)  # the user's object untouched
    assert _never_moved(model.ledger, IMMUTABLE)


def test_explicit_estimator_wins_and_estimator_params_reach_the_users_model(compas_pipeline) -> None:
    named = load_scenario(_spec({"name": "refit", "estimator": "logistic"}), model=compas_pipeline)
    assert named.build_model(seed=0).trainer._prototype.input == "codes"  # the built-in model, as asked
    tuned = load_scenario(
        _spec({"name": "cda", "estimator_params": {"histgradientboostingclassifier__max_iter": 5}}),
        model=compas_pipeline,
    )
    prototype = tuned.build_model(seed=0).trainer._prototype
    assert prototype.estimator[-1].max_iter == 5 and compas_pipeline[-1].max_iter == 20
    with pytest.raises(Exception, match="estimator_params"):
        load_scenario(_spec({"name": "cda", "estimator_params": {"nonesuch": 1}}), model=compas_pipeline)


def test_cda_with_a_model_file_from_the_command_line(tmp_path, monkeypatch, capsys, user_csv, user_model) -> None:
    monkeypatch.chdir(tmp_path)
    sio.dump(user_model, tmp_path / "model.skops")
    immutable = ["sex", "race", "age", "juv_fel_count"]
    (tmp_path / "s.toml").write_text(
        f'name = "own-cda"\n[run]\nsteps = 3\n'
        f'[population]\nname = "dataset"\npath = "{user_csv}"\ntarget = "no_recid"\ngroup = "race"\n'
        f"initial = 120\nentrants = 10\n[population.actions]\nimmutable = {immutable!r}\n".replace("'", '"')
        + '[scorer]\nmodel_file = "model.skops"\n[selection]\nname = "top_k"\nk = 15\n'
        '[recourse]\nname = "search"\n[behaviour]\nname = "bounded_effort"\n[training]\nname = "cda"\n'
    )
    assert main(["run", "s.toml", "--out", "run"]) == 0
    assert "scenario own-cda" in capsys.readouterr().out
    ledger = pd.read_parquet(tmp_path / "run" / "ledger.parquet")
    assert _never_moved(ledger, immutable)
    # An agent whose features did not change between two steps gets another score: the model changed.
    features = ["sex", "age", "race", "juv_fel_count", "priors_count", "c_charge_degree"]
    rows = ledger.sort_values(["agent_id", "step"])
    previous = rows.groupby("agent_id", observed=True)[[*features, "score"]].shift()
    same_features = (rows[features] == previous[features]).all(axis=1)
    rescored = same_features & ~np.isclose(rows["score"], previous["score"])
    assert rescored.sum() > 0
    scenario = load_scenario(tmp_path / "s.toml")
    prototype = scenario.build_model(seed=0).trainer._prototype
    assert isinstance(prototype, TabularModel) and prototype.input == "frame"
    assert type(prototype.estimator[-1]) is type(user_model[-1]) is HistGradientBoostingClassifier
