"""Acceptance: the same sweep gives byte-identical shards and summary with 1 process, 2 loky workers
and a real dask.distributed LocalCluster with 2 workers."""

import pytest

from recoursesim.sweep import DaskExecutor, JoblibExecutor, SweepPlan, run_sweep, summarise


def _files(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*.parquet"))}


def test_summaries_bit_identical_across_executors(small, tmp_path):
    pytest.importorskip("distributed")
    plan = SweepPlan.from_grid(small, {"selection.k": [10, 20]}, n_seeds=4)
    executors = {
        "one": lambda: JoblibExecutor(1),
        "loky2": lambda: JoblibExecutor(2),
        "dask2": lambda: DaskExecutor(local_workers=2),
    }
    outputs = {}
    for name, make in executors.items():
        with make() as executor:
            report = run_sweep(plan, tmp_path / name, executor=executor, progress=False)
        assert report.ok and report.succeeded == plan.n_runs, name
        summarise(tmp_path / name)
        outputs[name] = _files(tmp_path / name)
    reference = outputs["one"]
    assert "summary.parquet" in reference and sum(k.startswith("runs/") for k in reference) == plan.n_runs
    for name in ("loky2", "dask2"):
        assert outputs[name].keys() == reference.keys(), name
        for key, data in reference.items():
            assert outputs[name][key] == data, (name, key)
