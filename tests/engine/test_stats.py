"""recoursesim.stats: every formula against hand-computed values, and the one n = 1 rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from recoursesim.errors import ConfigError
from recoursesim.stats import (
    NO_INTERVAL,
    bootstrap_interval,
    check_confidence,
    describe_groups,
    format_interval,
    mean_interval,
    paired_difference,
)

T_975_DF2 = 4.302652729749464  # Student-t 97.5% quantile, 2 degrees of freedom (printed tables: 4.303)
T_975_DF3 = 3.182446305284263  # 3 degrees of freedom (tables: 3.182)


def test_mean_interval_by_hand():
    result = mean_interval([1.0, 2.0, 3.0, 4.0])
    sd = math.sqrt(5 / 3)  # squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, over n - 1 = 3
    half = T_975_DF3 * sd / 2
    assert (result.n, result.mean, result.sd, result.sem) == pytest.approx((4, 2.5, sd, sd / 2))
    assert (result.low, result.high) == pytest.approx((2.5 - half, 2.5 + half))
    assert (result.low, result.high) == pytest.approx((0.44574, 4.55426), abs=1e-5)


def test_mean_interval_drops_non_finite_values_and_narrows_with_lower_confidence():
    result = mean_interval([1.0, np.nan, 2.0, np.inf, 3.0, 4.0])
    assert result.n == 4 and result.mean == 2.5
    assert mean_interval([1.0, 2.0, 3.0, 4.0], 0.5).high < result.high


def test_one_value_has_a_mean_and_no_interval_and_none_has_nothing():
    one = mean_interval([3.0, np.nan])
    assert one.n == 1 and one.mean == 3.0
    assert all(np.isnan(v) for v in (one.sd, one.sem, one.low, one.high))
    assert format_interval(one.mean, one.low, one.high, one.n) == f"3.000 ({NO_INTERVAL})"
    none = mean_interval([np.nan])
    assert none.n == 0 and np.isnan(none.mean)
    assert format_interval(none.mean, none.low, none.high, none.n) == "n/a"


def test_equal_values_give_a_zero_width_interval():
    result = mean_interval([2.0, 2.0, 2.0])
    assert (result.low, result.mean, result.high) == (2.0, 2.0, 2.0)
    assert format_interval(result.mean, result.low, result.high) == "2.000 [2.000, 2.000]"


def test_describe_groups_matches_mean_interval_and_keeps_all_nan_keys():
    frame = pd.DataFrame(
        {
            "g": ["a", "a", "a", "a", "b", "c", "c"],
            "v": [1.0, 2.0, 3.0, 4.0, 7.0, np.nan, np.inf],
        }
    )
    table = describe_groups(frame, ["g"], "v").set_index("g")
    assert list(table.index) == ["a", "b", "c"]
    a = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert tuple(table.loc["a", ["n", "mean", "sd", "sem", "ci_low", "ci_high"]]) == pytest.approx(
        (a.n, a.mean, a.sd, a.sem, a.low, a.high)
    )
    assert table.loc["b", "n"] == 1 and table.loc["b", "mean"] == 7.0 and np.isnan(table.loc["b", "ci_low"])
    assert table.loc["c", "n"] == 0 and np.isnan(table.loc["c", "mean"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=0, max_size=12), st.floats(0.5, 0.99))
def test_describe_groups_and_mean_interval_are_one_definition(values, confidence):
    frame = pd.DataFrame({"k": np.zeros(len(values), dtype=int), "v": np.asarray(values, dtype=float)})
    reference = mean_interval(values, confidence)
    if not values:
        assert describe_groups(frame, ["k"], "v").empty
        return
    row = describe_groups(frame, ["k"], "v", confidence).iloc[0]
    got = (row["n"], row["mean"], row["sd"], row["ci_low"], row["ci_high"])
    want = (reference.n, reference.mean, reference.sd, reference.low, reference.high)
    assert got == pytest.approx(want, nan_ok=True, rel=1e-9, abs=1e-9)
    if reference.n >= 2:
        assert reference.low <= reference.mean <= reference.high


def test_paired_difference_by_hand():
    # differences b - a = 1, 2, 2: mean 5/3, sd sqrt(1/3), sem 1/3, t = 5 on 2 degrees of freedom
    result = paired_difference([1.0, 2.0, 3.0], [2.0, 4.0, 5.0])
    half = T_975_DF2 / 3
    assert result.n == 3 and result.difference == pytest.approx(5 / 3)
    assert (result.low, result.high) == pytest.approx((5 / 3 - half, 5 / 3 + half))
    # two-sided p of t on 2 df in closed form: 1 - t / sqrt(t^2 + 2)
    assert result.p_value == pytest.approx(1 - 5 / math.sqrt(27))
    assert result.excludes_zero


def test_paired_difference_matches_scipy_and_is_narrower_than_welch_on_correlated_runs():
    rng = np.random.default_rng(1)
    shared = rng.normal(0.0, 5.0, 20)  # a large seed effect both policies share
    a, b = shared + rng.normal(0.0, 0.3, 20), shared + 0.5 + rng.normal(0.0, 0.3, 20)
    paired = paired_difference(a, b)
    interval = sps.ttest_rel(b, a).confidence_interval(0.95)
    assert (paired.low, paired.high) == pytest.approx((interval.low, interval.high))
    welch = sps.ttest_ind(b, a, equal_var=False).confidence_interval(0.95)  # the same runs taken as independent
    assert paired.difference == pytest.approx(np.mean(b) - np.mean(a))
    assert paired.excludes_zero and welch.low < 0 < welch.high
    assert paired.high - paired.low < (welch.high - welch.low) / 5


def test_paired_difference_edge_cases():
    same = paired_difference([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])  # every difference is exactly 1
    assert (same.difference, same.low, same.high, same.p_value) == (1.0, 1.0, 1.0, 0.0)
    assert paired_difference([1.0, 2.0], [1.0, 2.0]).p_value == 1.0
    dropped = paired_difference([1.0, np.nan, 3.0, 4.0], [2.0, 5.0, np.nan, 6.0])  # pairs 1 and 4 remain
    assert dropped.n == 2 and dropped.difference == 1.5
    one = paired_difference([1.0], [3.0])
    assert one.n == 1 and one.difference == 2.0 and np.isnan(one.low) and np.isnan(one.p_value)
    with pytest.raises(ConfigError, match="different lengths"):
        paired_difference([1.0, 2.0], [1.0])


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.95", float("nan")])
def test_confidence_outside_zero_one_is_refused(bad):
    with pytest.raises(ConfigError, match="confidence"):
        check_confidence(bad)


# --- bounded quantities: percentile bootstrap -------------------------------------------------------------


def test_bootstrap_keeps_a_rate_inside_its_range_where_the_t_interval_leaves_it():
    # a precision of 1 in 9 seeds and 0.8 in one: the t-interval's upper bound passes 1, the bootstrap's cannot
    values = np.array([1.0] * 9 + [0.8])
    t = mean_interval(values)
    assert t.high > 1.0
    low, high = bootstrap_interval(values)
    assert 0.8 <= low <= t.mean <= high <= 1.0
    # a resample of 10 values is all 1.0 with probability 0.9^10 = 0.35 > 2.5%: the upper bound is exactly 1
    assert high == 1.0


def test_bootstrap_edge_cases_and_determinism():
    assert all(math.isnan(b) for b in bootstrap_interval([0.3]))
    assert all(math.isnan(b) for b in bootstrap_interval([math.nan, math.inf]))
    assert bootstrap_interval([0.2, 0.2, 0.2]) == (0.2, 0.2)
    values = np.random.default_rng(3).random(25)
    assert bootstrap_interval(values) == bootstrap_interval(values)


def test_bootstrap_agrees_with_the_t_interval_on_a_large_symmetric_sample():
    values = np.random.default_rng(4).normal(10.0, 2.0, size=400)
    t = mean_interval(values)
    low, high = bootstrap_interval(values)
    assert low == pytest.approx(t.low, abs=0.05) and high == pytest.approx(t.high, abs=0.05)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=30))
def test_bootstrap_bounds_lie_within_the_sample_range(values):
    low, high = bootstrap_interval(values)
    assert min(values) - 1e-12 <= low <= high <= max(values) + 1e-12


def test_describe_groups_bootstrap_matches_bootstrap_interval_per_key():
    frame = pd.DataFrame({"k": ["a"] * 6 + ["b"] * 4 + ["c"], "v": [1, 1, 1, 0.9, 1, 1, 0.2, 0.4, 0.1, 0.3, 0.5]})
    out = describe_groups(frame, ["k"], "v", method="bootstrap").set_index("k")
    for key in ("a", "b"):
        assert (out.loc[key, "ci_low"], out.loc[key, "ci_high"]) == bootstrap_interval(frame.loc[frame.k == key, "v"])
    assert math.isnan(out.loc["c", "ci_low"]) and out.loc["c", "n"] == 1
    assert out.loc["a", "ci_high"] <= 1.0
    with pytest.raises(ConfigError, match="method"):
        describe_groups(frame, ["k"], "v", method="wald")


def test_describe_groups_reads_nullable_columns_with_missing_values():
    # durability's validity columns are nullable (pd.NA where a horizon is past the run's end)
    frame = pd.DataFrame({"k": ["a", "a", "a", "b"], "v": pd.array([1.0, None, 0.5, None], dtype="Float64")})
    out = describe_groups(frame, ["k"], "v").set_index("k")
    assert out.loc["a", "n"] == 2 and out.loc["a", "mean"] == pytest.approx(0.75)
    assert out.loc["b", "n"] == 0 and math.isnan(out.loc["b", "mean"])
    flags = pd.DataFrame({"k": ["a", "a", "a"], "v": pd.array([True, None, False], dtype="boolean")})
    assert describe_groups(flags, ["k"], "v", method="bootstrap").loc[0, "mean"] == pytest.approx(0.5)
