"""How much the per-step shift and ground-truth observers add to a run's time (for the benchmarks)."""

from __future__ import annotations

import copy
import statistics
import time
from typing import Any

from recoursesim.scenario import Scenario


def shift_observer_tables(truth: dict[str, Any], every: int = 5) -> list[dict[str, Any]]:
    """The four shift and ground-truth observers at their defaults, every ``every`` steps."""
    return [
        {"name": "domain_shift", "every": every},
        {"name": "model_shift", "every": every},
        {"name": "selection_boundary", "every": every},
        {"name": "ground_truth", "every": every, **truth},
    ]


def shift_overhead(spec: dict[str, Any], truth: dict[str, Any], repeats: int = 3, every: int = 5) -> dict[str, float]:
    """Median run time of ``spec`` without and with the shift observers, and the relative overhead.

    Runs alternate (plain, observed) for seeds ``1 … repeats`` after one warm-up pair, so both see
    the same machine load; the overhead is ``median(observed) / median(plain) - 1``.

    Returns:
        ``{"plain_s", "observed_s", "overhead"}``.
    """
    plain = Scenario.from_dict(copy.deepcopy(spec))
    observed = Scenario.from_dict(copy.deepcopy(spec) | {"observers": shift_observer_tables(truth, every)})
    times: dict[str, list[float]] = {"plain": [], "observed": []}
    for seed in range(repeats + 1):
        for label, scenario in (("plain", plain), ("observed", observed)):
            start = time.perf_counter()
            scenario.build_model(seed).run()
            if seed:  # seed 0 warms caches and imports
                times[label].append(time.perf_counter() - start)
    plain_s, observed_s = statistics.median(times["plain"]), statistics.median(times["observed"])
    return {"plain_s": plain_s, "observed_s": observed_s, "overhead": observed_s / plain_s - 1.0}
