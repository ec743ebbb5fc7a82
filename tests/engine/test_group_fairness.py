"""fairlearn's group metrics of a ledger's selections, checked by hand and against recoursesim's own numbers."""

import numpy as np
import pandas as pd
import pytest
from fairlearn.metrics import demographic_parity_difference, equalized_odds_difference

from recoursesim.errors import DataError
from recoursesim.metrics import parity_over_time, recourse_over_time, selection_metric_frame
from recoursesim.simulate import simulate


def _ledger() -> pd.DataFrame:
    # step 0: a selects 1 of 2, b 0 of 2.  step 1: a 1 of 1, b 1 of 2.
    return pd.DataFrame(
        {
            "step": [0, 0, 0, 0, 1, 1, 1],
            "agent_id": [0, 1, 2, 3, 1, 2, 3],
            "group": pd.Categorical(["a", "a", "b", "b", "a", "b", "b"]),
            "selected": [True, False, False, False, True, True, False],
        }
    )


def test_selection_rates_and_parity_hand_computed():
    by_group = selection_metric_frame(_ledger()).by_group
    assert by_group.loc[(0, "a"), "selection_rate"] == 0.5 and by_group.loc[(0, "b"), "selection_rate"] == 0.0
    assert by_group.loc[(1, "a"), "selection_rate"] == 1.0 and by_group.loc[(1, "b"), "selection_rate"] == 0.5
    parity = parity_over_time(_ledger()).set_index("step")
    assert parity["demographic_parity_difference"].tolist() == [0.5, 0.5]
    assert parity["demographic_parity_ratio"].tolist() == [0.0, 0.5]


def test_equalised_odds_with_ground_truth_hand_computed():
    # truly qualified: step 0 a: [T, T] b: [T, F]; step 1 a: [T] b: [T, F]
    y_true = np.array([True, True, True, False, True, True, False])
    parity = parity_over_time(_ledger(), y_true).set_index("step")
    # step 0: TPR a 1/2, b 0/1 -> 0.5; FPR: b 0/1, a has no negatives (fairlearn counts 0) -> 0
    # step 1: TPR a 1/1, b 1/1 -> 0; FPR b 0/1 (a has no negatives) -> 0
    assert parity["equalized_odds_difference"].tolist() == [0.5, 0.0]
    step0 = _ledger()["step"] == 0
    expected = equalized_odds_difference(
        y_true[step0], _ledger()["selected"][step0], sensitive_features=_ledger()["group"][step0]
    )
    assert parity.loc[0, "equalized_odds_difference"] == expected


def test_stored_selection_rates_are_fairlearns():
    ledger = simulate("default", 2, steps=5).ledger
    mine = recourse_over_time(ledger).set_index(["step", "group"])["selection_rate"]
    theirs = selection_metric_frame(ledger).by_group["selection_rate"]
    assert np.array_equal(mine.sort_index().to_numpy(), theirs.sort_index().to_numpy())
    one_step = ledger[ledger["step"] == 3]
    assert parity_over_time(ledger).set_index("step").loc[3, "demographic_parity_difference"] == (
        demographic_parity_difference(one_step["selected"], one_step["selected"], sensitive_features=one_step["group"])
    )
    frame = selection_metric_frame(ledger, step=3)
    assert list(frame.by_group.index) == ["advantaged", "disadvantaged"]


def test_bad_inputs_name_the_field():
    with pytest.raises(DataError, match=r"^step"):
        selection_metric_frame(_ledger(), step=7)
    with pytest.raises(DataError, match=r"^y_true"):
        selection_metric_frame(_ledger(), y_true=np.ones(3, dtype=bool))
