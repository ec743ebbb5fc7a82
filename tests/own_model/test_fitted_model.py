"""A user's fitted model as the decision model: checks against the data, skops files, hand-built parts."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from own_model_helpers import FailingClassifier, PassThrough, user_pipeline
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from recoursesim import RecourseModel
from recoursesim.behaviour import BoundedEffortBehaviour
from recoursesim.errors import ConfigError
from recoursesim.features.actions import merge_action_specs
from recoursesim.features.defaults import DEFAULT_ACTIONS
from recoursesim.populations import DatasetPopulation
from recoursesim.recourse import SearchRecourse
from recoursesim.scenario import load_scenario
from recoursesim.scoring import load_model_file, scorer_from_estimator
from recoursesim.selection import TopKSelector
from recoursesim.simulate import simulate


def _spec(path, **scorer) -> dict:
    return {
        "run": {"steps": 2, "seed": 0},
        "population": {"name": "dataset", "path": str(path), "target": "no_recid", "group": "race",
                       "initial": 120, "entrants": 10},
        "scorer": {"name": "fitted", **scorer},
        "selection": {"name": "top_k", "k": 15},
        "recourse": {"name": "search"},
        "behaviour": {"name": "bounded_effort"},
    }  # fmt: skip


def test_explicit_action_set_adds_to_the_defaults() -> None:
    defaults = {"immutable": ["age", "sex"], "increase_only": ["edu", "years"], "upper": {"income": 10}}
    explicit = {
        "immutable": ["x"], "decrease_only": ["years"], "increase_only": ["age"],
        "upper": {"debt": 5}, "lower": {"income": 1},
    }  # fmt: skip
    assert merge_action_specs(defaults, explicit) == {
        "immutable": ["age", "sex", "x"],  # age stays immutable although the table lets it grow
        "increase_only": ["edu"],  # years: the explicit direction wins
        "decrease_only": ["years"],
        "upper": {"income": 10, "debt": 5},
        "lower": {"income": 1},
    }
    assert merge_action_specs(None, {"immutable": ["a"]}) == {"immutable": ["a"]}
    assert merge_action_specs({"immutable": ["a"]}, None) == {"immutable": ["a"]}


def test_hand_built_parts_get_the_population_schema_and_default_action_set() -> None:
    # The README's path: scorer_from_estimator, then RecourseModel with parts built without a schema.
    population = DatasetPopulation("sex", dataset="german").fit(np.random.default_rng(0))
    codes, labels = population.training_data()
    frame = population.schema.decode(codes)
    categorical = list(frame.select_dtypes("category").columns)
    pipeline = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), categorical), remainder="passthrough"),
        RandomForestClassifier(n_estimators=20, random_state=0),
    ).fit(frame, labels)
    scorer = scorer_from_estimator(pipeline, population.schema)
    # The model binds every part to the population: the schema, and the default action set merged
    # with the explicit table.
    recourse = SearchRecourse(action_set={"upper": {"duration": 48}})
    model = RecourseModel(
        population, scorer, TopKSelector(k=20), recourse, BoundedEffortBehaviour(),
        n_initial=200, entrants=10, n_steps=3,
    ).run()  # fmt: skip
    assert model.recourse.schema_ == population.schema
    assert model.behaviour.schema_ == population.schema
    immutable = [
        n for n, fixed in zip(population.schema.names, model.recourse.actions_.immutable, strict=True) if fixed
    ]
    assert sorted(immutable) == sorted(DEFAULT_ACTIONS["german"]["immutable"])
    ledger = model.ledger
    moved = ledger.groupby("agent_id")[list(population.schema.names)].nunique() > 1
    assert moved.any().any()  # agents did act ...
    assert not moved[immutable].any().any()  # ... and no immutable feature ever changed
    assert ledger["duration"].max() <= max(48, population.schema["duration"].upper)


def test_model_given_from_python_runs_and_is_scored_as_the_user_would(user_csv, user_model) -> None:
    result = simulate(load_scenario(_spec(user_csv), model=user_model), seed=0)
    scenario = result.scenario
    assert scenario.spec["scorer"]["name"] == "fitted" and len(scenario.spec["scorer"]["fingerprint"]) == 16
    rows = result.model.table.features[:25]
    frame = scenario.build_model(0).population.schema.decode(rows)
    expected = user_model.predict_proba(frame[list(user_model.feature_names_in_)])[:, 1]
    np.testing.assert_allclose(result.model.scorer.score(rows), expected)
    assert (result.ledger.groupby("agent_id")["race"].nunique() == 1).all()  # the group is immutable by default


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda f: user_pipeline(f.assign(no_recid=f["no_recid"] + f["sex"].eq("Male")), "no_recid"),
         r"scorer\.model: the model has 3 classes"),
        (lambda f: user_pipeline(f.assign(no_recid=np.where(f["no_recid"] == 1, "no", "yes")), "no_recid"),
         r"scorer\.model: the model's classes are \['no', 'yes'\], so its positive class 'yes' is not the "
         r"favourable outcome 1 of 'no_recid'"),
        (lambda f: HistGradientBoostingClassifier(max_iter=5).fit(f[["age", "priors_count"]].to_numpy(), f["no_recid"]),
         r"scorer\.model: the model was fitted on an array of 2 columns without names"),
        (lambda f: user_pipeline(f.assign(wage=1.0), "no_recid"),
         r"scorer\.model: the model was fitted on columns that are not features of the population: wage"),
        (lambda f: make_pipeline(OneHotEncoder(), HistGradientBoostingClassifier()),
         r"scorer\.model: Pipeline is not fitted"),
        (lambda f: FailingClassifier().fit(f, f["no_recid"]),
         r"scorer\.model: FailingClassifier failed to score 16 rows of the data \(ValueError: cannot handle"),
    ],
)  # fmt: skip
def test_a_model_that_does_not_fit_the_data_gets_one_clear_error(user_csv, make, message) -> None:
    model = make(pd.read_csv(user_csv))
    with pytest.raises(ConfigError, match=message) as caught:
        load_scenario(_spec(user_csv), model=model)
    assert "\n" not in str(caught.value)


def test_model_file_saved_with_skops_runs_like_the_object(tmp_path, user_csv, user_model) -> None:
    path = tmp_path / "model.skops"
    sio.dump(user_model, path)
    from_file = simulate(load_scenario(_spec(user_csv, model_file=str(path))), seed=0)
    from_object = simulate(load_scenario(_spec(user_csv), model=user_model), seed=0)
    pd.testing.assert_frame_equal(from_file.ledger, from_object.ledger)


def test_unknown_types_in_a_model_file_are_refused_until_the_person_running_trusts_them(tmp_path, user_csv) -> None:
    frame = pd.read_csv(user_csv)
    model = make_pipeline(PassThrough(), user_pipeline(frame, "no_recid")).fit(
        frame.drop(columns="no_recid"), frame["no_recid"]
    )
    path = tmp_path / "custom.skops"
    sio.dump(model, path)
    name = f"{PassThrough.__module__}.PassThrough"
    with pytest.raises(ConfigError) as caught:
        load_scenario(_spec(user_csv, model_file=str(path)))
    text = str(caught.value)
    assert f"scorer.model_file: custom.skops names types recoursesim does not load without your trust: {name} " in text
    assert f"--trust {name}" in text and "\n" not in text
    # The scenario table cannot grant it; a string is not a list; the person running can.
    with pytest.raises(ConfigError, match=r"scorer\.trusted: a scenario cannot grant trust.*--trust TYPE"):
        load_scenario(_spec(user_csv, model_file=str(path), trusted=[name]))
    with pytest.raises(ConfigError, match=r"trusted: is one string .*give a list: trusted=\["):
        load_scenario(_spec(user_csv, model_file=str(path)), trusted=name)
    scenario = load_scenario(_spec(user_csv, model_file=str(path)), trusted=[name])
    assert scenario.trusted == (name,) and "trusted" not in scenario.spec["scorer"]
    assert scenario.build_model(0).population is not None


def test_pickle_files_and_a_missing_skops_are_refused(tmp_path, monkeypatch, user_model) -> None:
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(user_model))
    with pytest.raises(ConfigError, match=r"model\.pkl is a pickle/joblib file, which runs code when loaded"):
        load_model_file(path)
    good = tmp_path / "model.skops"
    sio.dump(user_model, good)
    monkeypatch.setitem(sys.modules, "skops.io", None)
    with pytest.raises(ConfigError, match=r"needs the optional skops package; fix: pip install 'recoursesim\[skops\]'"):
        load_model_file(good)


def test_a_bundled_base_with_a_model_file_runs_from_the_command_line(tmp_path, monkeypatch, capsys) -> None:
    population = DatasetPopulation("sex", dataset="german").fit(np.random.default_rng(0))
    codes, labels = population.training_data()
    sio.dump(user_pipeline(population.schema.decode(codes).assign(ok=labels), "ok"), tmp_path / "model.skops")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(
        'base = "german-credit-lending"\n[population]\ninitial = 100\nentrants = 5\n'
        '[selection]\nk = 10\n[scorer]\nmodel_file = "model.skops"\n'
    )
    from recoursesim.cli import main

    assert main(["run", "s.toml", "--steps", "1", "--no-write"]) == 0
    assert "scenario s · seed 0 · steps 0..1 · 105 agents" in capsys.readouterr().out
    scenario = load_scenario(tmp_path / "s.toml")
    # The shorthand replaces the base's model; the path is made absolute for worker processes.
    assert scenario.spec["scorer"] == {"name": "fitted", "model_file": str(tmp_path.resolve() / "model.skops")}
