import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.auditors.ccm import generate_counterfactuals, ordinal_map, quantile_map, subspace_valid
from recoursesim.errors import ConfigError, DataError

# --- A.9.5 continuous mapping -----------------------------------------------------------------


def test_quantile_map_vector_one():
    out = quantile_map(np.array([2.5, 2.0, 0.0, 5.0]), np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40]))
    np.testing.assert_allclose(out, [25, 20, 10, 40])


def test_quantile_map_vector_two():
    out = quantile_map(np.array([1.0, 2.0, 5.0]), np.array([1, 2, 2, 8]), np.array([0, 10]))
    np.testing.assert_allclose(out, [0.0, 5.0, 7.5])


# --- A.9.6 ordinal mapping --------------------------------------------------------------------


def test_ordinal_map_vector():
    out = ordinal_map(np.array([1.0, 2.0, 3.0]), np.array([1, 1, 2, 3]), np.array([1, 2, 2, 2, 3]))
    np.testing.assert_array_equal(out, [1, 2, 3])


@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=20),
    st.lists(st.integers(0, 5), min_size=1, max_size=20),
    st.lists(st.integers(-2, 7), min_size=1, max_size=10),
)
def test_ordinal_map_lands_on_target_support(src, tgt, values):
    out = ordinal_map(np.array(values, float), np.array(src, float), np.array(tgt, float))
    assert set(out) <= set(tgt)


@given(
    st.lists(st.floats(-100, 100), min_size=1, max_size=20),
    st.lists(st.floats(-100, 100), min_size=1, max_size=20),
    st.lists(st.floats(-200, 200), min_size=1, max_size=10),
)
def test_quantile_map_stays_in_target_range_and_is_monotone(src, tgt, values):
    v = np.sort(np.array(values))
    out = quantile_map(v, np.array(src), np.array(tgt))
    assert (out >= min(tgt) - 1e-9).all() and (out <= max(tgt) + 1e-9).all()
    assert (np.diff(out) >= -1e-9).all()


# --- A.9.7 binary depth -----------------------------------------------------------------------


def _depth_frames():
    train = pd.DataFrame(
        {
            "g": ["A"] * 4 + ["B"] * 4,
            "f1": [1, 1, 1, 1, 0, 0, 0, 1],
            "f2": [1, 1, 0, 0, 0, 1, 0, 1],
            "y": 1,
        }
    )
    sample = pd.DataFrame({"g": ["A"], "f1": [1], "f2": [1], "y": [1]})
    return train, sample


@pytest.mark.parametrize(("depth", "expected"), [(0, (1, 1)), (1, (0, 1)), (2, (0, 0))])
def test_binary_depth(depth, expected):
    train, sample = _depth_frames()
    cf = generate_counterfactuals(train, sample, "g", "y", binary=["f1", "f2"], max_depth=depth)
    assert len(cf) == 1
    assert (int(cf.loc[0, "f1"]), int(cf.loc[0, "f2"])) == expected
    assert cf.loc[0, "g"] == "B" and cf.loc[0, "target_group"] == "B" and cf.loc[0, "orig_group"] == "A"
    assert bool(cf.loc[0, "valid"])


def test_naive_flips_only_the_sensitive_attribute():
    train, sample = _depth_frames()
    cf = generate_counterfactuals(train, sample, "g", "y", binary=["f1", "f2"], potential_features=[], max_depth=2)
    assert (int(cf.loc[0, "f1"]), int(cf.loc[0, "f2"]), cf.loc[0, "g"]) == (1, 1, "B")


def test_explicit_feature_set():
    train, sample = _depth_frames()
    cf = generate_counterfactuals(train, sample, "g", "y", binary=["f1", "f2"], potential_features=["f2"], max_depth=2)
    assert (int(cf.loc[0, "f1"]), int(cf.loc[0, "f2"])) == (1, 1)


# --- A.9.8 tie and impossibility --------------------------------------------------------------


def test_tie_at_tau_flips():
    train = pd.DataFrame({"g": ["A"] * 4 + ["B"] * 4, "f": [1, 1, 1, 0, 1, 0, 0, 0], "y": 0})
    sample = pd.DataFrame({"g": ["A"], "f": [1], "y": [0]})
    cf = generate_counterfactuals(train, sample, "g", "y", binary=["f"], tau=0.5)
    assert int(cf.loc[0, "f"]) == 0


def test_pregnancy_impossibility_threshold():
    train = pd.DataFrame({"g": ["F"] * 4 + ["M"] * 4, "p": [1, 0, 0, 0, 0, 0, 0, 0], "y": 1})
    sample = pd.DataFrame({"g": ["F"], "p": [1], "y": [1]})
    plain = generate_counterfactuals(train, sample, "g", "y", binary=["p"])
    assert int(plain.loc[0, "p"]) == 1
    strict = generate_counterfactuals(train, sample, "g", "y", binary=["p"], impossible_thr=0.01)
    assert int(strict.loc[0, "p"]) == 0


# --- A.9.9 PCA validation ---------------------------------------------------------------------


