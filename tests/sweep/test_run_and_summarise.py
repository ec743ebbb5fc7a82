import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.simulate import simulate
from recoursesim.sweep import SweepPlan, run_sweep, summarise
from recoursesim.sweep import worker as worker_module
from recoursesim.sweep.store import SweepStore


def test_shards_hold_each_runs_results_with_its_seed(small, tmp_path):
    plan = SweepPlan.from_grid(small, {"selection.k": [10, 20]}, n_seeds=3, root_seed=5)
    report = run_sweep(plan, tmp_path / "s", progress=False)
    assert report.ok and report.succeeded == 6 and report.skipped == 0
    store = SweepStore(tmp_path / "s")
    assert store.finished() == {t.run_id for t in plan.tasks()}
    task = next(t for t in plan.tasks() if t.params["selection.k"] == 20 and t.seed_index == 2)
    shard = pd.read_parquet(store.shard_path(task.run_id))
    assert set(shard["run_id"]) == {task.run_id} and set(shard["seed_index"]) == {2}
    assert set(shard["seed_entropy"]) == {"5"} and set(shard["params"]) == {'{"selection.k":20}'}
    direct = simulate(small.with_overrides({"selection.k": 20}), np.random.SeedSequence(5).spawn(3)[2])
    pooled = shard[shard["step"].isna()].set_index(["group", "metric"])["value"]
    for group, row in direct.summary.set_index("group").iterrows():
        assert pooled[(str(group), "etr")] == pytest.approx(row["etr"], nan_ok=True, rel=0, abs=0)
        assert pooled[(str(group), "recourse")] == row["recourse"]
    per_step = shard[shard["step"].notna()]
    n_metrics = sum(pd.api.types.is_numeric_dtype(direct.metrics[c]) for c in direct.metrics if c != "step")
    assert len(per_step) == len(direct.metrics) * n_metrics
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert manifest["sweep_id"] == plan.sweep_id and len(manifest["runs"]) == 6 and manifest["root_seed"] == 5


def test_summary_is_mean_sem_and_t_interval_of_the_finite_values(small, tmp_path):
    plan = SweepPlan.from_grid(small, {"selection.k": [10, 20]}, n_seeds=4)
    run_sweep(plan, tmp_path / "s", progress=False)
    table = summarise(tmp_path / "s")
    assert list(table.columns) == ["selection.k", "step", "group", "metric", "n", "mean", "sem", "ci_low", "ci_high"]
    assert table.equals(pd.read_parquet(tmp_path / "s" / "summary.parquet"))
    shards = pd.concat(pd.read_parquet(p) for p in sorted((tmp_path / "s" / "runs").iterdir()))
    cases = [(10, 3, "selection_rate", "disadvantaged"), (20, None, "ttr", "advantaged")]
    cases.append((10, 3, "etr", "disadvantaged"))
    sizes = []
    for k, step, metric, group in cases:
        rows = shards[(shards["params"] == f'{{"selection.k":{k}}}') & (shards["metric"] == metric)]
        rows = rows[(rows["group"] == group) & (rows["step"].isna() if step is None else rows["step"] == step)]
        assert len(rows) == 4  # one value per seed
        values = rows["value"].to_numpy()
        values = values[np.isfinite(values)]
        row = table[(table["selection.k"] == k) & (table["metric"] == metric) & (table["group"] == group)]
        row = row[row["step"].isna() if step is None else row["step"] == step].iloc[0]
        assert row["n"] == values.size
        sizes.append(values.size)
        assert row["mean"] == pytest.approx(values.mean(), rel=1e-12)
        if values.size > 1:
            sem = values.std(ddof=1) / np.sqrt(values.size)
            assert row["sem"] == pytest.approx(sem, rel=1e-12)
            half = stats.t.ppf(0.975, values.size - 1) * sem
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((values.mean() - half, values.mean() + half))
        else:
            assert np.isnan(row["sem"]) and np.isnan(row["ci_low"])
    assert sizes[0] == sizes[1] == 4 and sizes[2] < 4  # undefined values (no success) are left out
    narrower = summarise(tmp_path / "s", confidence=0.5, write=False)
    assert (narrower["ci_high"] - narrower["mean"]).fillna(0).le((table["ci_high"] - table["mean"]).fillna(0)).all()
    with pytest.raises(ConfigError, match="confidence"):
        summarise(tmp_path / "s", confidence=1.5)


def test_a_failing_run_is_recorded_listed_and_retried_on_resume(small_toml, tmp_path, capsys, monkeypatch):
    real = worker_module.simulate

    def fails_for_seed_1(scenario, seed):
        if seed.spawn_key == (1,) and scenario.spec["selection"]["k"] == 20:
            raise RuntimeError("boom in run")
        return real(scenario, seed)

    monkeypatch.setattr(worker_module, "simulate", fails_for_seed_1)
    out = tmp_path / "s"
    argv = ["sweep", str(small_toml), "--seeds", "3", "--grid", "selection.k=10,20", "--out", str(out), "--quiet"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert (
        "1 of 6 runs failed" in err
        and "selection.k=20" in err
        and "seed 1" in err
        and "RuntimeError: boom in run" in err
    )
    store = SweepStore(out)
    assert len(store.finished()) == 5
    (failure,) = store.failures()
    assert failure["params"] == {"selection.k": 20} and "Traceback" in failure["traceback"]
    table = pd.read_parquet(out / "summary.parquet")
    pooled = table[table["step"].isna() & (table["metric"] == "entered")]
    assert sorted(pooled["n"]) == [2, 2, 3, 3]
    monkeypatch.setattr(worker_module, "simulate", real)
    assert main([*argv, "--resume"]) == 0
    assert len(store.finished()) == 6 and store.failures() == []


def test_pooled_text_labels_a_mean_without_interval():
    from recoursesim.cli.summarise import format_pooled
    from recoursesim.stats import NO_INTERVAL

    table = pd.DataFrame(
        {
            "step": pd.array([None, None, None], dtype="Int32"),
            "group": ["a", "a", "a"],
            "metric": ["etr", "ttr", "retr"],
            "n": [3, 1, 0],
            "mean": [0.5, 2.0, np.nan],
            "sem": [0.1, np.nan, np.nan],
            "ci_low": [0.2, np.nan, np.nan],
            "ci_high": [0.8, np.nan, np.nan],
        }
    )
    text = format_pooled(table, [])
    assert "0.500±0.300" in text and f"2.000 ({NO_INTERVAL})" in text and "n/a" in text


def test_summarise_refuses_a_manifest_whose_runs_are_malformed_in_one_line(small, tmp_path, capsys):
    run_sweep(SweepPlan.from_grid(small, {"selection.k": [10]}, n_seeds=1), tmp_path / "s", progress=False)
    path = tmp_path / "s" / "manifest.json"
    manifest = json.loads(path.read_text())
    for runs in ([["x", 0]], [["x", "0", 0]], "runs"):
        path.write_text(json.dumps({**manifest, "runs": runs}))
        assert main(["summarise", str(tmp_path / "s")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "is not a sweep manifest this recoursesim can read (runs" in err[0], err
