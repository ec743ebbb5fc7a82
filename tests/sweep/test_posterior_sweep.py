"""``sweep --posterior``: one grid point per equally weighted posterior draw; bad files refused in one line."""

import json

import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.sweep import SweepPlan
from tests.hostile.conftest import one_line_error

SMALL = 'base = "bell2024-baseline"\nname = "small"\n[run]\nsteps = 2\n'
POSTERIOR = "[posterior]\ndraws = 3\n[posterior.parameters]\n"


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_each_draw_is_a_point_and_repeated_draws_stay_points_of_their_own():
    scenario = Scenario.from_dict({"base": "bell2024-baseline"})
    draws = {"population.adaptation": [0.3, 0.7, 0.3], "population.q": [1.0, 2.0, 1.0]}
    plan = SweepPlan.from_draws(scenario, draws, n_seeds=2)
    assert plan.n_runs == 6
    assert [p.params["draw"] for p in plan.points] == [0, 1, 2]
    assert [p.scenario.spec["population"]["adaptation"] for p in plan.points] == [0.3, 0.7, 0.3]
    assert [p.scenario.spec["population"]["q"] for p in plan.points] == [1.0, 2.0, 1.0]
    assert plan.points[0].params == {"draw": 0, "population.adaptation": 0.3, "population.q": 1.0}


@pytest.mark.parametrize(
    ("draws", "words"),
    [
        ({"population.adaptation": []}, "holds no draws"),
        ({"population.adaptation": [0.3], "population.q": [1.0, 2.0]}, "different lengths"),
        ({"population.adaptation": [float("nan")]}, "population.adaptation"),
        ({"population.nope": [0.3]}, "population.nope"),
    ],
)
def test_draws_the_scenario_cannot_take_are_refused_naming_the_option(draws, words):
    with pytest.raises(ConfigError) as refused:
        SweepPlan.from_draws(Scenario.from_dict({"base": "bell2024-baseline"}), draws, n_seeds=1)
    assert refused.value.field.startswith("--posterior") and words in str(refused.value)


def test_sweep_runs_the_posterior_draws_and_summarises_each(tmp_path):
    scenario = write(tmp_path / "small.toml", SMALL)
    posterior = write(tmp_path / "posterior.toml", POSTERIOR + "'population.adaptation' = [0.2, 0.9, 0.2]\n")
    out = tmp_path / "out"
    assert (
        main(["sweep", str(scenario), "--seeds", "1", "--posterior", str(posterior), "--out", str(out), "--quiet"]) == 0
    )
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    adaptation = [p["scenario"]["population"]["adaptation"] for p in manifest["points"]]
    assert adaptation == [0.2, 0.9, 0.2]
    summary = pd.read_parquet(out / "summary.parquet")
    assert sorted(summary["draw"].unique()) == [0, 1, 2]


@pytest.mark.parametrize(
    ("text", "extra", "words"),
    [
        ("not toml [", [], "is not a posterior file"),
        (POSTERIOR + "'population.adaptation' = [0.2]\n", ["--grid", "population.q=1,2"], "--grid"),
        (POSTERIOR + "'selection.bogus' = [0.2]\n", [], "selection.bogus"),
    ],
)
def test_bad_posterior_is_one_line_and_writes_nothing(tmp_path, capsys, text, extra, words):
    scenario = write(tmp_path / "small.toml", SMALL)
    posterior = write(tmp_path / "posterior.toml", text)
    out = tmp_path / "out"
    code = main(["sweep", str(scenario), "--seeds", "1", "--posterior", str(posterior), "--out", str(out), *extra])
    line = one_line_error(code, capsys.readouterr().err)
    assert words in line
    assert not out.exists()


def test_posterior_file_holds_the_values_the_runs_used_and_a_sweep_takes_them(tmp_path):
    from recoursesim.calibration.posterior import posterior_toml, read_posterior
    from recoursesim.policy.space import parse_ranges

    scenario = Scenario.from_dict({"base": "bell2024-baseline"})
    ranges = parse_ranges(["population.effort_divisor=5:40", "population.adaptation=0.1:1.0"])
    sample = pd.DataFrame(
        {"population.effort_divisor": [17.4, 30.6], "population.adaptation": [0.25, 0.75], "weight": [0.5, 0.5]}
    )
    path = write(tmp_path / "posterior.toml", posterior_toml(scenario, sample, ranges, 6, seed=3))
    draws = read_posterior(path)
    assert set(draws["population.effort_divisor"]) <= {17, 31}
    assert draws["population.effort_divisor"].dtype.kind == "i"
    assert set(draws["population.adaptation"]) <= {0.25, 0.75}
    plan = SweepPlan.from_draws(scenario, {k: draws[k].tolist() for k in draws.columns}, n_seeds=1)
    assert [p.scenario.spec["population"]["effort_divisor"] for p in plan.points] == draws[
        "population.effort_divisor"
    ].tolist()
