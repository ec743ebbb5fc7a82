"""How much the per-step shift and ground-truth observers add to a run's time (for the benchmarks)."""

from __future__ import annotations

import copy
import statistics
import time
from typing import Any

from recoursesim.scenario import Scenario


def shift_overhead(spec: dict[str, Any], truth: dict[str, Any], repeats: int = 3, every: int = 5) -> dict[str, float]:
    """Median run time of ``spec`` without and with the shift observers, and the relative overhead.

    The observers are the four shift and ground-truth observers at their defaults, every ``every``
    steps. Runs alternate (plain, observed) for seeds ``1 … repeats`` after one warm-up pair, so
    both see the same machine load; the overhead is ``median(observed) / median(plain) - 1``, in
    wall-clock time and in this process's CPU time (all its threads; less sensitive to other
    processes' load).

    Returns:
        ``{"plain_s", "observed_s", "overhead", "plain_cpu_s", "observed_cpu_s", "cpu_overhead"}``.
    """
    plain = Scenario.from_dict(copy.deepcopy(spec))
    names = ("domain_shift", "model_shift", "selection_boundary")
    tables = [*({"name": name, "every": every} for name in names), {"name": "ground_truth", "every": every, **truth}]
    observed = Scenario.from_dict(copy.deepcopy(spec) | {"observers": tables})
    times: dict[str, list[float]] = {"plain": [], "observed": [], "plain_cpu": [], "observed_cpu": []}
    for seed in range(repeats + 1):
        for label, scenario in (("plain", plain), ("observed", observed)):
            start, start_cpu = time.perf_counter(), time.process_time()
            scenario.build_model(seed).run()
            if seed:  # seed 0 warms caches and imports
                times[label].append(time.perf_counter() - start)
                times[f"{label}_cpu"].append(time.process_time() - start_cpu)
    median = {label: statistics.median(values) for label, values in times.items()}
    return {
        "plain_s": median["plain"],
        "observed_s": median["observed"],
        "overhead": median["observed"] / median["plain"] - 1.0,
        "plain_cpu_s": median["plain_cpu"],
        "observed_cpu_s": median["observed_cpu"],
        "cpu_overhead": median["observed_cpu"] / median["plain_cpu"] - 1.0,
    }
