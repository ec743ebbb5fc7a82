"""The real-data dynamics experiment: its conditions and its table (the runs themselves are the scenarios')."""

from __future__ import annotations

import pandas as pd
import pytest

from recoursesim.reproductions import real_data


def test_three_policies_per_scenario_with_the_same_k() -> None:
    conditions = real_data.conditions()
    assert [(c.scenario, c.policy) for c in conditions] == [
        (s, p) for s in real_data.SCENARIOS for p in real_data.POLICIES
    ]
    german = {c.policy: c.overrides for c in conditions if c.scenario == "german-credit-lending"}
    assert german["top-k"] == {"selection": {"name": "top_k", "k": 50}}
    assert german["CNS"] == {"selection": {"name": "cns", "k": 50}}
    assert german["CDA"]["training"] == {"name": "cda", "estimator": "gradient_boosting"}


def test_table_gives_mean_and_interval_across_seeds() -> None:
    rows = pd.DataFrame(
        {
            "scenario": ["s"] * 6,
            "policy": ["CNS"] * 3 + ["top-k"] * 3,
            "group": ["f"] * 6,
            "seed": [0, 1, 2] * 2,
            "retr": [1.0, 2.0, 3.0, 1.0, 1.0, 1.0],
            "dttr": [0.0, 0.5, 1.0, 2.0, 2.0, 2.0],
        }
    )
    table = real_data.table(real_data.summarise(rows))
    assert table["policy"].tolist() == ["top-k", "CNS"]
    cns = table.loc[table["policy"] == "CNS"].iloc[0]
    # mean 2, sd 1, n 3: the t-interval's half width t(0.975, 2) / sqrt(3) = 4.303 / 1.732 = 2.484 would reach
    # below 0 (-0.484), and a ratio cannot, so the percentile bootstrap is used: a resampled mean of 1 or of 3
    # each has probability 1/27 = 3.7% > 2.5%, so the 95% interval is [1, 3]
    assert cns["rETR"] == "2.000 [1.000, 3.000]"
    assert table.loc[table["policy"] == "top-k", "dTTR"].iloc[0] == "2.000 [2.000, 2.000]"


def test_main_refuses_too_few_seeds_before_writing(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        real_data.main(["--seeds", "1", "--out", str(tmp_path / "out")])
    assert stopped.value.code == 2 and "argument --seeds: must be at least 2" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_markdown_table_leaves_out_each_scenarios_reference_group() -> None:
    # "m" is the reference (rETR 1 in every run); "f" is shown, for the chosen scenario only.
    rows = pd.DataFrame(
        {
            "scenario": ["s"] * 4 + ["other"] * 2,
            "policy": ["top-k"] * 6,
            "group": ["f", "f", "m", "m", "f", "m"],
            "seed": [0, 1, 0, 1, 0, 0],
            "retr": [1.5, 2.5, 1.0, 1.0, 9.0, 1.0],
            "dttr": [1.0, 1.0, 0.0, 0.0, 9.0, 0.0],
        }
    )
    lines = real_data.markdown_table(rows, ["s"]).splitlines()
    assert lines[0] == "| scenario | policy | group | rETR | dTTR |"
    # rETR: mean 2, sd 0.707, n 2: the t-interval's half width t(0.975, 1) 12.706 * 0.5 = 6.353 would reach below 0,
    # so the percentile bootstrap is used: resampled means 1.5, 2 and 2.5 have probabilities 1/4, 1/2 and 1/4
    assert lines[2:] == ["| s | top-k | f | 2.000 [1.500, 2.500] | 1.000 [1.000, 1.000] |"]
