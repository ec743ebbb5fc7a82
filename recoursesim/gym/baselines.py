"""Simple baseline policies for :class:`~recoursesim.gym.RecourseEnv`, and a loop that scores a policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from recoursesim.gym.env import GROUP_FEATURES, RecourseEnv


def proportional_quotas(observation: np.ndarray, budget: int, n_groups: int) -> np.ndarray:
    """Quotas proportional to each group's share of the waiting pool, summing to ``budget``.

    The shares are read from the observation; quotas are rounded by largest remainder (ties to
    the lower group index), so every group gets ``floor`` or ``ceil`` of its exact share.
    """
    width = len(GROUP_FEATURES)
    shares = np.asarray(observation[: width * n_groups], dtype=float).reshape(n_groups, width)[:, 0]
    exact = shares / shares.sum() * budget if shares.sum() > 0 else np.full(n_groups, budget / n_groups)
    exact = np.round(exact, 6)  # the shares arrive as float32: equal remainders must compare equal
    quotas = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - quotas), kind="stable")
    quotas[order[: budget - int(quotas.sum())]] += 1
    return quotas


def evaluate(env: RecourseEnv, policy: Callable[[np.ndarray], Any], *, episodes: int, seed: int = 0) -> np.ndarray:
    """Returns (sums of rewards) of ``episodes`` episodes of ``policy``; episode ``i`` is reset with ``seed + i``."""
    returns = np.zeros(episodes)
    for episode in range(episodes):
        observation, _ = env.reset(seed=seed + episode)
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(policy(observation))
            returns[episode] += reward
            done = terminated or truncated
    return returns
