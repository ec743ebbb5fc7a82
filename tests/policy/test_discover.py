"""Scenario discovery (PRIM through the EMA Workbench) on sweeps whose answer is known."""

import json

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.output import record as ownership
from recoursesim.policy.discover import DISCOVER_FILES, Cases, discover, parse_condition, read_cases
from recoursesim.scenario import load_scenario
from recoursesim.sweep import RunOutcome, RunTask, SweepPlan, run_sweep
from recoursesim.sweep.worker import encode_shard
from tests.hostile.conftest import one_line_error

pytestmark = pytest.mark.ema

K = list(range(10, 41, 2))  # 16 values; k < 20 holds for 5 of them
EFFORT = [round(0.05 * i, 2) for i in range(20)]  # 0.00 … 0.95; effort < 0.3 holds for 6 of them


def bad_when_small(task: RunTask) -> RunOutcome:
    """dTTR of women is 3 steps exactly when k < 20 and effort < 0.3, else 1 (plus seed noise < 0.5)."""
    noise = np.random.default_rng(task.seed.generate_state(1)).uniform(-0.4, 0.4)
    bad = task.params["selection.k"] < 20 and task.params["population.effort.scale"] < 0.3
    summary = pd.DataFrame(
        {"group": ["male", "female"], "dttr": [0.0, (3.0 if bad else 1.0) + noise], "entered": [5, 7]}
    )
    return RunOutcome(task, encode_shard(task, None, summary))


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("discover") / "sweep"
    grid = {"selection.k": K, "population.effort.scale": EFFORT}
    plan = SweepPlan.from_grid(load_scenario("german-credit-lending"), grid, n_seeds=1, per_step=False)
    run_sweep(plan, out, progress=False, runner=bad_when_small)
    return out


def test_prim_finds_the_box_where_the_outcome_is_bad(sweep):
    cases = read_cases(sweep, parse_condition("dTTR:female > 2"))
    assert len(cases.y) == len(K) * len(EFFORT)
    assert int(cases.y.sum()) == 5 * 6
    found = discover(cases)
    box = found.boxes[0]
    assert box.coverage >= 0.9 and box.density >= 0.9
    limits = box.limits.set_index("parameter")
    assert set(limits.index) == {"selection.k", "population.effort.scale"}
    # The box's limits separate the grid values exactly: k ≤ 18 inside, 20 outside; effort ≤ 0.25 inside, 0.3 outside.
    assert limits.loc["selection.k", "low"] <= 10 and 18 <= limits.loc["selection.k", "high"] < 20
    assert limits.loc["population.effort.scale", "low"] <= 0
    assert 0.25 <= limits.loc["population.effort.scale", "high"] < 0.3
    # The runs inside the box, counted by hand from its limits, give its coverage and density.
    x = cases.x
    inside = (x["selection.k"] <= limits.loc["selection.k", "high"]) & (
        x["population.effort.scale"] <= limits.loc["population.effort.scale", "high"]
    )
    assert box.n == int(inside.sum())
    assert box.density == pytest.approx(cases.y[inside].mean())
    assert box.coverage == pytest.approx(cases.y[inside].sum() / cases.y.sum())


def test_synthetic_cases_bad_exactly_when_k_below_20_and_effort_below_0_3():
    # The acceptance case on continuous draws: 2,000 runs, the outcome bad exactly in the box.
    rng = np.random.default_rng(7)
    x = pd.DataFrame({"selection.k": rng.uniform(10, 40, 2000), "effort": rng.uniform(0, 1, 2000)})
    x["inert"] = rng.uniform(0, 1, 2000)
    y = ((x["selection.k"] < 20) & (x["effort"] < 0.3)).to_numpy()
    found = discover(Cases(x, y.astype(float), y, parse_condition("dttr:a > 0.5")))
    box = found.boxes[0]
    assert box.coverage >= 0.9 and box.density >= 0.9
    limits = box.limits.set_index("parameter")
    assert set(limits.index) == {"selection.k", "effort"}
    assert limits.loc["selection.k", "high"] == pytest.approx(20, abs=0.5)
    assert limits.loc["effort", "high"] == pytest.approx(0.3, abs=0.02)


