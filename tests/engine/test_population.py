import numpy as np
import pytest

from recoursesim.errors import ConfigError
from recoursesim.populations import Bell2024Population, FoldedNormal, MixturePopulation, allocate


def test_allocate_largest_remainder_is_exact_and_deterministic():
    assert allocate(10, np.array([0.5, 0.5])).tolist() == [5, 5]
    assert allocate(10, np.array([1 / 3, 1 / 3, 1 / 3])).tolist() == [4, 3, 3]
    assert allocate(7, np.array([0.25, 0.75])).tolist() == [2, 5]  # 1.75 -> 2, 5.25 -> 5


def test_bell2024_counts_high_performers_as_the_reference_code():
    gen = Bell2024Population(q=3.0).fit(np.random.default_rng(0))
    # undo the scaling to see raw x0: high performers ~ N(1.5, 0.2^2); h = int(0.05 * n) per group
    cohort = gen.sample(1000, np.random.default_rng(1))
    raw_x0 = cohort.features[:, 0] * gen.scale_[0] + gen.min_[0]
    for code in (0, 1):
        in_group = cohort.group == code
        assert in_group.sum() == 500
        assert (raw_x0[in_group] > 0.9).sum() == 50
    cohort = gen.sample(100, np.random.default_rng(2))
    raw_x0 = cohort.features[:, 0] * gen.scale_[0] + gen.min_[0]
    assert [(raw_x0[cohort.group == g] > 0.9).sum() for g in (0, 1)] == [5, 5]


def test_bell2024_q_shifts_only_disadvantaged_low_performers():
    gen = Bell2024Population(q=2.0, scaler_sample=20000).fit(np.random.default_rng(0))
    cohort = gen.sample(20000, np.random.default_rng(3))
    raw = cohort.features * gen.scale_ + gen.min_
    low = raw[:, 0] < 0.9
    adv = raw[low & (cohort.group == 0), 0].mean()
    dis = raw[low & (cohort.group == 1), 0].mean()
    assert adv == pytest.approx(0.0, abs=0.01)
    assert dis == pytest.approx(-0.4, abs=0.01)  # -q * sd = -2 * 0.2
    assert raw[:, 1].mean() == pytest.approx(0.0, abs=0.01)


def test_bell2024_effort_scale_and_conditions():
    gen = Bell2024Population(effort="adv_more").fit(np.random.default_rng(0))
    cohort = gen.sample(40000, np.random.default_rng(4))
    # sigma_i = 0.5 * |N(e_g, 1)| / 20: E|N(1,1)| = 1.1666, E|N(0,1)| = 0.7979
    assert cohort.effort[cohort.group == 0].mean() == pytest.approx(1.1666 / 40, rel=0.02)
    assert cohort.effort[cohort.group == 1].mean() == pytest.approx(0.7979 / 40, rel=0.02)


def test_scaler_maps_its_own_reference_sample_onto_exactly_the_unit_interval():
    # fit draws scaler_sample raw agents from the stream it is given; the same draw, scaled, spans [0, 1] exactly
    gen = Bell2024Population(scaler_sample=5_000).fit(np.random.default_rng(5))
    reference, _ = Bell2024Population(scaler_sample=5_000)._raw_features(5_000, np.random.default_rng(5))
    scaled = (reference - gen.min_) / gen.scale_
    np.testing.assert_allclose(scaled.min(axis=0), [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(scaled.max(axis=0), [1.0, 1.0], atol=1e-12)
    # and sample() applies exactly that map to the raw features it draws
    cohort = gen.sample(1_000, np.random.default_rng(6))
    raw, _ = gen._raw_features(1_000, np.random.default_rng(6))
    np.testing.assert_array_equal(cohort.features, (raw - gen.min_) / gen.scale_)


def test_folded_normal_mean_closed_form():
    assert FoldedNormal(1.0, 1.0, 2.0).expected() == pytest.approx(2 * 1.16663, rel=1e-4)
    assert FoldedNormal(0.0, 1.0, 1.0).expected() == pytest.approx(np.sqrt(2 / np.pi))


def group(name="a", share=1.0, **extra):
    spec = {"name": name, "share": share, "qualification": [{"means": [0.0], "sds": [1.0]}]}
    spec.update(extra)
    return spec


def test_mixture_population_group_sizes_and_mixture_weights():
    gen = MixturePopulation(
        [
            {
                "name": "a",
                "share": 0.25,
                "qualification": [{"weights": [0.2, 0.8], "means": [10.0, 0.0], "sds": [0.0, 0.0]}],
            },
            {
                "name": "b",
                "share": 0.75,
                "qualification": [{"means": [5.0], "sds": [0.0]}],
                "effort": {"mean": 2.0, "sd": 0.0, "scale": 0.5},
            },
        ]
    )
    cohort = gen.sample(4000, np.random.default_rng(0))
    assert np.bincount(cohort.group).tolist() == [1000, 3000]
    assert (cohort.features[cohort.group == 0, 0] == 10.0).mean() == pytest.approx(0.2, abs=0.03)
    np.testing.assert_array_equal(cohort.effort[cohort.group == 1], 1.0)


@pytest.mark.parametrize(
    "groups, field",
    [
        ([group(share=0.6)], "groups: shares sum to 0.6"),
        ([group(share=0.0), group("b")], "groups[0].share: is 0"),
        ([{}], "groups[0]: is empty"),
        ([group(qualification=[{"means": [float("nan")]}])], "groups[0].qualification[0].means: contains NaN"),
        ([group(colour="red")], "groups[0].colour: unknown key"),
        ([group("a", 0.5), group("a", 0.5)], "groups: group names must be distinct"),
    ],
)
def test_mixture_population_bad_input(groups, field):
    with pytest.raises(ConfigError) as info:
        MixturePopulation(groups)
    assert str(info.value).startswith(field)
