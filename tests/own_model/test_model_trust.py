"""A model file is data: skops files load only allow-listed classes and the types the person running trusts.

The exploit files below are genuine: skops builds them, and runs their code, when their types
are trusted, as recoursesim trusted every name under ``sklearn.`` before the allow-list of exact
classes. Each test checks that recoursesim refuses them in one line and that nothing ran.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
import skops_files as sf
from own_model_helpers import cli, defendants_scenario
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from recoursesim.errors import ConfigError
from recoursesim.scenario import load_scenario
from recoursesim.scoring import FittedModelScorer, load_model_file
from recoursesim.scoring.fitted import example_fitted_model
from recoursesim.scoring.model_trust import allowed_types, names_in_file
from recoursesim.simulate import simulate
from tests.hostile.conftest import one_line_error, tree

EXPLOITS = {"python source": sf.source_exploit, "makedirs": sf.makedirs_exploit}
EXPLOIT_NAMES = {"python source": sf.RUN_SOURCE, "makedirs": sf.MAKEDIRS}


@pytest.fixture
def model_file(tmp_path, user_model) -> Path:
    path = tmp_path / "genuine.skops"
    sio.dump(user_model, path)
    return path


@pytest.mark.parametrize("kind", sorted(EXPLOITS))
def test_an_exploit_file_that_a_prefix_rule_let_run_is_refused_and_runs_nothing(
    tmp_path, monkeypatch, capsys, user_csv, model_file, kind
) -> None:
    marker = tmp_path / "PWNED"
    evil = sf.plant(model_file, tmp_path / "model.skops", EXPLOITS[kind](marker))
    names = set(names_in_file(evil))
    # Every name the file holds is under sklearn. (the rule recoursesim had), and trusting them runs its code.
    assert all(name.startswith(("sklearn.", "builtins.", "numpy.")) for name in names)
    assert EXPLOIT_NAMES[kind] in names
    assert sio.load(evil, trusted=sorted(names)) is not None and marker.exists()
    marker.rmdir() if marker.is_dir() else marker.unlink()

    with pytest.raises(ConfigError) as caught:
        load_model_file(evil)
    line = str(caught.value)
    assert f"model.skops names types recoursesim does not load without your trust: {EXPLOIT_NAMES[kind]}" in line
    assert "\n" not in line and not marker.exists()

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(defendants_scenario(user_csv, '[scorer]\nmodel_file = "model.skops"\n'))
    before = tree(tmp_path)
    for argv in (["run", "s.toml", "--out", "r"], ["sweep", "s.toml", "--seeds", "2", "--out", "w"]):
        line = one_line_error(*cli(capsys, *argv))
        assert "s.toml: scorer.model_file" in line and f"--trust {EXPLOIT_NAMES[kind]}" in line
    assert tree(tmp_path) == before and not marker.exists()


def test_the_allow_list_holds_classes_only_and_the_projects_own_models_need_no_trust(
    tmp_path, user_csv, user_model
) -> None:
    import importlib

    allowed = allowed_types()
    for name in allowed:
        module, _, attribute = name.rpartition(".")
        assert isinstance(getattr(importlib.import_module(module), attribute), type), name
    for function in (sf.RUN_SOURCE, sf.MAKEDIRS, "numpy.load", "sklearn.utils.discovery.import_module", "os.system"):
        assert function not in allowed
    assert {"sklearn.pipeline.Pipeline", "numpy.ndarray", "builtins.dict", "sklearn.tree._tree.Tree"} <= allowed
    frame = pd.read_csv(user_csv)
    X, y = frame[["age", "priors_count", "juv_fel_count"]], frame["no_recid"]
    models = {
        "pipeline": user_model,
        "forest": RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y),
        "checks": example_fitted_model(),
    }
    for name, model in models.items():
        path = tmp_path / f"{name}.skops"
        sio.dump(model, path)
        assert type(load_model_file(path)) is type(model), name


def test_callables_are_refused_whatever_their_module_until_trusted(tmp_path, user_csv, user_model) -> None:
    frame = pd.read_csv(user_csv)
    pipe = user_model
    model = make_pipeline(pipe.steps[0][1], FunctionTransformer(np.absolute), pipe.steps[1][1])
    model.fit(frame.drop(columns="no_recid"), frame["no_recid"])
    path = tmp_path / "abs.skops"
    sio.dump(model, path)
    with pytest.raises(ConfigError, match=r"numpy\.absolute \(a function or method\)"):
        load_model_file(path)
    assert type(load_model_file(path, trusted=["numpy.absolute"])) is type(model)
    # A method of an allowed class, a partial, an operator: callables, refused by their node.
    pipeline = sf.node("ObjectNode", "sklearn.pipeline.Pipeline")
    method = sf.node("MethodNode", "sklearn.pipeline.Pipeline", content={"func": "fit", "obj": pipeline})
    partial = sf.node("PartialNode", "functools.partial", content={})
    operator = sf.node("OperatorFuncNode", "operator.methodcaller", attrs=sf.tuple_of(sf.json_value("system")))
    for node, refused in (
        (method, "sklearn.pipeline.Pipeline.fit (a function or method)"),
        (partial, "functools.partial (a function or method)"),
        (operator, "operator.methodcaller (a function or method)"),
        (sf.node("UnheardOfNode", "sklearn.pipeline.Pipeline"), "unknown kind 'UnheardOfNode'"),
    ):
        with pytest.raises(ConfigError, match=refused.replace("(", r"\(").replace(")", r"\)")):
            load_model_file(sf.write(tmp_path / "crafted.skops", node))
    # A name written to break the line is shown cut and escaped: the refusal stays one line.
    with pytest.raises(ConfigError) as caught:
        load_model_file(sf.write(tmp_path / "crafted.skops", sf.node("ObjectNode", "sklearn.x\nerror: " + "y" * 500)))
    assert "\n" not in str(caught.value) and "'sklearn.x\\nerror: yyy" in str(caught.value)


def test_trust_is_granted_by_the_person_running_and_travels_to_worker_processes(
    tmp_path, monkeypatch, capsys, user_csv, user_model
) -> None:
    frame = pd.read_csv(user_csv)
    model = make_pipeline(user_model.steps[0][1], FunctionTransformer(np.absolute), user_model.steps[1][1])
    sio.dump(model.fit(frame.drop(columns="no_recid"), frame["no_recid"]), tmp_path / "model.skops")
    monkeypatch.chdir(tmp_path)
    scorer = '[scorer]\nmodel_file = "model.skops"\n'
    (tmp_path / "s.toml").write_text(defendants_scenario(user_csv, scorer))
    (tmp_path / "granted.toml").write_text(defendants_scenario(user_csv, scorer + 'trusted = ["numpy.absolute"]\n'))
    line = one_line_error(*cli(capsys, "run", "granted.toml", "--no-write"))
    assert "scorer.trusted: a scenario cannot grant trust" in line and "--trust TYPE" in line
    assert "--trust numpy.absolute" in one_line_error(*cli(capsys, "run", "s.toml", "--no-write"))
    status, err = cli(
        capsys, "sweep", "s.toml", "--seeds", "2", "--workers", "2", "--out", "w", "--trust", "numpy.absolute"
    )
    assert status == 0, err
    assert len(list((tmp_path / "w" / "runs").rglob("*.parquet"))) >= 2
    scenario = load_scenario("s.toml", trusted=["numpy.absolute"])
    assert pickle.loads(pickle.dumps(scenario)).trusted == ("numpy.absolute",)
    assert simulate("s.toml", seed=0, trusted=["numpy.absolute"]).ledger is not None
    with pytest.raises(ConfigError, match="trusted: is one string"):
        FittedModelScorer(model_file="model.skops", trusted="numpy.absolute")


def test_callable_and_fixed_type_nodes_are_checked_by_kind_whatever_name_they_state(tmp_path) -> None:
    # skops' PartialNode always builds functools.partial: stating an allowed class does not hide it.
    absolute = sf.node("FunctionNode", "numpy.absolute", content={"module_path": "numpy", "function": "absolute"})
    disguised = sf.node(
        "PartialNode",
        "sklearn.pipeline.Pipeline",
        content={"func": absolute, "args": sf.tuple_of(), "kwds": sf.dict_node({}), "namespace": sf.dict_node({})},
    )
    path = sf.write(tmp_path / "partial.skops", disguised)
    assert names_in_file(path)["functools.partial"] == "PartialNode"
    with pytest.raises(ConfigError, match=r"functools\.partial \(a function or method\)"):
        load_model_file(path)
    # A function node naming an allowed class is still a callable handed to the model: trusted only by name.
    as_function = sf.node("FunctionNode", "sklearn.pipeline.Pipeline", content={})
    with pytest.raises(ConfigError, match=r"sklearn\.pipeline\.Pipeline \(a function or method\)"):
        load_model_file(sf.write(tmp_path / "function.skops", as_function))
    # An operator node is named by what skops builds (operator.<name>), not the module it states.
    operator = sf.node("OperatorFuncNode", "sklearn.pipeline.methodcaller", attrs=sf.tuple_of(sf.json_value("x")))
    assert names_in_file(sf.write(tmp_path / "op.skops", operator))["operator.methodcaller"] == "OperatorFuncNode"
    # Kinds that build one fixed type are named by that type.
    raw = sf.node("BytesNode", "os.system", file="x.bin")
    assert names_in_file(sf.write(tmp_path / "bytes.skops", raw, {"x.bin": b"abc"})) == {"builtins.bytes": "BytesNode"}


def test_a_zip_bomb_is_refused_from_its_declared_sizes_before_anything_is_inflated(tmp_path, model_file) -> None:
    import resource
    import zipfile

    from recoursesim.scoring import model_trust

    bomb = tmp_path / "bomb.skops"
    padding = " " * (model_trust.MAX_SCHEMA_BYTES + 1)
    schema = '{"__class__": "dict", "__module__": "builtins", "__loader__": "DictNode", "pad": "' + padding + '"}'
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("schema.json", schema)
    del padding, schema
    assert bomb.stat().st_size < 2 * 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(
        ConfigError, match=r"bomb\.skops is not a model file recoursesim reads: its schema\.json inflates"
    ):
        load_model_file(bomb)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 64 * 2**10  # KiB: nothing inflated
    # A smaller member compressed far beyond what a model compresses is refused by its ratio.
    with zipfile.ZipFile(tmp_path / "ratio.skops", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("schema.json", zipfile.ZipFile(model_file).read("schema.json"))
        archive.writestr("x.npy", b"\0" * 50 * 2**20)
    with pytest.raises(ConfigError, match=r"its member 'x\.npy' is compressed \d+ times \(limit 100\)"):
        load_model_file(tmp_path / "ratio.skops")


def _with_seed_sequence(source: Path, target: Path, **fields: dict) -> Path:
    """Copy a skops file with fields of its generator's seed-sequence state replaced (JSON nodes)."""
    import json
    import zipfile

    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as out:
        for name in archive.namelist():
            data = archive.read(name)
            if name == "schema.json":
                schema = json.loads(data)
                schema["content"]["content"]["rng_"]["content"]["seed_seq"]["content"].update(fields)
                data = json.dumps(schema).encode()
            out.writestr(name, data)
    return target


def test_a_seed_sequence_unlike_numpys_is_refused_before_it_is_built(tmp_path, user_model) -> None:
    user_model.rng_ = np.random.default_rng([1, 2, 3]).spawn(2)[1]
    sio.dump(user_model, tmp_path / "rng.skops")
    assert load_model_file(tmp_path / "rng.skops").rng_.random() == user_model.rng_.random()
    words = sf.node("ListNode", "builtins.list", content=[sf.json_value(1)] * 2000)
    for fields, message in (
        ({"pool_size": sf.json_value(60_000)}, "has pool_size 60000, not numpy's 4"),
        ({"entropy": words}, "has an entropy or spawn_key that is not an integer or a list of at most 1024 integers"),
        ({"spawn_key": sf.json_value("x")}, "has an entropy or spawn_key"),
        ({"extra": sf.json_value(1)}, "is not numpy's state"),
    ):
        bad = _with_seed_sequence(tmp_path / "rng.skops", tmp_path / "bad.skops", **fields)
        with pytest.raises(ConfigError, match="bad.skops: a random generator's seed sequence " + message):
            load_model_file(bad)
