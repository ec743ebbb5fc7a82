"""A policy search over uncertain scenarios: every trial in the same sample, robust objectives."""

import json

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.policy.objectives import parse_objective
from recoursesim.policy.optimise import PolicySearch, PolicySpace
from recoursesim.policy.robust import sample_scenarios, satisficing
from recoursesim.policy.space import Choice, ParamRange
from recoursesim.scenario import load_scenario
from recoursesim.sweep import RunOutcome, RunTask, iter_point_results
from recoursesim.sweep.worker import encode_shard
from tests.hostile.conftest import one_line_error

pytestmark = pytest.mark.policy

# dTTR of group a for each lever k (rows) in each setting of the uncertainty e = entrants (columns).
OUTCOME = {20: {1: 1.0, 2: 5.0}, 40: {1: 3.0, 2: 2.0}, 60: {1: 2.0, 2: 4.0}}
# By hand: the best per scenario is 1 (e = 1, k = 20) and 2 (e = 2, k = 40), so the regrets are
# k = 20: max(0, 3) = 3; k = 40: max(2, 0) = 2; k = 60: max(1, 2) = 2.
REGRET = {20: 3.0, 40: 2.0, 60: 2.0}
# Scenarios with dTTR <= 3: k = 20 one of two, k = 40 both, k = 60 one of two.
SATISFICING = {20: 0.5, 40: 1.0, 60: 0.5}
# Mean over both scenarios (and the seeds, which add nothing here).
MEAN = {20: 3.0, 40: 2.5, 60: 3.0}


def table_runner(task: RunTask) -> RunOutcome:
    value = OUTCOME[task.params["selection.k"]][task.params["population.entrants"]]
    summary = pd.DataFrame({"group": ["a", "b"], "dttr": [value, 0.0], "entered": [5, 7]})
    return RunOutcome(task, encode_shard(task, None, summary))


ENTRANTS_1_2 = ParamRange("population.entrants", 1, 2, integer=True)


def _search(out, objectives, n_scenarios=2, uncertainty=ENTRANTS_1_2):
    return PolicySearch(
        load_scenario("default"),
        PolicySpace(choices=(Choice("selection.k", (20, 40, 60)),)),
        [parse_objective(text) for text in objectives],
        out,
        n_seeds=2,
        startup_trials=20,
        uncertainties=(uncertainty,),
        n_scenarios=n_scenarios,
    )


def test_regret_satisficing_and_mean_over_the_same_scenarios_by_hand(tmp_path):
    labels = ["regret min dttr:a", "satisficing dttr:a <= 3", "min dttr:a"]
    search = _search(tmp_path / "s", labels)
    # Two strata of [1, 2], rounded: entrants 1 and 2, in the sample's order.
    assert sorted(s["population.entrants"] for s in search.settings) == [1, 2]
    search.open(resume=False)
    search.run(8, runner=table_runner)
    frame = search.trials_frame()
    assert set(frame["selection.k"]) == {20, 40, 60}  # every lever value was tried
    for _, row in frame.iterrows():
        k = row["selection.k"]
        assert row["regret min dttr:a"] == pytest.approx(REGRET[k])
        assert row["satisficing dttr:a <= 3"] == pytest.approx(SATISFICING[k])
        assert row["min dttr:a"] == pytest.approx(MEAN[k])
    # As told to the sampler: regret against the trials finished before it and itself.
    first = frame.sort_values("number").iloc[0]
    assert first["regret min dttr:a_told"] == 0.0
    told = frame.set_index("number")["regret min dttr:a_told"]
    assert (told <= frame.set_index("number")["regret min dttr:a"] + 1e-12).all()
    # k = 40 is the one policy with the least regret, the most satisficing and the least mean.
    assert set(frame.loc[frame["pareto"], "selection.k"]) == {40}
    assert search.best(frame)["selection.k"] == 40
    search.write()
    notes = json.loads((tmp_path / "s" / "optimise.json").read_text())
    assert notes["scenarios"] == search.settings and notes["uncertainties"] == ["population.entrants"]
    assert "regret min dttr:a = 2" in (tmp_path / "s" / "best-policy.toml").read_text()


def _sample_seen(out):
    """Every uncertainty setting the search's runs used, per lever value."""
    seen: dict[int, list[int]] = {}
    for directory in sorted((out / "runs").iterdir()):
        for _, params, _ in iter_point_results(directory):
            seen.setdefault(params["selection.k"], []).append(params["population.entrants"])
    return seen


def test_resume_keeps_the_same_sample_and_another_sample_is_refused(tmp_path):
    uncertainty = ParamRange("population.entrants", 10, 200, integer=True)
    first = _search(tmp_path / "s", ["min dttr:a"], n_scenarios=3, uncertainty=uncertainty)
    first.open(resume=False)
    runner = _noisy_runner
    first.run(2, runner=runner)
    sample = [s["population.entrants"] for s in first.settings]
    assert len(set(sample)) == 3
    again = _search(tmp_path / "s", ["min dttr:a"], n_scenarios=3, uncertainty=uncertainty)
    again.open(resume=True)
    again.run(5, runner=runner)
    assert [s["population.entrants"] for s in again.settings] == sample
    assert again.study_.user_attrs["scenarios"] == first.settings
    assert len(again.trials_frame()) == 5
    for entrants in _sample_seen(tmp_path / "s").values():
        assert entrants == sample  # every trial ran in the same settings, in the same order
    other = _search(tmp_path / "s", ["min dttr:a"], n_scenarios=4, uncertainty=uncertainty)
    with pytest.raises(ConfigError, match="holds another search"):
        other.open(resume=True)


