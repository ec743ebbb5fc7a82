"""The worked rETR/dTTR example of docs/model.md holds for the metrics code."""

import numpy as np
import pandas as pd
import pytest

from recoursesim.metrics import recourse_summary


def _ledger() -> pd.DataFrame:
    # (agent, group, effort spent at each step before success); each agent enters at step 0 and is
    # rejected until it wins at step len(efforts).
    agents = [(0, "advantaged", [0.2]), (1, "advantaged", [0.1, 0.1, 0.2]), (2, "disadvantaged", [0.1, 0.2, 0.1, 0.2])]
    rows = []
    for agent_id, group, efforts in agents:
        for step, spent in enumerate([*efforts, 0.0]):
            rows.append((agent_id, group, step, 0, step == len(efforts), 0.1 * step, spent))
    frame = pd.DataFrame(rows, columns=["agent_id", "group", "step", "entry_step", "selected", "score", "effort"])
    frame["group"] = pd.Categorical(frame["group"], categories=["advantaged", "disadvantaged"])
    return frame


def test_worked_example_of_the_model_page():
    summary = recourse_summary(_ledger(), reference_group="advantaged")
    summary.index = summary["group"].astype(str)
    assert summary.loc["advantaged", "etr"] == pytest.approx(0.3)
    assert summary.loc["disadvantaged", "etr"] == pytest.approx(0.6)
    assert summary.loc["advantaged", "ttr"] == 2.0
    assert summary.loc["disadvantaged", "ttr"] == 4.0
    assert summary.loc["disadvantaged", "retr"] == pytest.approx(2.0)
    assert summary.loc["disadvantaged", "dttr"] == 2.0
    assert np.array_equal(summary["recourse"].to_numpy(), [2, 1])
