"""Real-data speed: German credit and Adult runs with gradient boosting and the search generator, and DiCE.

Usage:
    python benchmarks/real_data.py [--adult-agents 10000] [--dice-agents 10] [--json PATH] [--quick]

``--quick``: Adult with 1,000 agents, 2 DiCE agents, one shift-overhead pair.

Targets (idle machine): the German-credit run <= 2 s; the Adult run with 10,000 initial agents
(full mode) <= 20 s. Both lines print the target beside the figure.

Prints and (with ``--json``) writes:

- ``german_gbm_run_s``: one German-credit run (1,000 initial agents, 100 entrants and k = 100 per
  step, steps 0..20, the built-in gradient-boosting model, ``search`` recourse, bounded effort);
- ``adult_gbm_run_s`` and ``adult_n_agents``: the same on Adult with ``--adult-agents`` initial
  agents (entrants and k one tenth of that);
- ``dice_recommend_per_agent_s``: the ``dice`` generator's time per agent on German credit
  (random method, 4 counterfactuals), over ``--dice-agents`` rejected agents;
- ``search_recommend_per_agent_s``: the ``search`` generator's time per agent on the same agents;
- ``german_gbm_cpu_s`` and ``adult_gbm_cpu_s``: the CPU time of the same runs (less sensitive
  than wall-clock time to other programs sharing the machine);
- ``shift_overhead``: the relative run-time cost of the shift and ground-truth observers every 5
  steps on German credit (see ``benchmarks/shift_overhead.py``; target <= 0.20);
- ``load_average``: the machine's 1-minute load average before and after (timings on a busy
  machine are slower).

Each run is timed in-process after the model is built (building fits the decision model).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from shift_overhead import german_overhead  # this folder is on sys.path when run as a script

from recoursesim.scenario import Scenario

#: Targets: a German-credit run, and an Adult run with 10,000 initial agents (full mode), in seconds.
GERMAN_TARGET_S = 2.0
ADULT_TARGET_S = 20.0
ADULT_TARGET_AGENTS = 10_000


def run_spec(dataset: str, group: str, n: int) -> dict:
    """The benchmark scenario: ``n`` initial agents, steps 0..20, gradient boosting, search recourse."""
    return {
        "run": {"steps": 20, "seed": 0},
        "population": {"name": "dataset", "dataset": dataset, "group": group, "initial": n, "entrants": n // 10},
        "scorer": {"name": "model", "model": "gradient_boosting"},
        "selection": {"name": "top_k", "k": n // 10},
        "recourse": {"name": "search"},
        "behaviour": {"name": "bounded_effort"},
    }


def time_run(spec: dict) -> tuple[float, float, int]:
    """Wall-clock and CPU seconds of one run (after building the model), and the agents it ever held."""
    model = Scenario.from_dict(spec).build_model(0)
    start, cpu = time.perf_counter(), time.process_time()
    model.run()
    return time.perf_counter() - start, time.process_time() - cpu, int(model.table.n)


def time_dice(n_agents: int) -> tuple[float, float]:
    """Per-agent seconds of ``dice`` and of ``search`` on the same rejected German-credit agents."""
    from recoursesim.registry import build

    model = Scenario.from_dict(run_spec("german", "sex", 1000)).build_model(0)
    features = model.table.features[model.waiting_ids]
    scores = np.asarray(model.scorer.score(features), dtype=float)
    threshold = float(np.sort(scores)[-100])
    rows = np.flatnonzero(scores < threshold)[:n_agents]
    population = model.population
    extras = {"schema": population.schema, "action_defaults": population.default_action_set, "population": population}
    out = []
    for name in ("dice", "search"):
        generator = build("recourse", {"name": name}, **extras)
        start = time.perf_counter()
        generator.recommend(features[rows], scores[rows], threshold, model.scorer)
        out.append((time.perf_counter() - start) / rows.size)
    return out[0], out[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--adult-agents", type=int, default=10_000)
    parser.add_argument("--dice-agents", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--shift-repeats", type=int, default=3, help="timed run pairs for shift_overhead")
    parser.add_argument("--quick", action="store_true", help="Adult 1,000 agents, 2 DiCE agents, 1 shift pair")
    args = parser.parse_args(argv)
    if args.quick:
        args.adult_agents, args.dice_agents, args.shift_repeats = 1000, 2, 1
    load_before = os.getloadavg()[0]
    german, german_cpu, _ = time_run(run_spec("german", "sex", 1000))
    print(
        f"German credit, 1,000 agents, steps 0..20, gradient boosting + search: {german:.2f} s "
        f"({german_cpu:.2f} s CPU; target <= {GERMAN_TARGET_S:g} s on an idle machine)"
    )
    adult, adult_cpu, total = time_run(run_spec("adult", "sex", args.adult_agents))
    target = f"; target <= {ADULT_TARGET_S:g} s on an idle machine" if args.adult_agents == ADULT_TARGET_AGENTS else ""
    print(
        f"Adult, {args.adult_agents:,} initial agents ({total:,} in all), steps 0..20: "
        f"{adult:.2f} s ({adult_cpu:.2f} s CPU{target})"
    )
    dice, search = time_dice(args.dice_agents)
    print(f"recommendation per agent on German credit: dice {dice:.3f} s, search {search * 1e3:.2f} ms")
    shift = german_overhead(args.shift_repeats)
    load_after = os.getloadavg()[0]
    print(f"1-minute load average: {load_before:.2f} before, {load_after:.2f} after (2 cores)")
    if args.json is not None:
        figures = {
            "german_gbm_run_s": german,
            "german_gbm_cpu_s": german_cpu,
            "adult_gbm_run_s": adult,
            "adult_gbm_cpu_s": adult_cpu,
            "adult_n_agents": args.adult_agents,
            "dice_recommend_per_agent_s": dice,
            "search_recommend_per_agent_s": search,
            "shift_overhead": shift.get("shift_overhead", float("nan")),
            "load_average": [load_before, load_after],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
