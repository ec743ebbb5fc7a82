import numpy as np
import pytest

from recoursesim.errors import ConfigError
from recoursesim.scenario import load_scenario

pytestmark = pytest.mark.policy


@pytest.fixture(scope="module")
def small():
    return load_scenario("default").with_overrides({"run.steps": 3, "population.initial": 60, "population.entrants": 6})


@pytest.mark.parametrize("action", ["k", "quotas", "threshold"])
def test_check_env_passes(small, action):
    from gymnasium.utils.env_checker import check_env

    from recoursesim.gym import RecourseEnv

    check_env(RecourseEnv(small, action=action, budget=6), skip_render_check=True)


def test_an_episode_follows_the_policy_and_ends_after_the_last_step(small):
    from recoursesim.gym import RecourseEnv

    env = RecourseEnv(small, action="quotas", budget=6)
    observation, info = env.reset(seed=1)
    assert observation.shape == env.observation_space.shape == (2 * 4 + 1,)
    assert observation[-1] == 1.0  # all steps left
    rewards, done, steps = [], False, 0
    while not done:
        observation, reward, done, truncated, info = env.step(np.array([2, 4]))
        steps += 1
        assert not truncated
        assert info["selected"].tolist() == [2, 4]  # enough agents wait in both groups
        rates = info["selected"] / info["scored"]
        assert info["selection_rate_gap"] == pytest.approx(abs(rates[0] - rates[1]))
        # n = 6 = B: the budget term is 1, minus the rate gap.
        assert reward == pytest.approx(1.0 - info["selection_rate_gap"])
        rewards.append(reward)
        np.testing.assert_allclose(observation[[2, 6]], rates, rtol=1e-6)
    assert steps == 4 and observation[-1] == 0.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.array([1, 1]))


def test_over_budget_costs_what_it_earns(small):
    from recoursesim.gym import RecourseEnv

    env = RecourseEnv(small, action="k", budget=4, fairness_weight=0.0)
    env.reset(seed=0)
    _, reward, *_ = env.step(6)
    assert reward == pytest.approx((4 - 2) / 4)


def test_same_seed_same_episode(small):
    from recoursesim.gym import RecourseEnv

    env = RecourseEnv(small, action="threshold")
    first = [env.reset(seed=5)[0]] + [env.step(np.array([0.6], dtype=np.float32))[0] for _ in range(3)]
    second = [env.reset(seed=5)[0]] + [env.step(np.array([0.6], dtype=np.float32))[0] for _ in range(3)]
    np.testing.assert_array_equal(np.array(first), np.array(second))


def test_bad_action_kind_is_one_clear_error(small):
    from recoursesim.gym import RecourseEnv

    with pytest.raises(ConfigError, match="action: 'topk' is not an action kind"):
        RecourseEnv(small, action="topk")


def test_proportional_quotas_by_hand():
    from recoursesim.gym.baselines import proportional_quotas

    observation = np.array([0.7, 0.5, 0.1, 0.1, 0.3, 0.4, 0.0, 0.0, 0.5], dtype=np.float32)
    assert proportional_quotas(observation, 10, 2).tolist() == [7, 3]
    assert proportional_quotas(observation, 5, 2).tolist() == [4, 1]  # 3.5 / 1.5: the larger remainder first
    assert proportional_quotas(np.zeros(9, dtype=np.float32), 5, 2).tolist() == [3, 2]


def test_the_documented_baseline_runs(small):
    from recoursesim.gym import RecourseEnv
    from recoursesim.gym.baselines import evaluate, proportional_quotas

    quotas = RecourseEnv(small, action="quotas", budget=6)
    returns = evaluate(quotas, lambda obs: proportional_quotas(obs, 6, 2), episodes=2, seed=0)
    top_k = evaluate(RecourseEnv(small, action="k", budget=6), lambda obs: 6, episodes=2, seed=0)
    assert returns.shape == top_k.shape == (2,)
    assert (returns <= 4).all() and (top_k <= 4).all()  # at most 1 per step, 4 steps
