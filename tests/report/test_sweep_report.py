"""``recoursesim report`` on a sweep directory: the report's time series from the shards, banded across seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.report.aggregate import steps_over_seeds
from recoursesim.report.results import load_results
from recoursesim.scenario import Scenario
from recoursesim.stats import describe_groups
from recoursesim.sweep import SweepPlan, run_sweep


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    spec = Scenario.bundled("default").spec | {"run": {"steps": 4, "seed": 0}}
    plan = SweepPlan.from_grid(Scenario.from_dict(spec), {"selection.k": [10, 20]}, n_seeds=4)
    out = tmp_path_factory.mktemp("sweep") / "s"
    run_sweep(plan, out, progress=False)
    return out


def test_sweep_series_are_the_runs_own_metrics_averaged(sweep_dir) -> None:
    results = load_results(sweep_dir, point=1)
    assert results.n_seeds == 4 and not results.has_ledgers
    # The same scenario run directly, seed by seed, gives the same per-step metrics.
    from recoursesim.simulate import simulate
    from recoursesim.sweep.worker import fresh_seed

    task = next(t for t in SweepPlan.from_grid(results.scenario, n_seeds=4).tasks() if t.seed_index == 2)
    direct = simulate(results.scenario, fresh_seed(task.seed)).metrics
    stored = results.runs[2].metrics.set_index(["step", "group"])
    for column in ("etr", "ttr", "selection_rate", "n_selected"):
        expected = direct.set_index(["step", direct["group"].astype(str)])[column]
        np.testing.assert_allclose(stored[column].to_numpy(), expected.to_numpy(), equal_nan=True)
    steps = steps_over_seeds(results)
    manual = pd.concat([r.metrics for r in results.runs]).groupby(["step", "group"])["etr"].mean()
    np.testing.assert_allclose(steps.set_index(["step", "group"])["etr_mean"], manual)
    rates = steps[["selection_rate_low", "selection_rate_high"]].dropna().to_numpy()
    assert (rates >= 0).all() and (rates <= 1).all()


def test_report_command_on_a_sweep(sweep_dir, tmp_path, capsys) -> None:
    assert main(["report", str(sweep_dir), "--html", str(tmp_path / "r.html")]) == 2
    assert "choose one (0: {'selection.k': 10}; 1: {'selection.k': 20})" in capsys.readouterr().err
    assert main(["report", str(sweep_dir), "--point", "0", "--html", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text()
    assert "4 seeds" in html and "a sweep keeps each run" in html
    assert (tmp_path / "r_figures" / "etr_ttr_over_time.png").is_file()


def test_bounded_rates_get_bootstrap_bands_by_hand() -> None:
    frame = pd.DataFrame({"k": ["a"] * 4 + ["b"] * 3 + ["c"], "v": [0.0, 0.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.2]})
    bounds = describe_groups(frame, ["k"], "v", method="bootstrap").set_index("k")
    # a: each resampled mean of {0, 0, 1, 1} is a multiple of 1/4; P(mean = 0) = P(mean = 1) = 1/16 > 2.5%,
    # so the percentile bounds are exactly 0 and 1 (a t-interval would be 0.5 -/+ 0.92, outside [0, 1]).
    assert bounds.loc["a", ["ci_low", "ci_high"]].tolist() == [0.0, 1.0]
    assert bounds.loc["b", ["ci_low", "ci_high"]].tolist() == [0.5, 0.5]  # identical values: zero width
    assert np.isnan(bounds.loc["c", ["ci_low", "ci_high"]].to_numpy(dtype=float)).all()  # one value: none
