"""Policy comparisons: a sweep over scenarios, paired differences, the table, the figure and the command."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.compare import METRICS, compare_policies, comparison_figure, format_comparison
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate
from recoursesim.stats import paired_difference
from recoursesim.sweep import JoblibExecutor, SweepPlan, iter_point_results, run_sweep


def small(**overrides) -> Scenario:
    return Scenario.bundled("default").with_overrides({"run.steps": 6, **overrides})


def test_a_policy_against_itself_shows_no_difference():
    comparison = compare_policies([small(), small()], 4, labels=["a", "b"])
    assert not comparison.differences["exceeds_uncertainty"].any()
    finite = comparison.differences["difference"].dropna()
    assert (finite == 0).all()


def test_table_is_the_mean_of_the_runs_and_a_real_difference_is_found():
    comparison = compare_policies([small(), small(**{"selection.k": 60})], 5, labels=["k20", "k60"], root_seed=3)
    assert set(comparison.table["metric"]) == set(METRICS)
    runs = [simulate(small(), seed).summary for seed in np.random.SeedSequence(3).spawn(5)]
    censored = np.mean([r.set_index("group").loc["disadvantaged", "censored"] for r in runs])
    row = comparison.table.query("policy == 'k20' and group == 'disadvantaged' and metric == 'censored'")
    assert row["mean"].item() == pytest.approx(censored)
    assert row["ci_low"].item() <= censored <= row["ci_high"].item()
    rate = comparison.differences.query("group == 'advantaged' and metric == 'selection_rate'")
    assert rate["exceeds_uncertainty"].item() and rate["difference"].item() > 0
    # the difference is paired by seed: the mean of the per-seed differences, with their t interval
    values = comparison.per_seed.query("group == 'advantaged' and metric == 'selection_rate'")
    wide = values.pivot(index="seed", columns="policy", values="value")
    paired = paired_difference(wide["k20"].to_numpy(), wide["k60"].to_numpy())
    assert rate["n_pairs"].item() == 5
    assert (rate["difference"].item(), rate["ci_low"].item(), rate["ci_high"].item()) == pytest.approx(
        (paired.difference, paired.low, paired.high)
    )
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
    with pytest.raises(ConfigError, match="confidence"):
        compare_policies([small(), small()], 3, labels=["a", "b"], confidence=1.0)


def test_compare_and_sweep_make_the_same_per_seed_runs(tmp_path):
    baseline, other = small(), small(**{"selection.k": 40})
    comparison = compare_policies([baseline, other], 3, labels=["a", "b"], root_seed=11)
    plan = SweepPlan.from_grid(baseline, n_seeds=3, root_seed=11)
    run_sweep(plan, tmp_path / "sweep", progress=False)
    [(_, _, rows)] = list(iter_point_results(tmp_path / "sweep"))
    pooled = rows.loc[rows["step"].isna() & rows["metric"].isin(["etr", "ttr", "recourse", "censored"])]
    swept = pooled.rename(columns={"seed_index": "seed"}).set_index(["seed", "group", "metric"])["value"]
    compared = comparison.per_seed.query("policy == 'a'").set_index(["seed", "group", "metric"])["value"]
    joined = pd.concat([swept, compared.reindex(swept.index)], axis=1, keys=["sweep", "compare"])
    assert len(joined) == 3 * 2 * 4
    pd.testing.assert_series_equal(joined["sweep"], joined["compare"], check_names=False)
    # and they are the runs simulate() makes from the spawned children of SeedSequence(11)
    first = simulate(baseline, np.random.SeedSequence(11).spawn(3)[0]).summary.set_index("group")
    assert compared.loc[(0, "advantaged", "recourse")] == first.loc["advantaged", "recourse"]


@pytest.mark.slow
def test_workers_give_the_same_numbers():
    serial = compare_policies([small(), small(**{"selection.k": 40})], 3, labels=["a", "b"])
    with JoblibExecutor(2) as executor:
        parallel = compare_policies([small(), small(**{"selection.k": 40})], 3, labels=["a", "b"], executor=executor)
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
        "comparison.csv", "comparison.png", "differences.csv", "per_seed.parquet", "recoursesim-files.jsonl",
    ]  # fmt: skip
    table = pd.read_csv(out / "comparison.csv")
    assert set(table["policy"]) == {"k20", "k50"}
    assert pd.read_parquet(out / "per_seed.parquet")["seed"].nunique() == 3


def test_compare_and_sweep_commands_agree_per_seed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b = _toml(tmp_path / "a.toml", 20), _toml(tmp_path / "b.toml", 50)
    assert main(["compare", str(a), str(b), "--seeds", "3", "--root-seed", "5", "--out", str(tmp_path / "cmp")]) == 0
    assert main(["sweep", str(a), "--seeds", "3", "--root-seed", "5", "--out", str(tmp_path / "sw"), "--quiet"]) == 0
    capsys.readouterr()
    compared = pd.read_parquet(tmp_path / "cmp" / "per_seed.parquet").query("policy == 'k20'")
    [(_, _, rows)] = list(iter_point_results(tmp_path / "sw"))
    swept = rows.loc[rows["step"].isna()].rename(columns={"seed_index": "seed"})
    merged = compared.merge(swept[["seed", "group", "metric", "value"]], on=["seed", "group", "metric"])
    assert len(merged) == 3 * 2 * (len(METRICS) - 1)  # every pooled metric of every seed and group
    np.testing.assert_array_equal(merged["value_x"].to_numpy(), merged["value_y"].to_numpy())


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