def test_cli_prints_the_box_and_writes_tables_and_figures(sweep, tmp_path, capsys):
    out = tmp_path / "found"
    assert main(["discover", str(sweep), "--where", "dTTR:female > 2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "30 of 320 runs have dttr:female > 2" in text
    assert "box 1: coverage 1.000, density 1.000" in text
    assert "selection.k:" in text and "population.effort.scale:" in text
    assert sorted(p.name for p in out.iterdir()) == sorted([ownership.RECORD, *DISCOVER_FILES])
    notes = json.loads((out / "discover.json").read_text())
    assert notes["runs"] == 320 and notes["runs_of_interest"] == 30
    boxes = pd.read_csv(out / "boxes.csv")
    assert set(boxes["parameter"]) == {"selection.k", "population.effort.scale"}


@pytest.mark.parametrize(
    ("where", "field", "fragment"),
    [
        ("dTTR:nobody > 2", "--where", "'nobody' is not a group"),
        ("speed:disadvantaged > 2", "--where", "'speed' is not a pooled metric"),
        ("dTTR:female > 50", "--where", "no run has dttr:female > 50"),
        ("dTTR:female > -5", "--where", "every run has"),
        ("dTTR:female >> 2", "--where", "cannot read"),
    ],
)
def test_bad_condition_is_one_line_naming_the_field(sweep, capsys, where, field, fragment):
    line = one_line_error(main(["discover", str(sweep), "--where", where]), capsys.readouterr().err)
    assert line.startswith(f"error: {field}") and fragment in line and "fix:" in line


def test_results_from_another_version_or_no_results(sweep, tmp_path, capsys):
    manifest = json.loads((sweep / "manifest.json").read_text())
    newer = tmp_path / "newer"
    newer.mkdir()
    (newer / "manifest.json").write_text(json.dumps({**manifest, "layout": 99}))
    line = one_line_error(main(["discover", str(newer), "--where", "dTTR:female > 2"]), capsys.readouterr().err)
    assert "another recoursesim version" in line and "RESULTS" in line
    line = one_line_error(main(["discover", str(tmp_path), "--where", "dTTR:a > 2"]), capsys.readouterr().err)
    assert "holds no sweep" in line


def test_a_corrupt_shard_is_named(sweep, tmp_path, capsys):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(sweep, copy)
    shard = sorted((copy / "runs").glob("*.parquet"))[3]
    shard.write_bytes(shard.read_bytes()[:40])
    line = one_line_error(main(["discover", str(copy), "--where", "dTTR:female > 2"]), capsys.readouterr().err)
    assert shard.name in line and "cannot be read as Parquet" in line


def test_read_cases_reads_a_sensitivity_study_folder(sweep, tmp_path):
    study = tmp_path / "study"
    study.mkdir()
    (study / "sweep").symlink_to(sweep, target_is_directory=True)
    cases = read_cases(study, parse_condition("dTTR:female > 2"))
    assert len(cases.y) == 320


def test_bad_options_are_refused():
    x = pd.DataFrame({"a": [0.0, 1.0, 2.0]})
    cases = Cases(x, np.array([0.0, 1.0, 1.0]), np.array([False, True, True]), parse_condition("dttr:a > 0.5"))
    with pytest.raises(ConfigError, match="--threshold"):
        discover(cases, threshold=1.5)
    with pytest.raises(ConfigError, match="--boxes"):
        discover(cases, max_boxes=0)


def test_prim_is_imported_without_the_rest_of_the_workbench_which_still_imports_whole_afterwards():
    import subprocess
    import sys

    code = """
import sys
from recoursesim.policy._deps import require_prim
prim = require_prim()
assert prim.Prim.__name__ == "Prim" and require_prim() is prim
assert not {"platypus", "SALib", "statsmodels.tsa", "multiprocess"} & set(sys.modules), "the rest was imported"
assert not [m for m in sys.modules if m.startswith("ema_workbench")], "stand-ins left behind"
import ema_workbench
from ema_workbench.em_framework.util import NamedObject
assert ema_workbench.ReplicatorModel and ema_workbench.em_framework.util.NamedObject is NamedObject
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr


def test_a_box_that_restricts_nothing_is_reported_in_every_output(tmp_path):
    # The condition holds in 70% of the runs whatever the parameters: with threshold 0.6 the densest
    # box of the highest coverage is the first of the trajectory, all the runs, restricting nothing.
    rng = np.random.default_rng(5)
    x = pd.DataFrame({"selection.k": rng.uniform(10, 40, 400), "effort": rng.uniform(0, 1, 400)})
    y = rng.random(400) < 0.7
    found = discover(Cases(x, y.astype(float), y, parse_condition("dttr:a > 0.5")), threshold=0.6, max_boxes=1)
    (box,) = found.boxes
    assert box.limits.empty and box.coverage == 1.0 and box.n == 400
    assert box.density == pytest.approx(y.mean())
    text = found.format().splitlines()
    assert text[1].startswith("box 1: coverage 1.000")
    share = f"{y.mean():.1%}"
    said = "restricts no parameter: no subspace stands out"
    assert text[2] == f"    {said} (the condition holds in {share} of all the runs searched)"
    found.write(tmp_path)
    table = pd.read_csv(tmp_path / "boxes.csv")
    assert len(table) == 1 and table.loc[0, "box"] == 1 and table.loc[0, "runs"] == 400
    assert table[["parameter", "low", "high", "values"]].isna().all(axis=None)
    notes = json.loads((tmp_path / "discover.json").read_text(encoding="utf-8"))
    assert notes["boxes"][0]["restricted"] == [] and notes["boxes"][0]["runs"] == 400


def test_two_identical_discoveries_write_identical_files(sweep, tmp_path):
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        assert main(["discover", str(sweep), "--where", "dTTR:female > 2", "--out", str(out)]) == 0
    first, second = ({p.name: p.read_bytes() for p in sorted(out.iterdir())} for out in outs)
    assert {*DISCOVER_FILES, ownership.RECORD} == set(first)
    assert first == second  # no timing field: every byte, the figures and the record too
