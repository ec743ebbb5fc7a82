import numpy as np
import pandas as pd
import pytest

from recoursesim.metrics import agent_outcomes, recourse_over_time, recourse_summary


def ledger_from_rows(rows):
    frame = pd.DataFrame(rows, columns=["step", "agent_id", "group", "entry_step", "score", "selected", "effort"])
    frame["group"] = pd.Categorical(frame["group"], categories=["adv", "dis"])
    return frame


# A hand-made 4-step history (steps 0..3):
#   agent 0 (adv): selected at entry (step 0)                       -> on_entry
#   agent 1 (adv): negative at 0 (spends 0.2), 1 (0.3); wins at 2    -> recourse, C=0.5, TTR=2, gain 0.9-0.4
#   agent 2 (dis): negative at 0 (0.1), 1 (0.1), 2 (0.4); wins at 3  -> recourse, C=0.6, TTR=3, gain 0.8-0.2
#   agent 3 (dis): enters at 1, negative at 1 (0.5); wins at 2       -> recourse, C=0.5, TTR=1, gain 0.7-0.3
#   agent 4 (dis): negative at 0..3 (0.1 each)                       -> censored, wasted 0.4
#   agent 5 (adv): negative at 0 (0.2), leaves at 0 without success  -> gave_up, wasted 0.2
ROWS = [
    (0, 0, "adv", 0, 0.95, True, 0.0),
    (0, 1, "adv", 0, 0.40, False, 0.2),
    (0, 2, "dis", 0, 0.20, False, 0.1),
    (0, 4, "dis", 0, 0.10, False, 0.1),
    (0, 5, "adv", 0, 0.05, False, 0.2),
    (1, 1, "adv", 0, 0.60, False, 0.3),
    (1, 2, "dis", 0, 0.30, False, 0.1),
    (1, 3, "dis", 1, 0.30, False, 0.5),
    (1, 4, "dis", 0, 0.15, False, 0.1),
    (2, 1, "adv", 0, 0.90, True, 0.0),
    (2, 2, "dis", 0, 0.50, False, 0.4),
    (2, 3, "dis", 1, 0.70, True, 0.0),
    (2, 4, "dis", 0, 0.20, False, 0.1),
    (3, 2, "dis", 0, 0.80, True, 0.0),
    (3, 4, "dis", 0, 0.25, False, 0.1),
]


def test_agent_outcomes_by_hand():
    out = agent_outcomes(ledger_from_rows(ROWS)).set_index("agent_id")
    assert out["outcome"].tolist() == ["on_entry", "recourse", "recourse", "recourse", "censored", "gave_up"]
    np.testing.assert_allclose(out.loc[[1, 2, 3], "effort"], [0.5, 0.6, 0.5])
    np.testing.assert_allclose(out.loc[[1, 2, 3], "ttr"], [2, 3, 1])
    np.testing.assert_allclose(out.loc[[4, 5], "effort_spent"], [0.4, 0.2])
    assert out.loc[[0, 4, 5], "effort"].isna().all()
    gain = agent_outcomes(ledger_from_rows(ROWS), effort="score_gain").set_index("agent_id")
    np.testing.assert_allclose(gain.loc[[1, 2, 3], "effort"], [0.5, 0.6, 0.4])


def test_time_resolved_etr_ttr_by_hand():
    m = recourse_over_time(ledger_from_rows(ROWS), reference_group="adv").set_index(["step", "group"])
    # step 2: D_2 = {agent 1 (adv), agent 3 (dis)}; step 3: D_3 = {agent 2 (dis)}
    assert m.loc[(2, "adv"), "etr"] == pytest.approx(0.5)
    assert m.loc[(2, "adv"), "ttr"] == 2
    assert m.loc[(2, "dis"), "etr"] == pytest.approx(0.5)
    assert m.loc[(2, "dis"), "ttr"] == 1
    assert m.loc[(2, "dis"), "retr"] == pytest.approx(1.0)
    assert m.loc[(2, "dis"), "dttr"] == pytest.approx(-1.0)
    assert m.loc[(3, "dis"), "etr"] == pytest.approx(0.6)
    assert np.isnan(m.loc[(3, "adv"), "etr"]) and np.isnan(m.loc[(3, "dis"), "retr"])
    assert m.loc[(0, "adv"), "n_recourse"] == 0
    # selection rates: step 0 adv: 1 of 3 scored
    assert m.loc[(0, "adv"), "selection_rate"] == pytest.approx(1 / 3)
    assert m.loc[(2, "dis"), "n_selected"] == 1 and m.loc[(2, "dis"), "n_scored"] == 3


def test_pooled_summary_and_exclusions_by_hand():
    s = recourse_summary(ledger_from_rows(ROWS), reference_group="adv").set_index("group")
    assert s.loc["adv", ["entered", "selected_on_entry", "recourse", "censored", "gave_up"]].tolist() == [3, 1, 1, 0, 1]
    assert s.loc["dis", ["entered", "selected_on_entry", "recourse", "censored", "gave_up"]].tolist() == [3, 0, 2, 1, 0]
    assert s.loc["dis", "etr"] == pytest.approx((0.6 + 0.5) / 2)
    assert s.loc["dis", "ttr"] == pytest.approx(2.0)
    assert s.loc["dis", "retr"] == pytest.approx(0.55 / 0.5)
    assert s.loc["dis", "dttr"] == pytest.approx(0.0)
    assert s.loc["dis", "wasted_effort"] == pytest.approx(0.4)
    assert s.loc["adv", "wasted_effort"] == pytest.approx(0.2)
    assert s.loc["dis", "censored_mean_wait"] == 4


def test_table1_reference_aggregate_uses_score_gain():
    s = recourse_summary(ledger_from_rows(ROWS), effort="score_gain", reference_group="adv").set_index("group")
    # adv: agent 1 gain 0.5; dis: agents 2 (0.6) and 3 (0.4) -> 0.5; rETR = 1.0; TTR: adv 2, dis (3+1)/2 = 2
    assert s.loc["dis", "retr"] == pytest.approx(1.0)
    assert s.loc["dis", "dttr"] == pytest.approx(0.0)


def test_disparities_unknown_reference_group():
    from recoursesim.errors import ConfigError

    with pytest.raises(ConfigError, match="reference_group"):
        recourse_summary(ledger_from_rows(ROWS), reference_group="zzz")