def test_pca_subspace_vector():
    cell = np.vstack([np.eye(3), -np.eye(3)])
    cfs = np.array([[0, 0, 0], [1.2, 0, 0], [1.3, 0, 0], [1, 1, 0]], dtype=float)
    np.testing.assert_array_equal(subspace_valid(cell, cfs, 1.5), [True, True, False, False])


def test_pca_validation_marks_outliers_invalid():
    rng = np.random.default_rng(0)
    n = 200
    train = pd.DataFrame(
        {"g": np.repeat(["A", "B"], n), "a": rng.normal(size=2 * n), "b": rng.normal(size=2 * n), "y": 1}
    )
    samples = pd.DataFrame({"g": ["A", "A"], "a": [0.0, 50.0], "b": [0.0, 0.0], "y": [1, 1]})
    cf = generate_counterfactuals(
        train,
        samples,
        "g",
        "y",
        continuous=["a", "b"],
        potential_features=["b"],
        validate_pca=True,
        pca_components=2,
    )
    assert cf["valid"].tolist() == [True, False]
    assert "PCA" in cf.loc[1, "reason"]


# --- one-hot blocks, multi-group, empty cells -------------------------------------------------


def test_onehot_block_moves_to_target_mode():
    train = pd.DataFrame(
        {
            "g": ["A"] * 4 + ["B"] * 4,
            "c_x": [1, 1, 1, 1, 0, 0, 0, 0],
            "c_y": [0, 0, 0, 0, 1, 1, 1, 0],
            "c_z": [0, 0, 0, 0, 0, 0, 0, 1],
            "y": 1,
        }
    )
    sample = pd.DataFrame({"g": ["A"], "c_x": [1], "c_y": [0], "c_z": [0], "y": [1]})
    cf = generate_counterfactuals(train, sample, "g", "y", onehot_groups=[["c_x", "c_y", "c_z"]])
    assert cf.loc[0, ["c_x", "c_y", "c_z"]].astype(int).tolist() == [0, 1, 0]


def test_multi_group_gives_one_cf_per_other_group():
    rng = np.random.default_rng(1)
    train = pd.DataFrame({"g": np.repeat(["A", "B", "C"], 30), "x": rng.normal(size=90), "y": rng.integers(0, 2, 90)})
    samples = train.sample(10, random_state=0)
    cf = generate_counterfactuals(train, samples, "g", "y", continuous=["x"])
    assert len(cf) == 20
    assert (cf["orig_group"] != cf["target_group"]).all()
    assert (cf["g"] == cf["target_group"]).all()
    assert cf.groupby("sample_id").size().eq(2).all()


def test_empty_cell_is_invalid_with_reason():
    train = pd.DataFrame({"g": ["A", "A", "B"], "x": [1.0, 2.0, 3.0], "y": [1, 0, 1]})
    samples = pd.DataFrame({"g": ["A", "A"], "x": [1.0, 2.0], "y": [1, 0]})
    cf = generate_counterfactuals(train, samples, "g", "y", continuous=["x"])
    assert cf["valid"].tolist() == [True, False]
    assert "group='B'" in cf.loc[1, "reason"]
    assert cf.loc[0, "x"] == 3.0  # single-valued target cell


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 3), st.floats(0.05, 1.0))
def test_generator_invariants(seed, depth, tau):
    rng = np.random.default_rng(seed)
    n = 40
    train = pd.DataFrame(
        {
            "g": rng.choice(["A", "B"], n),
            "x": rng.normal(size=n),
            "b1": rng.integers(0, 2, n),
            "b2": rng.integers(0, 2, n),
            "y": rng.integers(0, 2, n),
        }
    )
    cf = generate_counterfactuals(
        train, train, "g", "y", continuous=["x"], binary=["b1", "b2"], tau=tau, max_depth=depth
    )
    assert len(cf) == n
    assert (cf["sample_id"].to_numpy() == train.index.to_numpy()).all()
    assert cf["b1"].isin([0, 1]).all() and cf["b2"].isin([0, 1]).all()
    assert (cf["label"].to_numpy() == train["y"].to_numpy()).all()


# --- bad inputs -------------------------------------------------------------------------------


def test_bad_inputs():
    train, sample = _depth_frames()
    with pytest.raises(DataError, match="distinct value"):
        generate_counterfactuals(train.assign(g="A"), sample, "g", "y", binary=["f1"])
    with pytest.raises(DataError, match="empty"):
        generate_counterfactuals(train, sample.iloc[:0], "g", "y", binary=["f1"])
    with pytest.raises(DataError, match="no column"):
        generate_counterfactuals(train, sample, "g", "y", binary=["nope"])
    with pytest.raises(DataError, match="0 and 1"):
        generate_counterfactuals(train.assign(f1=2), sample, "g", "y", binary=["f1"])
    with pytest.raises(ConfigError, match="tau"):
        generate_counterfactuals(train, sample, "g", "y", binary=["f1"], tau=2)
    with pytest.raises(ConfigError, match="potential_features"):
        generate_counterfactuals(train, sample, "g", "y", binary=["f1"], potential_features=["f9"])
    with pytest.raises(ConfigError, match="max_depth"):
        generate_counterfactuals(train, sample, "g", "y", binary=["f1"], max_depth=-1)
