"""Run time of a market of three lenders against the one-lender run of the same scenario.

Usage:
    python benchmarks/market.py [--repeats 5] [--json PATH] [--quick]

``--quick``: two timed pairs of runs.

The scenario is the bundled ``default`` scaled to 1,000 initial agents (100 entrants and
``k = 100`` a step), 20 steps, linear models. The market declares three lenders, each with its own
linear model (weights (0.5, 0.5), (0.6, 0.4), (0.4, 0.6)) and top-100 selection, and every applicant
applies to all three (``choice = all``, the most rows a step can have). Each lender keeps the
scenario's ``k``, so the market accepts more applicants a step and its waiting population is
smaller; the ledger rows of both runs are printed beside the times. Runs alternate (one-lender,
market, …) and the median times are compared; target: the market costs at most 3.5 times the
one-lender run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate

SIZE = {"population.initial": 1000, "population.entrants": 100, "selection.k": 100, "run.steps": 20}
WEIGHTS = ([0.5, 0.5], [0.6, 0.4], [0.4, 0.6])


def scenarios() -> tuple[Scenario, Scenario]:
    """The one-lender scenario and the three-lender market of the same scenario."""
    plain = Scenario.bundled("default").with_overrides(SIZE)
    lenders = [{"name": f"lender-{i}", "scorer": {"name": "linear", "weights": w}} for i, w in enumerate(WEIGHTS)]
    market = Scenario.from_dict({**plain.spec, "market": {"choice": {"name": "all"}}, "lenders": lenders})
    return plain, market


def timed(scenario: Scenario) -> tuple[float, int]:
    """Seconds one run takes, and its ledger rows."""
    start = time.perf_counter()
    result = simulate(scenario)
    return time.perf_counter() - start, len(result.model.ledger_store)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", default=None, help="write the figures as JSON to PATH")
    parser.add_argument("--quick", action="store_true", help="two timed pairs of runs")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else args.repeats
    plain, market = scenarios()
    timed(plain), timed(market)  # warm up imports and caches
    plain_s, market_s = [], []
    for _ in range(repeats):
        (seconds, plain_rows) = timed(plain)
        plain_s.append(seconds)
        (seconds, market_rows) = timed(market)
        market_s.append(seconds)
    one, three = statistics.median(plain_s), statistics.median(market_s)
    load = os.getloadavg()
    print(f"one lender: {one:.3f} s, {plain_rows} ledger rows; three lenders (choice all): {three:.3f} s, "
          f"{market_rows} rows; ratio {three / one:.2f} (target <= 3.5); median of {repeats}; "
          f"load average {' '.join(f'{v:.2f}' for v in load)}")  # fmt: skip
    out = {
        "one_lender_s": one,
        "three_lenders_s": three,
        "market_ratio": three / one,
        "rows_ratio": market_rows / plain_rows,
        "load_average": load[0],
    }
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
