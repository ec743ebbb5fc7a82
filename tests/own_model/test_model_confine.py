"""A loaded model runs confined: no cache folder, no worker processes, no malformed sparse matrix or tree.

Allowed classes read some of their settings and state as instructions: ``Pipeline(memory=...)``
writes a joblib cache outside ``--out`` on every refit and unpickles it later, ``n_jobs`` starts
worker processes, and compiled code trusts the indices of sparse matrices and trees.
"""

from __future__ import annotations

import copy
import io
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
import skops.io as sio
from own_model_helpers import cli, defendants_scenario
from sklearn.ensemble import (
    BaggingClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    VotingClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from sklearn.tree import DecisionTreeClassifier

from recoursesim.errors import ConfigError
from recoursesim.scoring import load_model_file
from recoursesim.scoring.model_confine import confine_model
from tests.hostile.conftest import ROOT, one_line_error, tree

NUMBERS = ["age", "priors_count", "juv_fel_count"]


#: Loads a model file (with recoursesim, or with skops alone), scores with it, prints how many child processes appeared.
SCORE_AND_COUNT_CHILDREN = """
import os, sys
from pathlib import Path
import numpy as np

def children():
    found = 0
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        found += int(stat.rpartition(")")[2].split()[1]) == os.getpid()
    return found

path, how = sys.argv[1], sys.argv[2]
if how == "recoursesim":
    from recoursesim.scoring import load_model_file
    model = load_model_file(path)
else:
    import skops.io as sio
    model = sio.load(path, trusted=sio.get_untrusted_types(file=path))
model.predict_proba(np.random.default_rng(0).random((500, 3)))
print(children())
"""


def _rewrite_npz(model_file: Path, out: Path, **arrays: np.ndarray) -> Path:
    """Copy a skops file with the named arrays of its sparse-matrix member replaced."""
    with zipfile.ZipFile(model_file) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name.endswith(".npz"):
                stored = dict(np.load(io.BytesIO(data), allow_pickle=False))
                stored.update(arrays)
                buffer = io.BytesIO()
                np.savez(buffer, **stored)
                data = buffer.getvalue()
            target.writestr(name, data)
    return out


def test_a_model_file_with_a_cache_folder_is_refused_and_nothing_is_written_outside(
    tmp_path, monkeypatch, capsys, user_csv, user_model
) -> None:
    cache = tmp_path / "outside"
    model = Pipeline(user_model.steps, memory=str(cache))
    sio.dump(model, tmp_path / "model.skops")
    with pytest.raises(ConfigError) as caught:
        load_model_file(tmp_path / "model.skops")
    assert f"Pipeline sets memory={str(cache)!r}" in str(caught.value) and "memory=None" in str(caught.value)

    sio.dump(user_model, tmp_path / "genuine.skops")
    monkeypatch.chdir(tmp_path)
    scorer = '[scorer]\nmodel_file = "{}"\n'
    refit = '[training]\nname = "refit"\n'
    (tmp_path / "s.toml").write_text(defendants_scenario(user_csv, scorer.format("model.skops"), refit))
    params = f'[training]\nname = "refit"\nestimator_params = {{ memory = "{cache}" }}\n'
    (tmp_path / "p.toml").write_text(defendants_scenario(user_csv, scorer.format("genuine.skops"), params))
    before = tree(tmp_path)
    line = one_line_error(*cli(capsys, "run", "s.toml", "--out", "r"))
    assert "scorer.model_file: model.skops: Pipeline sets memory=" in line
    line = one_line_error(*cli(capsys, "run", "p.toml", "--out", "r"))
    assert "training.estimator_params.memory: names a cache folder" in line
    assert tree(tmp_path) == before and not cache.exists()


def test_loaded_models_and_their_refit_copies_run_single_process(tmp_path, user_csv) -> None:
    frame = pd.read_csv(user_csv)
    bagging = BaggingClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=4, random_state=0)
    model = make_pipeline(bagging).fit(frame[NUMBERS].to_numpy(), frame["no_recid"])
    model.set_params(baggingclassifier__n_jobs=2)  # set after fitting: this process starts no workers
    sio.dump(model, tmp_path / "bag.skops")
    loaded = load_model_file(tmp_path / "bag.skops")
    jobs = {k: v for k, v in loaded.get_params(deep=True).items() if k.endswith("n_jobs")}
    assert jobs and set(jobs.values()) == {None}, jobs
    counts = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for how in ("skops", "recoursesim"):  # in a fresh process each: no worker pool left by earlier tests
        argv = [sys.executable, "-c", SCORE_AND_COUNT_CHILDREN, str(tmp_path / "bag.skops"), how]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
        counts[how] = int(done.stdout.split()[-1]) if done.returncode == 0 else done.stderr
    assert counts["skops"] >= 1 and counts["recoursesim"] == 0, counts  # skops alone starts workers
    from recoursesim.training.refit import RefitTrainer

    prototype = RefitTrainer(user_estimator=model)._prototype
    assert {v for k, v in prototype.get_params(deep=True).items() if k.endswith("n_jobs")} == {None}
    assert model[-1].n_jobs == 2  # the object given from Python is cloned, never changed


