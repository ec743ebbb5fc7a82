"""The agent-based delayed-impact experiment: kept rows as the code makes them, the figures the page quotes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import guarded
from recoursesim.reproductions import delayed_impact_agents as agents
from recoursesim.scenario import load_scenario
from recoursesim.simulate import simulate

KEPT = Path(__file__).resolve().parents[2] / "experiments" / "runs" / "delayed_impact_agents.csv.gz"


def _kept() -> pd.DataFrame:
    return pd.read_csv(KEPT, dtype={"group": str})


def test_a_kept_run_is_what_the_code_gives_now() -> None:
    kept = _kept()
    part = kept[(kept["variant"] == "advice") & (kept["criterion"] == "equal_opportunity") & (kept["seed"] == 1)]
    scenario = load_scenario("fico-delayed-impact-recourse").with_overrides(
        {"selection.criterion": "equal_opportunity", "population.initial": 5000, "run.steps": 20}
    )
    rows = agents.over_time(simulate(scenario, 1))
    assert list(rows["group"]) == list(part["group"])
    for column in ("mean_score", "p25", "p50", "p75", "selection_rate", "defaults", "default_burden"):
        np.testing.assert_allclose(rows[column], part[column], rtol=0, atol=1e-9, err_msg=column)


def test_the_figures_the_page_quotes() -> None:
    rows = _kept()
    last = rows[rows["step"] == 20].groupby(["variant", "criterion", "group"])
    mean = last["mean_score"].mean()
    gap = (mean["no_advice"] - last["expected_mean_score"].first()["no_advice"]).abs()
    assert f"{gap.max():.1f}" == "7.9" and gap.idxmax() == ("equal_opportunity", "Black")
    start = rows[(rows["step"] == 0) & (rows["group"] == "Black")].groupby("seed")["mean_score"].first()
    assert f"{start.mean():.1f}" == "510.2" and [f"{v:.0f}" for v in (start.min(), start.max())] == ["506", "514"]
    assert rows.groupby("group")["n"].first().to_dict() == {"Black": 603, "White": 4397}
    dp = rows[(rows["criterion"] == "demographic_parity") & (rows["group"] == "Black")]
    rate = dp[dp["variant"] == "no_advice"].groupby("step")["selection_rate"].mean()
    assert f"{rate.min():.0%}" == "55%" and f"{rate.max():.0%}" == "58%"
    median = dp[(dp["variant"] == "no_advice") & (dp["seed"] == 0)].set_index("step")["p50"]
    assert median[4] == 300.0 and median[3] > 300.0
    totals = dp.groupby("variant")[["defaults", "selection_rate"]].sum()
    shares = totals["defaults"] / totals["selection_rate"]
    assert f"{shares['advice']:.0%}" == "59%" and f"{shares['no_advice']:.0%}" == "50%"


def test_the_script_writes_its_table_and_figures(tmp_path) -> None:
    out = tmp_path / "agents"
    argv = ["--out", str(out), "--steps", "2", "--seeds", "1", "--applicants", "200"]
    assert guarded(lambda: agents.main(argv)) == 0
    written = {p.name for p in out.iterdir()}
    assert {"delayed_impact_agents.csv", "table.md", "scores.png", "distribution.png"} <= written
    with pytest.raises(SystemExit) as refused:  # the one-line argparse refusal, before anything is written
        agents.main(["--out", str(tmp_path / "bad"), "--seeds", "0"])
    assert refused.value.code == 2 and not (tmp_path / "bad").exists()
