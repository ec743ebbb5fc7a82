"""A user's model on Dask: a sweep on a 2-worker LocalCluster (processes) equals the joblib sweep, file for file.

Both ways of bringing the model: given from Python (``model=``, pickled with the scenario) and named
by a scenario file (``[scorer] model_file``, loaded by each worker). The scenario refits the model
with CDA, so the workers also refit clones of it.
"""

from __future__ import annotations

import pytest
import skops.io as sio
from own_model_helpers import defendants_scenario

from recoursesim.scenario import load_scenario
from recoursesim.sweep import JoblibExecutor, SweepPlan, run_sweep, summarise

CDA = '[training]\nname = "cda"\n'


def _files(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*.parquet"))}


def test_user_model_sweeps_on_dask_as_on_joblib(tmp_path, user_csv, user_model):
    pytest.importorskip("distributed")
    from recoursesim.sweep import DaskExecutor

    (tmp_path / "python.toml").write_text(defendants_scenario(user_csv, CDA))
    sio.dump(user_model, tmp_path / "model.skops")
    (tmp_path / "file.toml").write_text(defendants_scenario(user_csv, CDA, '[scorer]\nmodel_file = "model.skops"\n'))
    plans = {
        "python": SweepPlan.from_grid(load_scenario(tmp_path / "python.toml", model=user_model), n_seeds=2),
        "file": SweepPlan.from_grid(load_scenario(tmp_path / "file.toml"), n_seeds=2),
    }
    outputs = {}
    for backend, make in (("joblib", lambda: JoblibExecutor(2)), ("dask", lambda: DaskExecutor(local_workers=2))):
        with make() as executor:
            for name, plan in plans.items():
                out = tmp_path / f"{backend}-{name}"
                report = run_sweep(plan, out, executor=executor, progress=False)
                assert report.ok and report.succeeded == 2, (backend, name)
                summarise(out)
                outputs[(backend, name)] = _files(out)
    for name in plans:
        joblib_files, dask_files = outputs[("joblib", name)], outputs[("dask", name)]
        assert "summary.parquet" in joblib_files and sum(k.startswith("runs/") for k in joblib_files) == 2
        assert dask_files.keys() == joblib_files.keys(), name
        for key, data in joblib_files.items():
            assert dask_files[key] == data, (name, key)
    # The model given from Python and the same model from its file decide alike.
    assert outputs[("joblib", "python")]["summary.parquet"] == outputs[("joblib", "file")]["summary.parquet"]


def test_trust_granted_by_the_person_running_reaches_dask_workers(tmp_path, user_csv, user_model):
    pytest.importorskip("distributed")
    import numpy as np
    import pandas as pd
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from recoursesim.sweep import DaskExecutor

    frame = pd.read_csv(user_csv)
    model = make_pipeline(user_model.steps[0][1], FunctionTransformer(np.absolute), user_model.steps[1][1])
    sio.dump(model.fit(frame.drop(columns="no_recid"), frame["no_recid"]), tmp_path / "model.skops")
    (tmp_path / "file.toml").write_text(defendants_scenario(user_csv, '[scorer]\nmodel_file = "model.skops"\n'))
    plan = SweepPlan.from_grid(load_scenario(tmp_path / "file.toml", trusted=["numpy.absolute"]), n_seeds=2)
    with DaskExecutor(local_workers=2) as executor:
        report = run_sweep(plan, tmp_path / "dask", executor=executor, progress=False)
    assert report.ok and report.succeeded == 2, [f["error"] for f in report.failures]
