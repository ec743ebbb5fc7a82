"""Policy comparisons: intervals, Welch differences, the table, the figure and the command."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from recoursesim.cli import main
from recoursesim.compare import METRICS, compare_policies, comparison_figure, format_comparison, welch_difference
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate


def small(**overrides) -> Scenario:
    return Scenario.bundled("default").with_overrides({"run.steps": 6, **overrides})


def test_welch_difference_matches_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.0, 1.0, 15), rng.normal(0.8, 2.0, 11)
    difference, low, high, p_value = welch_difference(a, b)
    reference = stats.ttest_ind(b, a, equal_var=False)
    assert difference == pytest.approx(b.mean() - a.mean())
    assert p_value == pytest.approx(reference.pvalue)
    interval = reference.confidence_interval(0.95)
    assert (low, high) == pytest.approx((interval.low, interval.high))


def test_welch_difference_edge_cases():
    assert welch_difference(np.ones(4), np.ones(4)) == (0.0, 0.0, 0.0, 1.0)
    assert welch_difference(np.ones(4), np.full(4, 2.0))[3] == 0.0
    assert np.isnan(welch_difference(np.array([1.0]), np.ones(3))[0])
    assert welch_difference(np.array([1.0, np.nan, 1.0]), np.ones(3))[0] == 0.0


def test_a_policy_against_itself_shows_no_difference():
    comparison = compare_policies([small(), small()], 4, labels=["a", "b"])
    assert not comparison.differences["exceeds_uncertainty"].any()
    finite = comparison.differences["difference"].dropna()
    assert (finite == 0).all()


def test_table_is_the_mean_of_the_runs_and_a_real_difference_is_found():
    comparison = compare_policies([small(), small(**{"selection.k": 60})], 5, labels=["k20", "k60"])
    assert set(comparison.table["metric"]) == set(METRICS)
    runs = [simulate(small(), seed).summary for seed in range(5)]
    censored = np.mean([r.set_index("group").loc["disadvantaged", "censored"] for r in runs])
    row = comparison.table.query("policy == 'k20' and group == 'disadvantaged' and metric == 'censored'")
    assert row["mean"].item() == pytest.approx(censored)
    assert row["ci_low"].item() <= censored <= row["ci_high"].item()
    rate = comparison.differences.query("group == 'advantaged' and metric == 'selection_rate'")
    assert rate["exceeds_uncertainty"].item() and rate["difference"].item() > 0
    text = format_comparison(comparison)
    assert "k20" in text and "Δ k60" in text and "*" in text
    figure = comparison_figure(comparison)
    assert sum(len(ax.patches) for ax in figure.axes) >= 2 * 2 * len(METRICS)


def test_bad_inputs_raise():
    with pytest.raises(ConfigError, match="at least two"):
        compare_policies([small()], 3)
    with pytest.raises(ConfigError, match="seeds"):
        compare_policies([small(), small()], 1, labels=["a", "b"])
    with pytest.raises(ConfigError, match="distinct"):
        compare_policies([small(), small()], 3)


@pytest.mark.slow
def test_workers_give_the_same_numbers():
    serial = compare_policies([small(), small(**{"selection.k": 40})], 3, labels=["a", "b"])
    parallel = compare_policies([small(), small(**{"selection.k": 40})], 3, labels=["a", "b"], workers=2)
    pd.testing.assert_frame_equal(serial.table, parallel.table)


def _toml(path, k):
    path.write_text(
        f'preset = "bell2024"\nname = "k{k}"\n[run]\nsteps = 5\n[population]\ninitial = 200\nentrants = 20\n'
        f'[selection]\nname = "top_k"\nk = {k}\n'
    )
    return path


def test_command_prints_and_writes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b = _toml(tmp_path / "a.toml", 20), _toml(tmp_path / "b.toml", 50)
    out = tmp_path / "out"
    status = main(["compare", str(a), str(b), "--seeds", "3", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "k20" in captured.out and "Δ k50" in captured.out and "6 runs in" in captured.out
    assert sorted(p.name for p in out.iterdir()) == [
        "comparison.csv", "comparison.png", "differences.csv", "per_seed.parquet",
    ]  # fmt: skip
    table = pd.read_csv(out / "comparison.csv")
    assert set(table["policy"]) == {"k20", "k50"}
    assert pd.read_parquet(out / "per_seed.parquet")["seed"].nunique() == 3


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["compare", "default", "--seeds", "3"], "at least two"),
        (["compare", "default", "effort-rewarding", "--seeds", "1"], "seeds"),
        (["compare", "default", "no-such-file.toml", "--seeds", "3"], "no-such-file"),
    ],
)
def test_command_errors_are_one_line_and_write_nothing(tmp_path, capsys, argv, needle):
    out = tmp_path / "out"
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not out.exists()
