"""Runs per second of a calibration's simulator: each particle's run built afresh, against the reusing simulator.

Usage:
    python benchmarks/calibration.py [--runs 12] [--json PATH] [--quick]

``--quick``: 4 runs of each kind per scenario.

For the scenarios of the recovery experiment (``experiments/calibration_recovery.py``:
``bell2024-baseline`` at 10 steps, German credit at 200 applicants, 10 entrants, k = 10, 6 steps
and the search generator without correction rounds), the same particles (parameters drawn
across the prior) and run seeds are run two ways, alternately so both see the same load:

- *afresh*, as a calibration ran each particle before: the scenario validated again at the
  particle's values (:meth:`~recoursesim.scenario.Scenario.with_overrides`, a dry run that builds
  every component), constructor signatures read again and a bundled data set encoded again
  (their per-process caches cleared before each run), then the run and its panel;
- *reusing*, as :class:`~recoursesim.calibration.PanelSimulator` runs it now: the scenario not
  validated again, signatures and encoded data read once per process.

Both give the same ledger (``tests/calibration/test_reuse.py``). Prints runs per second of each,
in wall-clock and CPU time, their ratio, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable

import numpy as np

from recoursesim.calibration import PanelSimulator, panel_statistics
from recoursesim.calibration.simulator import parameter_overrides
from recoursesim.policy.space import parse_ranges
from recoursesim.populations.dataset import _bundled_codes
from recoursesim.registry import constructor_signature
from recoursesim.reproductions.calibration_recovery import SCENARIOS
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate

#: Scenario label -> run length used by the recovery experiment's kept runs.
STEPS = {"bell2024": 10, "german-credit": 6}


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def measure(label: str, runs: int) -> dict[str, float]:
    """Runs per second afresh and reusing for one scenario, ``runs`` particles each."""
    table, items = SCENARIOS[label]
    steps = STEPS[label]
    scenario = Scenario.from_dict({**table, "run": {"steps": steps, "seed": 0}})
    ranges = tuple(parse_ranges(items))
    simulator = PanelSimulator(scenario, ranges, ("applicants",), steps, ())
    rng = np.random.default_rng(0)
    particles = [{r.key: float(rng.uniform(r.low, r.high)) for r in ranges} for _ in range(runs)]

    def afresh(params: dict[str, float], seed: int) -> None:
        constructor_signature.cache_clear()
        _bundled_codes.cache_clear()
        result = simulate(scenario.with_overrides(parameter_overrides(ranges, params)), seed)
        panel_statistics(result.ledger, list(result.model.group_names), steps)

    def reusing(params: dict[str, float], seed: int) -> None:
        simulator.panel(params, [seed])

    ways: dict[str, Callable[[dict[str, float], int], None]] = {"afresh": afresh, "reusing": reusing}
    for way in ways.values():  # warm up: imports, the data set read once per process
        way(particles[0], 0)
    wall = dict.fromkeys(ways, 0.0)
    cpu = dict.fromkeys(ways, 0.0)
    for seed, params in enumerate(particles, start=1):
        for name, way in ways.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            way(params, seed)
            wall[name] += time.perf_counter() - start
            cpu[name] += time.process_time() - start_cpu
    figures = {
        "afresh_runs_per_s": runs / wall["afresh"],
        "reusing_runs_per_s": runs / wall["reusing"],
        "afresh_cpu_s_per_run": cpu["afresh"] / runs,
        "reusing_cpu_s_per_run": cpu["reusing"] / runs,
    }
    figures["speedup_cpu"] = figures["afresh_cpu_s_per_run"] / figures["reusing_cpu_s_per_run"]
    print(f"{label} ({steps} steps, {runs} particles): afresh {figures['afresh_runs_per_s']:.2f} runs/s "
          f"({figures['afresh_cpu_s_per_run']:.3f} CPU s a run), reusing {figures['reusing_runs_per_s']:.2f} "
          f"runs/s ({figures['reusing_cpu_s_per_run']:.3f} CPU s a run): {figures['speedup_cpu']:.2f}x in CPU "
          f"time; load {load():.2f}")  # fmt: skip
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12, help="particles per scenario (default 12)")
    parser.add_argument("--json", default=None, help="write the figures as JSON to PATH")
    parser.add_argument("--quick", action="store_true", help="4 particles per scenario")
    args = parser.parse_args(argv)
    runs = 4 if args.quick else args.runs
    before = load()
    figures: dict[str, object] = {label: measure(label, runs) for label in STEPS}
    figures["load_average"] = {"before": before, "after": load()}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
