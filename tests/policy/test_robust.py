"""Regret and satisficing robustness against a 3-policy × 4-scenario table computed by hand."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from recoursesim.errors import ConfigError
from recoursesim.policy.figures import robustness_figure
from recoursesim.policy.robust import regret, robustness, satisficing

# dTTR (steps; smaller is better) of three policies in four scenarios.
TABLE = pd.DataFrame(
    [[1.0, 4.0, 2.0, 6.0], [2.0, 2.0, 3.0, 3.0], [0.0, 5.0, 1.0, 8.0]],
    index=pd.Index(["A", "B", "C"], name="policy"),
    columns=["s1", "s2", "s3", "s4"],
)


def test_regret_by_hand():
    # Best per scenario: 0 (C), 2 (B), 1 (C), 3 (B).
    expected = [[1, 2, 1, 3], [2, 0, 2, 0], [0, 3, 0, 5]]
    assert regret(TABLE).to_numpy().tolist() == expected


def test_satisficing_by_hand():
    # dTTR ≤ 3: A meets it in s1, s3; B in all four; C in s1, s3.
    assert satisficing(TABLE, 3.0).to_dict() == {"A": 0.5, "B": 1.0, "C": 0.5}
    # dTTR ≤ 1: A in s1; B nowhere; C in s1, s3.
    assert satisficing(TABLE, 1.0).to_dict() == {"A": 0.25, "B": 0.0, "C": 0.5}


def test_robustness_table_by_hand():
    table = robustness(TABLE, 3.0)
    assert list(table.index) == ["B", "A", "C"]  # maximum regrets 2, 3, 5
    assert table["regret"].to_dict() == {"B": 2.0, "A": 3.0, "C": 5.0}
    assert table["satisficing"].to_dict() == {"B": 1.0, "A": 0.5, "C": 0.5}
    assert table["mean"].to_dict() == {"B": 2.5, "A": 3.25, "C": 3.5}
    assert table["worst"].to_dict() == {"B": 3.0, "A": 6.0, "C": 8.0}
    # The median regret: A's regrets 1, 1, 2, 3 → 1.5; B's 0, 0, 2, 2 → 1; C's 0, 0, 3, 5 → 1.5.
    assert robustness(TABLE, 3.0, quantile=0.5)["regret"].to_dict() == {"B": 1.0, "A": 1.5, "C": 1.5}


def test_maximising_is_minimising_the_negated_outcome():
    flipped = robustness(-TABLE, -3.0, maximise=True)
    plain = robustness(TABLE, 3.0)
    assert flipped["regret"].to_dict() == plain["regret"].to_dict()
    assert flipped["satisficing"].to_dict() == plain["satisficing"].to_dict()


@settings(max_examples=50, deadline=None)
@given(arrays(float, st.tuples(st.integers(2, 5), st.integers(1, 6)), elements=st.floats(-1e6, 1e6)))
def test_regret_is_non_negative_and_zero_for_the_best(values):
    table = pd.DataFrame(values)
    regrets = regret(table).to_numpy()
    assert (regrets >= 0).all()
    assert (regrets.min(axis=0) == 0).all()
    # Shifting a scenario's outcomes by a constant leaves every regret unchanged.
    shifted = regret(table + np.arange(table.shape[1])).to_numpy()
    assert shifted == pytest.approx(regrets, abs=1e-6)


def test_bad_input_is_refused():
    with pytest.raises(ConfigError, match="not finite for policy 'B' in scenario 's3'"):
        regret(TABLE.replace(3.0, np.nan))
    with pytest.raises(ConfigError, match="two or more policies"):
        regret(TABLE.iloc[:1])
    with pytest.raises(ConfigError, match="quantile"):
        robustness(TABLE, 3.0, quantile=0)
    with pytest.raises(ConfigError, match="threshold"):
        satisficing(TABLE, float("nan"))


def test_figure_draws_both_measures(tmp_path):
    fig = robustness_figure(robustness(TABLE, 3.0), outcome="dttr:female", threshold=3.0)
    left, right = fig.axes
    assert [round(p.get_width(), 6) for p in left.patches] == [2.0, 3.0, 5.0]
    assert [round(p.get_width(), 6) for p in right.patches] == [1.0, 0.5, 0.5]
    fig.savefig(tmp_path / "robust.png")
