"""experiments/recourse_durability.py: bad arguments, and a tiny grid end to end."""

import pandas as pd

from recoursesim.reproductions.recourse_durability import Condition, main, scenario_of, table


def test_bad_arguments_exit_2(capsys):
    assert main(["--seeds", "1"]) == 2
    assert main(["--scenarios", "mars"]) == 2
    assert "unknown scenario 'mars'" in capsys.readouterr().err


def test_conditions_name_the_policy_and_wrap_the_scenarios_generator():
    cns = scenario_of(Condition("rising-competition", "CNS", "margin")).spec
    assert cns["selection"]["name"] == "cns" and cns["selection"]["k"][0] == 20
    assert cns["recourse"]["name"] == "margin" and cns["recourse"]["base"]["name"] == "linear"
    cda = scenario_of(Condition("german-credit", "CDA", "worst_case")).spec
    assert cda["training"] == {"name": "cda", "estimator": "gradient_boosting"} and cda["observers"] == []


def test_tiny_grid_prints_a_table_and_extra_cost_is_paired_with_exact(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["--seeds", "2", "--steps", "3", "--scenarios", "rising-competition", "--policies", "top-k",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "valid h=1" in printed and "load average" in printed
    rows = pd.read_csv(out / "runs.csv")
    result = table(rows)
    exact = result[result["generator"] == "exact"]
    assert exact["extra cost"].str.startswith("0.00").all()
    assert (out / "survival.png").stat().st_size > 10_000
