"""Acceptance: a user's Pipeline(ColumnTransformer, HistGradientBoostingClassifier) through every path.

On COMPAS (the bundled data, from Python) and on a user's CSV (from the command line, the model saved
with skops): a simulation, a 2-worker sweep, ``compare`` and ``report``; immutable features never move.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import skops.io as sio
from own_model_helpers import user_pipeline

from recoursesim.cli import main
from recoursesim.compare import compare_policies
from recoursesim.datasets import load_compas
from recoursesim.features.defaults import DEFAULT_ACTIONS, DEFAULT_COLUMNS
from recoursesim.report import write_report
from recoursesim.scenario import load_scenario
from recoursesim.simulate import simulate
from recoursesim.sweep import JoblibExecutor, SweepPlan, run_sweep

SMALL = {"run": {"steps": 3, "seed": 0}, "selection": {"name": "top_k", "k": 15}}


def _never_moved(ledger: pd.DataFrame, columns: list[str]) -> bool:
    return bool((ledger.groupby("agent_id", observed=True)[columns].nunique() == 1).all().all())


def _moved_some(ledger: pd.DataFrame, columns: list[str]) -> bool:
    return bool((ledger.groupby("agent_id", observed=True)[columns].nunique() > 1).any().any())


def test_compas_from_python_simulation_sweep_compare_report(tmp_path) -> None:
    data = load_compas()
    frame = data.frame[[*DEFAULT_COLUMNS["compas"], data.target]].dropna()
    pipeline = user_pipeline(frame.sample(1500, random_state=1), data.target)
    spec = {
        **SMALL,
        "population": {"name": "dataset", "dataset": "compas", "group": "sex", "initial": 150, "entrants": 10},
        "scorer": {"name": "model"},  # replaced by the user's model
        "recourse": {"name": "search", "action_set": {"upper": {"priors_count": 20}}},
        "behaviour": {"name": "bounded_effort"},
    }
    scenario = load_scenario(spec, model=pipeline)
    result = simulate(scenario, seed=0)
    assert _never_moved(result.ledger, DEFAULT_ACTIONS["compas"]["immutable"])
    assert result.summary["recourse"].sum() > 0

    sweep_dir = tmp_path / "sweep"
    with JoblibExecutor(2) as executor:
        report = run_sweep(SweepPlan.from_grid(scenario, n_seeds=2), sweep_dir, executor=executor, progress=False)
    assert report.ok and report.succeeded == 2
    output, figures, built = write_report(sweep_dir, tmp_path / "report.html")
    assert "2 seeds" in built.title and (figures / "etr_ttr_over_time.png").is_file()
    assert "a sweep keeps each run" in output.read_text()

    stricter = scenario.with_overrides({"selection.k": 10})
    comparison = compare_policies([scenario, stricter], 2, labels=["k15", "k10"])
    rates = comparison.table.set_index(["policy", "group", "metric"])["mean"]
    assert rates[("k10", "Male", "selection_rate")] < rates[("k15", "Male", "selection_rate")]


def test_user_csv_from_the_command_line(tmp_path, user_csv, user_model, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    sio.dump(user_model, tmp_path / "model.skops")
    immutable = ["sex", "race", "age", "juv_fel_count"]
    text = f"""
name = "defendants"
[run]
steps = 3
[population]
name = "dataset"
path = "{user_csv}"
target = "no_recid"
group = "race"
initial = 150
entrants = 10
[population.actions]
immutable = {json.dumps(immutable)}
[scorer]
model_file = "model.skops"
[selection]
name = "top_k"
k = 15
[recourse]
name = "search"
[behaviour]
name = "bounded_effort"
"""
    (tmp_path / "s.toml").write_text(text)
    (tmp_path / "strict.toml").write_text(text.replace("k = 15", "k = 10").replace('"defendants"', '"strict"'))

    assert main(["run", "s.toml", "--out", "run"]) == 0
    out, err = capsys.readouterr()
    assert "scenario defendants · seed 0 · steps 0..3" in out
    assert "inferred feature types: sex categorical, age integer, race categorical" in err
    ledger = pd.read_parquet(tmp_path / "run" / "ledger.parquet")
    assert _never_moved(ledger, immutable) and _moved_some(ledger, ["priors_count", "c_charge_degree"])

    assert main(["sweep", "s.toml", "--seeds", "2", "--workers", "2", "--out", "sweep"]) == 0
    assert main(["compare", "s.toml", "strict.toml", "--seeds", "2"]) == 0
    out, _ = capsys.readouterr()
    assert "defendants" in out and "strict" in out
    for results in ("run", "sweep"):
        assert main(["report", results, "--html", f"{results}.html"]) == 0
        assert (tmp_path / f"{results}.html").stat().st_size > 10_000
    summary = pd.read_parquet(tmp_path / "sweep" / "summary.parquet")
    assert np.isfinite(summary["mean"]).any()