def _noisy_runner(task: RunTask) -> RunOutcome:
    noise = np.random.default_rng(task.seed.generate_state(1)).normal(0.0, 0.05)
    value = abs(task.params["selection.k"] - task.params["population.entrants"]) / 100 + noise
    summary = pd.DataFrame({"group": ["a", "b"], "dttr": [value, 0.0], "entered": [5, 7]})
    return RunOutcome(task, encode_shard(task, None, summary))


def test_the_sample_is_a_latin_hypercube_fixed_by_its_seed():
    ranges = (ParamRange("x", 0.0, 1.0), ParamRange("n", 1, 1000, integer=True, log=True))
    settings = sample_scenarios(ranges, 5, seed=7)
    assert settings == sample_scenarios(ranges, 5, seed=7) != sample_scenarios(ranges, 5, seed=8)
    strata = sorted(int(s["x"] * 5) for s in settings)
    assert strata == [0, 1, 2, 3, 4]  # one draw in each fifth of the range
    decades = sorted(int(np.log10(s["n"]) / 0.6) for s in settings)  # fifths of [0, 3] decades
    assert decades == [0, 1, 2, 3, 4] and all(isinstance(s["n"], int) for s in settings)
    with pytest.raises(ConfigError, match="--scenarios"):
        sample_scenarios(ranges, 0, seed=7)
    with pytest.raises(ConfigError, match="no uncertainty"):
        sample_scenarios((), 3, seed=7)


def test_satisficing_needs_one_policy_only():
    assert satisficing(pd.DataFrame([[1.0, 4.0, 2.0, 5.0]]), 2.0).tolist() == [0.5]


def test_robust_objectives_read_and_label():
    regret = parse_objective("regret max selected:all")
    assert regret.label == "regret max selected:all" and regret.direction == "minimize" and regret.maximise
    share = parse_objective("satisficing |rETR:female - 1| <= 0.2")
    assert share.label == "satisficing |retr:female - 1| <= 0.2" and share.direction == "maximize"
    assert share.value(1.3) == pytest.approx(0.3) and not share.maximise
    assert parse_objective("satisficing selected:all >= 900").maximise
    for bad in ("regret dttr:a", "satisficing dttr:a", "satisficing min dttr:a <= 1", "regret regret min dttr:a"):
        with pytest.raises(ConfigError, match="--objective"):
            parse_objective(bad)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--objective", "regret min dTTR:disadvantaged"], "needs uncertain scenarios"),
        (["--objective", "min dTTR:disadvantaged", "--scenarios", "3"], "--uncertainty: no uncertainty given"),
        (
            ["--objective", "satisficing dTTR:disadvantaged", "--uncertainty", "population.entrants=10:50"],
            "cannot read",
        ),
        (
            ["--objective", "min dTTR:disadvantaged", "--uncertainty", "selection.k=5:9"],
            "--uncertainty selection.k: is also",
        ),
        (
            ["--objective", "min dTTR:disadvantaged", "--uncertainty", "population.entrants=a:9"],
            "--uncertainty population",
        ),
        (["--objective", "min dTTR:disadvantaged", "--uncertainty", "population.entrants=9:1"], "low < high"),
        (
            ["--objective", "min dTTR:disadvantaged", "--uncertainty", "population.bogus=1:2"],
            "--uncertainty population.bogus",
        ),
    ],
)
def test_bad_robust_options_are_one_line(tmp_path, capsys, extra, expected):
    argv = ["optimise", "default", "--param", "selection.k=10:60", "--out", str(tmp_path / "o"), "--quiet", *extra]
    line = one_line_error(main(argv), capsys.readouterr().err)
    assert expected in line
    assert not (tmp_path / "o").exists()  # nothing half-written


def test_cli_robust_search_and_its_resume(tmp_path):
    out = tmp_path / "opt"

    def argv(trials):
        return [
            "optimise", "default", "--param", "selection.k=10:60", "--param", "run.steps=3:4",
            "--uncertainty", "population.entrants=20:60", "--scenarios", "2",
            "--objective", "regret min |dTTR:disadvantaged|", "--objective", "satisficing censored:all <= 50",
            "--trials", str(trials), "--seeds", "1", "--startup-trials", "2", "--out", str(out), "--quiet",
        ]  # fmt: skip

    assert main(argv(2)) == 0
    sample = json.loads((out / "optimise.json").read_text())["scenarios"]
    assert len(sample) == 2 and all(20 <= s["population.entrants"] <= 60 for s in sample)
    assert main([*argv(3), "--resume"]) == 0
    assert json.loads((out / "optimise.json").read_text())["scenarios"] == sample
    trials = pd.read_parquet(out / "trials.parquet")
    assert len(trials) == 3 and trials["pareto"].any()
    shares = trials["satisficing censored:all <= 50"].dropna()
    assert shares.isin([0.0, 0.5, 1.0]).all()
    assert (trials["regret min |dttr:disadvantaged|"].dropna() >= 0).all()
