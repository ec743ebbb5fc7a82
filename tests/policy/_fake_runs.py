"""Runs whose answer is known: the metric is a fixed function of the point's parameters plus seed noise.

They replace the simulation in the sweep engine (the runner hook), so every other part of a study
(design, sweep plan, shards, metric extraction, analysis, Optuna bookkeeping) is the real one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim.sweep import RunOutcome, RunTask
from recoursesim.sweep.worker import encode_shard

NOISE_SD = 0.05


def known_value(params: dict) -> float:
    """4·x1 + x2 with x1, x2 the positions of selection.k and population.entrants in [10, 200]; the rest is inert."""
    x1 = (params["selection.k"] - 10) / 190
    x2 = (params["population.entrants"] - 10) / 190
    return 4.0 * x1 + x2


def known_runner(task: RunTask) -> RunOutcome:
    noise = np.random.default_rng(task.seed.generate_state(1)).normal(0.0, NOISE_SD)
    summary = pd.DataFrame({"group": ["a", "b"], "dttr": [known_value(task.params) + noise, 0.0], "entered": [5, 7]})
    return RunOutcome(task, encode_shard(task, None, summary))


def bowl_value(params: dict) -> float:
    """A bowl with its minimum at k = 120, entrants = 50 and intercept = 0.1 (if the intercept is searched)."""
    intercept = params.get("scorer.intercept", 0.1)
    return (
        ((params["selection.k"] - 120) / 50) ** 2
        + ((params["population.entrants"] - 50) / 50) ** 2
        + (intercept - 0.1) ** 2
    )


def bowl_runner(task: RunTask) -> RunOutcome:
    noise = np.random.default_rng(task.seed.generate_state(1)).normal(0.0, NOISE_SD)
    summary = pd.DataFrame(
        {
            "group": ["a", "b"],
            "dttr": [bowl_value(task.params) + noise, 0.0],
            "entered": [task.params["selection.k"], 1],
        }
    )
    return RunOutcome(task, encode_shard(task, None, summary))


class CrashingRunner:
    """bowl_runner that makes the executor fail at its ``after``-th call (a stopped session)."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.calls = 0

    def __call__(self, task: RunTask) -> RunOutcome:
        self.calls += 1
        if self.calls > self.after:
            raise RuntimeError("the session was stopped")
        return bowl_runner(task)
