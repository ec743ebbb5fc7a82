"""A Gymnasium environment: an agent sets each step's selection policy of a recourse simulation.

Each episode is one run of a scenario. At every step the agent chooses the policy of that step
(how many to select, how many from each group, or a score threshold); the simulation scores the
waiting applicants, selects by that policy, and the refused act on their recommendations as
usual. The agent then observes, per group, the share of the waiting pool, the mean score of the
waiting, this step's selection rate and the share of the group's admitted applicants selected so
far, plus the time left. See docs/policy.md for the reward and a baseline.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recoursesim.errors import ConfigError
from recoursesim.policy._deps import require
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.selection.base import Selection, SelectionContext, check_scores, top_k_mask

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:  # one clear line naming the extra
    require("gymnasium")
    raise

ACTIONS = ("k", "quotas", "threshold")
#: Observation entries per group, in order.
GROUP_FEATURES = ("waiting_share", "mean_waiting_score", "selection_rate", "selected_share")


class StepPolicy:
    """The selector the environment installs for one step: top-k, per-group quotas or a threshold.

    Args:
        kind: ``"k"``, ``"quotas"`` or ``"threshold"``.
        value: ``k``; the quota of each group (an array); or the threshold.
    """

    def __init__(self, kind: str, value: Any) -> None:
        self.kind = kind
        self.value = value
        self.scored_ = np.zeros(0, dtype=np.int64)
        self.selected_ = np.zeros(0, dtype=np.int64)

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Select by this step's policy and remember how many of each group were scored and selected."""
        scores = check_scores(scores, context)
        if self.kind == "k":
            mask, cutoff = top_k_mask(scores, int(self.value), context)
            threshold: float | np.ndarray = cutoff if np.isfinite(cutoff) else _best(scores)
        elif self.kind == "threshold":
            mask, threshold = scores >= float(self.value), float(self.value)
        else:
            mask, threshold = _by_quota(scores, context, np.asarray(self.value, dtype=np.int64))
        groups = context.group.astype(np.int64)
        self.scored_ = np.bincount(groups, minlength=context.n_groups)
        self.selected_ = np.bincount(groups[mask], minlength=context.n_groups)
        return Selection(mask, threshold)


def _best(scores: np.ndarray) -> float:
    return float(scores.max()) if scores.size else 0.0


