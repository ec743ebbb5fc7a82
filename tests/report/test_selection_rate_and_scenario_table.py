"""One selection-rate definition in every report part, and the scenario section as a table."""

import pandas as pd

from recoursesim.report.aggregate import run_selection_rates
from recoursesim.report.scenario_table import scenario_table
from recoursesim.report.sections import selection_table
from recoursesim.report.summary import plain_summary


def _steps() -> pd.DataFrame:
    # seed 0: a 1/2 then 0/2 -> 1/4; b 1/8 -> 1/8.   seed 1: a 3/4 -> 3/4; b 1/2 -> 1/2.
    rows = [
        (0, 0, "a", 1, 2), (0, 1, "a", 0, 2), (0, 0, "b", 1, 8),
        (1, 0, "a", 3, 4), (1, 0, "b", 1, 2),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["seed", "step", "group", "n_selected", "n_scored"])


def test_run_selection_rates_hand_computed():
    rates = run_selection_rates(_steps(), "a").set_index(["seed", "group"])
    assert rates.loc[(0, "a"), "rate"] == 0.25 and rates.loc[(0, "b"), "rate"] == 0.125
    assert rates.loc[(1, "a"), "rate"] == 0.75 and rates.loc[(1, "b"), "rate"] == 0.5
    assert rates.loc[(0, "b"), "ratio"] == 0.5 and rates.loc[(1, "b"), "difference"] == -0.25


def test_summary_sentence_and_selection_table_agree():
    """Mean over runs of per-run rates: b = (1/8 + 1/2) / 2 = 0.3125 (pooled counts would give 2/10 = 0.2)."""
    table = selection_table(_steps(), "a").set_index("group")
    assert table.loc["b", "selection rate (all steps)"].startswith("0.312")
    assert table.loc["a", "selection rate (all steps)"].startswith("0.500")
    pooled = pd.DataFrame({"group": ["a", "b"]})
    for column in ("retr", "dttr"):
        pooled[[f"{column}_{s}" for s in ("n", "mean", "low", "high")]] = [0, float("nan"), 0.0, 0.0]
    counts = pd.DataFrame({"group": ["a", "b"], "never_successful_mean": [0.0, 0.0], "entered_mean": [1.0, 1.0]})
    lines = plain_summary(
        scenario_name="s", n_seeds=2, steps=1, reference="a", pooled=pooled, counts=counts, step_frame=_steps()
    )
    sentence = next(line for line in lines if line.startswith("Selection rate"))
    assert "a 0.500" in sentence and "b 0.312" in sentence, sentence
    assert "0.58 times a" in sentence  # mean of the per-run ratios 0.125/0.25 and 0.5/0.75


def test_scenario_table_flattens_every_setting():
    spec = {
        "name": "demo",
        "run": {"steps": 3, "seed": 0},
        "population": {"features": ["x0", "x1"], "groups": [{"name": "a", "share": 0.5}, {"name": "b", "share": 0.5}]},
        "model": {"record_recommendations": False},
    }
    table = scenario_table(spec)
    assert table.to_dict("records") == [
        {"setting": "name", "value": "demo"},
        {"setting": "run.steps", "value": "3"},
        {"setting": "run.seed", "value": "0"},
        {"setting": "population.features", "value": '["x0", "x1"]'},
        {"setting": "population.groups[0].name", "value": "a"},
        {"setting": "population.groups[0].share", "value": "0.5"},
        {"setting": "population.groups[1].name", "value": "b"},
        {"setting": "population.groups[1].share", "value": "0.5"},
        {"setting": "model.record_recommendations", "value": "false"},
    ]