@pytest.mark.parametrize("matrix", ["csr", "csc"])
def test_a_tampered_sparse_matrix_is_refused_before_anything_reads_it(tmp_path, user_csv, matrix) -> None:
    frame = pd.read_csv(user_csv)
    model = LogisticRegression().fit(frame[NUMBERS], frame["no_recid"]).sparsify()
    if matrix == "csc":
        model.coef_ = scipy.sparse.csc_matrix(model.coef_)
    sio.dump(model, tmp_path / "ok.skops")
    assert type(load_model_file(tmp_path / "ok.skops").coef_) is type(model.coef_)
    bad = _rewrite_npz(tmp_path / "ok.skops", tmp_path / "bad.skops", indices=np.array([0, 1, 200_000_000], np.int32))
    with pytest.raises(ConfigError) as caught:
        load_model_file(bad)
    assert f"bad.skops: a sparse {matrix}_matrix" in str(caught.value) and "\n" not in str(caught.value)


def test_trees_whose_nodes_point_outside_or_backwards_are_refused(user_csv) -> None:
    frame = pd.read_csv(user_csv)
    genuine = DecisionTreeClassifier(max_depth=3, random_state=0).fit(frame[NUMBERS], frame["no_recid"])
    assert confine_model(genuine, "tree.skops", "model_file") is genuine
    state = genuine.tree_.__getstate__()
    for field, value in (("left_child", 10**8), ("left_child", 0), ("feature", 7)):
        nodes = state["nodes"].copy()
        nodes[field][0] = value
        tampered = DecisionTreeClassifier(max_depth=3).fit(frame[NUMBERS], frame["no_recid"])
        tampered.tree_.__setstate__({**state, "nodes": nodes})
        with pytest.raises(ConfigError, match=r"tree\.skops: a tree structure"):
            confine_model(tampered, "tree.skops", "model_file")


def test_a_value_the_models_encoder_was_not_fitted_on_is_one_line_naming_the_column(
    tmp_path, monkeypatch, capsys, user_csv
) -> None:
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder

    frame = pd.read_csv(user_csv)
    X = frame.drop(columns="no_recid")
    encode = make_column_transformer((OneHotEncoder(handle_unknown="error"), ["race"]), remainder="drop")
    model = make_pipeline(encode, LogisticRegression()).fit(X, frame["no_recid"])
    categories = model[0].named_transformers_["onehotencoder"].categories_
    common = X["race"].value_counts().index[0]
    categories[0] = np.array([c if c != common else "zzz" for c in categories[0]], dtype=object)
    sio.dump(model, tmp_path / "model.skops")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(defendants_scenario(user_csv, '[scorer]\nmodel_file = "model.skops"\n'))
    line = one_line_error(*cli(capsys, "run", "s.toml", "--no-write"))
    assert f"was not fitted on the value(s) {common} of column 'race'" in line
    assert "handle_unknown='ignore'" in line


def _objects(*items: object) -> np.ndarray:
    """A NumPy array of dtype object holding ``items`` (skops rebuilds such arrays from a model file)."""
    array = np.empty(len(items), dtype=object)
    array[:] = list(items)
    return array


def test_estimators_inside_object_arrays_are_confined(tmp_path, user_csv) -> None:
    frame = pd.read_csv(user_csv)
    X, y = frame[NUMBERS], frame["no_recid"]
    cache = tmp_path / "outside"
    # A cache folder hidden in a GridSearchCV's param_grid, as an object array: refused on load and on refit.
    choices = _objects(Pipeline([("lr", LogisticRegression())], memory=str(cache)))
    search = GridSearchCV(Pipeline([("m", LogisticRegression())]), {"m": choices}, cv=2)
    search.best_estimator_ = Pipeline([("m", LogisticRegression())]).fit(X, y)
    sio.dump(search, tmp_path / "grid.skops")
    with pytest.raises(ConfigError, match=r"grid\.skops: Pipeline sets memory="):
        load_model_file(tmp_path / "grid.skops")
    from recoursesim.training.refit import RefitTrainer

    with pytest.raises(ConfigError, match=r"the refit model: Pipeline sets memory="):
        RefitTrainer(user_estimator=search)
    assert not cache.exists()
    # A tampered tree inside GradientBoosting's object array of trees.
    boosting = GradientBoostingClassifier(n_estimators=2, max_depth=2, random_state=0).fit(X, y)
    state = boosting.estimators_[0, 0].tree_.__getstate__()
    nodes = state["nodes"].copy()
    nodes["left_child"][0] = 50_000_000
    boosting.estimators_[0, 0].tree_.__setstate__({**state, "nodes": nodes})
    with pytest.raises(ConfigError, match=r"gb\.skops: a tree structure"):
        confine_model(boosting, "gb.skops", "model_file")
    # n_jobs of an estimator inside an object array is set to None.
    voting = VotingClassifier([("b", BaggingClassifier(LogisticRegression(), n_estimators=2))], voting="soft")
    voting.fit(X, y)
    voting.estimators_[0].n_jobs = 2
    voting.estimators_ = _objects(*voting.estimators_)
    confine_model(voting, "vote.skops", "model_file")
    assert voting.estimators_[0].n_jobs is None