def _by_quota(scores: np.ndarray, context: SelectionContext, quotas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Top ``quotas[g]`` of each group; each agent aims at its group's cut-off (or the highest one)."""
    mask = np.zeros(scores.size, dtype=bool)
    cutoffs = np.full(context.n_groups, np.nan)
    for code in range(context.n_groups):
        rows = np.flatnonzero(context.group == code)
        if rows.size and quotas[code] > 0:
            chosen, cutoff = top_k_mask(scores[rows], int(quotas[code]), context.subset(rows))
            mask[rows[chosen]] = True
            cutoffs[code] = cutoff
    highest = float(np.nanmax(cutoffs)) if np.isfinite(cutoffs).any() else _best(scores)
    return mask, np.where(np.isnan(cutoffs), highest, cutoffs)[context.group]


class RecourseEnv(gymnasium.Env):
    """One run of a scenario, with the selection policy set by the agent at every step.

    Args:
        scenario: A :class:`~recoursesim.scenario.Scenario`, a bundled name or a TOML path.
        action: ``"k"``: ``Discrete(max_k, start=1)``, select the ``k`` best; ``"quotas"``:
            ``MultiDiscrete([max_quota + 1] * G)``, select the best ``q_g`` of each group;
            ``"threshold"``: ``Box(low, high, (1,))`` over ``score_bounds``, select every score at least ``t``.
        budget: Positive outcomes a step should give (the reward's ``B``; default the scenario's
            ``selection.k``, else 10% of the initial population).
        max_k: Largest ``k`` (default ``2 · budget``).
        max_quota: Largest quota per group (default ``budget``).
        score_bounds: ``(low, high)`` of the scores (default ``(0, 1)``, probabilities): the range of
            the threshold action, and of the observed mean scores (clipped to it).
        fairness_weight: ``λ`` in the reward.

    The reward of a step with ``n`` selected is ``(min(n, B) − max(0, n − B)) / B − λ · gap``:
    filling the budget earns up to 1, every selection beyond it costs as much as one within it
    earns, and ``gap`` is the largest difference between two groups' selection rates this step.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 - Gymnasium's class attribute

    def __init__(
        self,
        scenario: Scenario | str = "default",
        action: str = "k",
        *,
        budget: int | None = None,
        max_k: int | None = None,
        max_quota: int | None = None,
        score_bounds: tuple[float, float] = (0.0, 1.0),
        fairness_weight: float = 1.0,
    ) -> None:
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        if action not in ACTIONS:
            raise ConfigError("action", f"{action!r} is not an action kind", f"use one of {', '.join(ACTIONS)}")
        self.action = action
        probe = self.scenario.build_model(0)
        self.group_names = tuple(probe.group_names)
        n_initial = int(probe.n_initial)
        default = self.scenario.spec.get("selection", {}).get("k", max(1, n_initial // 10))
        self.budget = int(budget if budget is not None else default)
        if self.budget < 1:
            raise ConfigError("budget", f"must be at least 1, got {self.budget}", "give a positive budget")
        self.fairness_weight = float(fairness_weight)
        n_groups = len(self.group_names)
        low, high = (float(b) for b in score_bounds)
        if not low < high:
            raise ConfigError("score_bounds", f"needs low < high, got {score_bounds}", "give (low, high)")
        self.score_bounds = (low, high)
        if action == "k":
            self.action_space = spaces.Discrete(int(max_k or 2 * self.budget), start=1)
        elif action == "quotas":
            self.action_space = spaces.MultiDiscrete([int(max_quota or self.budget) + 1] * n_groups)
        else:
            self.action_space = spaces.Box(low, high, shape=(1,), dtype=np.float32)
        low_bounds = np.tile(np.array([0.0, low, 0.0, 0.0], dtype=np.float32), n_groups)
        high_bounds = np.tile(np.array([1.0, high, 1.0, 1.0], dtype=np.float32), n_groups)
        self.observation_space = spaces.Box(
            np.append(low_bounds, np.float32(0.0)), np.append(high_bounds, np.float32(1.0)), dtype=np.float32
        )
        self.model: Any = None
        self._selected_total = np.zeros(n_groups, dtype=np.int64)
        self._last = StepPolicy("k", 1)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start a new run; its seed is drawn from the environment's generator (seeded by ``seed``)."""
        super().reset(seed=seed)
        run_seed = int(self.np_random.integers(0, 2**31 - 1))
        self.model = self.scenario.build_model(run_seed)
        self._selected_total = np.zeros(len(self.group_names), dtype=np.int64)
        self._last = StepPolicy("k", 1)
        return self._observe(), {"run_seed": run_seed, "step": 0}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Run one simulation step under the policy ``action``."""
        if self.model is None or not self.model.running:
            raise RuntimeError("call reset() before step() (and after the episode has ended)")
        policy = StepPolicy(self.action, self._policy_value(action))
        self.model.selector = policy
        self.model.step()
        self._last = policy
        self._selected_total += policy.selected_
        rates = _rates(policy.selected_, policy.scored_)
        present = policy.scored_ > 0
        gap = float(rates[present].max() - rates[present].min()) if present.sum() > 1 else 0.0
        n = int(policy.selected_.sum())
        reward = (min(n, self.budget) - max(0, n - self.budget)) / self.budget - self.fairness_weight * gap
        info = {
            "step": self.model.t - 1,
            "selected": policy.selected_.copy(),
            "scored": policy.scored_.copy(),
            "selection_rate_gap": gap,
        }
        return self._observe(), float(reward), not self.model.running, False, info

    def _policy_value(self, action: Any) -> Any:
        if self.action == "k":
            return int(action)
        if self.action == "quotas":
            return np.asarray(action, dtype=np.int64)
        return float(np.asarray(action, dtype=float).reshape(-1)[0])

    def _observe(self) -> np.ndarray:
        model = self.model
        n_groups = len(self.group_names)
        low, high = self.score_bounds
        waiting = model.waiting_ids
        groups = model.table.group[waiting].astype(np.int64)
        counts = np.bincount(groups, minlength=n_groups)
        scores = np.asarray(model.scorer.score(model.table.features[waiting]), dtype=float) if waiting.size else ()
        sums = np.bincount(groups, weights=scores, minlength=n_groups) if waiting.size else np.zeros(n_groups)
        admitted = np.bincount(model.table.group.astype(np.int64), minlength=n_groups)
        per_group = np.column_stack(
            [
                counts / max(int(counts.sum()), 1),
                np.clip(np.divide(sums, counts, out=np.full(n_groups, low), where=counts > 0), low, high),
                _rates(self._last.selected_, self._last.scored_, n_groups),
                _rates(self._selected_total, admitted, n_groups),
            ]
        )
        left = (model.n_steps + 1 - model.t) / (model.n_steps + 1)
        return np.append(per_group.ravel(), left).astype(np.float32)


def _rates(selected: np.ndarray, scored: np.ndarray, n_groups: int | None = None) -> np.ndarray:
    if n_groups is not None and selected.size != n_groups:
        return np.zeros(n_groups)
    return np.divide(selected, scored, out=np.zeros(len(scored)), where=scored > 0)
