"""MMD: hand-computed values, the vectorised permutation test, and its calibration and power."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import kstest

from recoursesim.errors import ConfigError, DataError
from recoursesim.shift.mmd import (
    _mmd2_from_labels,
    gaussian_kernel,
    median_bandwidth,
    mmd2_unbiased,
    mmd_test,
    pooled_kernel,
)


def test_mmd2_matches_hand_computation_1d():
    # x = {0, 1}, y = {2, 3}, h = 1: k(a, b) = exp(-(a - b)^2 / 2).
    e = math.exp
    within = e(-0.5)  # each sample has one off-diagonal pair, at distance 1
    cross = (e(-2.0) + e(-4.5) + e(-0.5) + e(-2.0)) / 4
    expected = within + within - 2 * cross
    assert mmd2_unbiased(np.array([0.0, 1.0]), np.array([2.0, 3.0]), 1.0) == pytest.approx(expected, rel=1e-12)


def test_mmd2_matches_hand_computation_2d_unequal_sizes():
    # x = {(0,0), (0,1)}, y = {(0,0), (1,0), (1,1)}, h = 2: k = exp(-d^2 / 8).
    e = math.exp
    kxx = e(-1 / 8)  # the two x points are 1 apart
    kyy = (e(-1 / 8) + e(-2 / 8) + e(-1 / 8)) / 3  # pairs of y: d^2 = 1, 2, 1
    # x-y pairs: (0,0)-(0,0):0 (0,0)-(1,0):1 (0,0)-(1,1):2 (0,1)-(0,0):1 (0,1)-(1,0):2 (0,1)-(1,1):1
    kxy = (1 + e(-1 / 8) + e(-2 / 8) + e(-1 / 8) + e(-2 / 8) + e(-1 / 8)) / 6
    x = np.array([[0.0, 0.0], [0.0, 1.0]])
    y = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    assert mmd2_unbiased(x, y, 2.0) == pytest.approx(kxx + kyy - 2 * kxy, rel=1e-12)


def test_median_bandwidth_is_median_pairwise_distance():
    # distances between 0, 1, 3 are 1, 3, 2 -> median 2; duplicated points (distance 0) are ignored
    assert median_bandwidth(np.array([[0.0], [1.0], [3.0], [3.0]])) == pytest.approx(2.0)
    assert median_bandwidth(np.zeros((3, 2))) == 1.0


def test_unpermuted_label_statistic_equals_direct_statistic():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(7, 3)), rng.normal(0.3, 1.0, size=(5, 3))
    result = mmd_test(x, y, bandwidth=1.3, permutations=0)
    assert result.mmd2 == pytest.approx(mmd2_unbiased(x, y, 1.3), rel=1e-10)
    assert math.isnan(result.p_value)


@settings(max_examples=30, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(4, 12), st.just(2)), elements=st.floats(-3, 3)),
    st.integers(2, 10),
)
def test_any_labelling_gives_the_direct_statistic_of_its_split(pooled, n):
    n = min(n, pooled.shape[0] - 2)
    rng = np.random.default_rng(0)
    labels = np.zeros((1, pooled.shape[0]))
    chosen = rng.choice(pooled.shape[0], n, replace=False)
    labels[0, chosen] = 1
    kernel = gaussian_kernel(pooled, pooled, 0.9)
    rest = np.setdiff1d(np.arange(pooled.shape[0]), chosen)
    got = _mmd2_from_labels(kernel, labels, n, pooled.shape[0] - n)[0]
    assert got == pytest.approx(mmd2_unbiased(pooled[chosen], pooled[rest], 0.9), abs=1e-9)


def test_p_value_is_uniform_under_the_null():
    rng = np.random.default_rng(20261122)
    p_values = [
        mmd_test(rng.normal(size=(60, 2)), rng.normal(size=(60, 2)), permutations=199, rng=rng).p_value
        for _ in range(200)
    ]
    assert kstest(p_values, "uniform").pvalue > 0.01


@pytest.mark.parametrize("dimensions", [1, 2])
def test_half_sd_mean_shift_is_detected_with_500_points(dimensions):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(500, dimensions))
    y = rng.normal(size=(500, dimensions))
    y[:, 0] += 0.5
    assert mmd_test(x, y, permutations=200, rng=rng).p_value < 0.01


def test_same_seed_same_p_value():
    x, y = np.random.default_rng(3).normal(size=(2, 30, 2))
    first = mmd_test(x, y, permutations=50, rng=np.random.default_rng(5))
    second = mmd_test(x, y, permutations=50, rng=np.random.default_rng(5))
    assert first == second


@pytest.mark.parametrize("bandwidth", [0, -1.0, float("nan"), "mean"])
def test_bad_bandwidth_is_a_config_error(bandwidth):
    with pytest.raises(ConfigError, match="bandwidth"):
        mmd_test(np.zeros((3, 1)), np.ones((3, 1)), bandwidth=bandwidth, permutations=0)


def test_bad_samples_are_data_errors():
    with pytest.raises(DataError, match="at least two"):
        mmd2_unbiased(np.zeros((1, 2)), np.zeros((3, 2)), 1.0)
    with pytest.raises(DataError, match="NaN"):
        mmd2_unbiased(np.array([[0.0], [np.nan]]), np.zeros((3, 1)), 1.0)


@settings(max_examples=30, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(2, 40), st.integers(1, 5)), elements=st.floats(-1e3, 1e3)),
    st.floats(0.01, 100.0),
)
def test_pooled_kernel_is_exactly_the_gaussian_kernel(pooled, bandwidth):
    # the pairwise shortcut must give the same numbers, bit for bit (duplicated rows included)
    pooled = np.vstack([pooled, pooled[:1]])
    np.testing.assert_array_equal(pooled_kernel(pooled, bandwidth), gaussian_kernel(pooled, pooled, bandwidth))


def test_pooled_kernel_hand_values():
    # points 0, 1, 3 with h = 1: k = exp(-d^2 / 2), ones on the diagonal
    e = math.exp
    expected = np.array([[1, e(-0.5), e(-4.5)], [e(-0.5), 1, e(-2.0)], [e(-4.5), e(-2.0), 1]])
    np.testing.assert_allclose(pooled_kernel(np.array([[0.0], [1.0], [3.0]]), 1.0), expected, rtol=1e-15)