def test_map_is_not_an_allowed_type() -> None:
    from recoursesim.scoring.model_trust import allowed_types

    assert "builtins.map" not in allowed_types() and "builtins.list" in allowed_types()


def test_gradient_boosting_trees_must_agree_with_their_binning(user_csv) -> None:
    frame = pd.read_csv(user_csv)
    X = frame[NUMBERS].assign(band=frame["priors_count"].clip(0, 5).astype(int))
    genuine = HistGradientBoostingClassifier(max_iter=3, max_depth=3, categorical_features=[3], random_state=0)
    genuine.fit(X, frame["no_recid"])
    assert confine_model(genuine, "hgb.skops", "model_file") is genuine

    def tampered(change: Callable[[Any], None]) -> Any:
        model = copy.deepcopy(genuine)
        change(model)
        return model

    def flag_numeric_node(model: Any) -> None:  # a numerical node claims to be categorical (mkE's segfault)
        predictor = model._predictors[0][0]
        nodes = predictor.nodes.copy()
        numeric = model._bin_mapper.is_categorical_[nodes["feature_idx"]] == 0  # columns as binned (reordered)
        first = int(np.flatnonzero(~nodes["is_leaf"].astype(bool) & numeric)[0])
        nodes["is_categorical"][first], nodes["bitset_idx"][first] = 1, 0
        predictor.nodes = nodes

    def feature_out_of_range(model: Any) -> None:
        nodes = model._predictors[0][0].nodes.copy()
        nodes["feature_idx"][0] = 4
        model._predictors[0][0].nodes = nodes

    def codes_beyond_a_byte(model: Any) -> None:
        band = int(np.flatnonzero(model._bin_mapper.is_categorical_)[0])
        model._bin_mapper.bin_thresholds_[band] = np.array([0.0, 1.0, 10_000.0])

    cases = {
        "categorical flags disagree with _bin_mapper": flag_numeric_node,
        "binning of a gradient-boosting model": lambda m: setattr(
            m._bin_mapper, "is_categorical_", np.array([], np.uint8)
        ),
        "feature index out of range": feature_out_of_range,
        "(_bin_mapper)": codes_beyond_a_byte,
        "not scikit-learn's node records": lambda m: setattr(m._predictors[0][0], "nodes", np.array([1, 2, 3])),
    }
    for message, change in cases.items():
        with pytest.raises(ConfigError, match=re.escape(message)):
            confine_model(tampered(change), "hgb.skops", "model_file")


def test_state_of_the_wrong_type_is_ignored_or_refused_never_a_traceback(user_csv) -> None:
    frame = pd.read_csv(user_csv)
    for attribute, value in (("tree_", "x"), ("tree_", [1, 2]), ("_predictors", [[np.array([1, 2, 3])]])):
        model = LogisticRegression().fit(frame[NUMBERS], frame["no_recid"])
        helper = StandardScaler()
        helper.n_features, helper.nodes = value, value
        setattr(model, attribute, helper if attribute == "tree_" else value)
        assert confine_model(model, "lr.skops", "model_file") is model


def test_libsvm_state_must_agree_with_its_arrays(user_csv) -> None:
    frame = pd.read_csv(user_csv)
    X, y = frame[NUMBERS].to_numpy(float), frame["no_recid"].to_numpy()
    for genuine in (SVC(kernel="linear").fit(X, y), SVC().fit(scipy.sparse.csr_matrix(X), y), SVR().fit(X, X[:, 0])):
        assert confine_model(genuine, "svm.skops", "model_file") is genuine

    def counts_past_the_end(model: Any) -> None:  # libsvm reads past the arrays (heap garbage, mkS2)
        total = int(model._n_support.sum())
        model._n_support = np.array([-1_000_000, 1_000_000 + total], dtype=model._n_support.dtype)

    def short_coefficients(model: Any) -> None:
        model._dual_coef_ = model._dual_coef_[:, :1].copy()

    def sparse_flag_on_dense_vectors(model: Any) -> None:
        model._sparse = True

    def big_counts_with_sparse_vectors(model: Any) -> None:
        model._sparse, model.support_vectors_ = True, scipy.sparse.csr_matrix(model.support_vectors_)
        model._n_support = np.array([3_000_000, 3_000_000], dtype=model._n_support.dtype)

    def wrong_intercepts(model: Any) -> None:
        model._intercept_ = np.zeros(3)

    for change in (
        counts_past_the_end,
        short_coefficients,
        sparse_flag_on_dense_vectors,
        big_counts_with_sparse_vectors,
        wrong_intercepts,
    ):
        model = SVC(kernel="linear").fit(X, y)
        change(model)
        with pytest.raises(ConfigError, match=r"svm\.skops: libsvm's state"):
            confine_model(model, "svm.skops", "model_file")
