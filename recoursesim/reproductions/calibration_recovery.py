"""Does calibration recover what it claims? Recovery and simulation-based calibration on synthetic panels.

Used by ``experiments/calibration_recovery.py``. For each scenario and each panel ``i``: draw true
parameters from the prior, simulate an "observed" panel at them (its own seed), calibrate with
ABC-SMC and record, per parameter, the posterior median's error, whether the 90 % credible interval
covers the truth, and the truth's rank among the posterior particles (the weighted share of particles
below it). If the calibration is right, the ranks over panels are uniform on [0, 1] (Kolmogorov–Smirnov
test) and the intervals cover the truth in about 90 % of panels. Sizes (panels, particles,
generations, run length) are options; each finished panel is written at once, so a stopped
experiment continues where it stopped.
"""

from __future__ import annotations

import argparse
import gzip
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from recoursesim.calibration import PanelSimulator, calibrate
from recoursesim.cli._common import Parser, non_negative_int, positive_int
from recoursesim.errors import ConfigError
from recoursesim.output import write_atomic
from recoursesim.policy.space import parse_ranges
from recoursesim.report.document import pipe_table
from recoursesim.reproductions.parallel import parallel_map
from recoursesim.scenario import Scenario

#: Scenario label -> (scenario table, free parameters as ``--param`` items).
SCENARIOS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "bell2024": ({"base": "bell2024-baseline"}, ["population.adaptation=0.1:1.0", "population.q=0:3"]),
    "german-credit": (
        {
            "base": "german-credit-lending",
            "population": {"initial": 200, "entrants": 10},
            "selection": {"k": 10},
            "recourse": {"search": {"rounds": 0}},
        },
        ["population.effort.scale=0.02:0.3", "selection.k=4:20"],
    ),
    # The same bank lending to everyone it scores at or above a cut-off instead of to its k best.
    "german-credit-threshold": (
        {
            "base": "german-credit-lending",
            "population": {"initial": 200, "entrants": 10},
            "selection": {"name": "threshold", "threshold": 0.7},
            "recourse": {"search": {"rounds": 0}},
        },
        ["population.effort.scale=0.02:0.3", "selection.threshold=0.5:0.85"],
    ),
    "fico": (
        {"base": "fico-delayed-impact-recourse", "population": {"initial": 500}},
        ["population.effort.scale=2:20", "outcome.score_change.repaid=25:125"],
    ),
    # The same population with effort fixed at the scenario's scale (10): repayment alone.
    "fico-repayment": (
        {"base": "fico-delayed-impact-recourse", "population": {"initial": 500}},
        ["outcome.score_change.repaid=25:125"],
    ),
}
#: Fewest panels for the Kolmogorov–Smirnov test of the ranks.
MIN_KS_PANELS = 10
#: Columns of the kept runs: one row per (scenario, panel, parameter).
COLUMNS = ("scenario", "panel", "parameter", "truth", "median", "low", "high", "covered", "rank", "particles",
           "generations", "steps", "runs", "seconds")  # fmt: skip


def one_panel(label: str, panel: int, args: argparse.Namespace) -> pd.DataFrame:
    """Simulate panel ``panel`` of scenario ``label`` at its true parameters, calibrate, and score the posterior."""
    table, items = SCENARIOS[label]
    scenario = Scenario.from_dict({**table, "run": {"steps": args.steps, "seed": 0}})
    ranges = parse_ranges(items)
    prior = np.random.default_rng([args.seed, panel])  # the panel's true parameters: a draw from the uniform prior
    truth = {r.key: float(prior.uniform(r.low, r.high)) for r in ranges}
    groups = tuple(scenario.build_model(0).group_names)
    simulator = PanelSimulator(scenario, tuple(ranges), tuple(args.statistics), args.steps, groups, 1)
    observed = simulator.panel(truth, [int(np.random.SeedSequence([args.seed, panel, 1]).generate_state(1)[0])])
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="calibration-") as work:
        result = calibrate(
            scenario,
            observed,
            ranges,
            Path(work),
            particles=args.particles,
            generations=args.generations,
            progress=False,
            seed=args.seed * 1000 + panel,
            predictive_draws=2,
        )
    weights = result.sample["weight"].to_numpy()
    rows = []
    for _, est in result.estimates.iterrows():
        key = est["parameter"]
        below = float(np.sum(weights[result.sample[key].to_numpy() < truth[key]]))
        rows.append(
            {
                "scenario": label,
                "panel": panel,
                "parameter": key,
                "truth": truth[key],
                "median": est["median"],
                "low": est["low"],
                "high": est["high"],
                "covered": bool(est["low"] <= truth[key] <= est["high"]),
                "rank": below,
                "particles": args.particles,
                "generations": args.generations,
                "steps": args.steps,
                "runs": result.notes["total_simulations"],
                "seconds": round(time.perf_counter() - start, 2),
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def panel_file(label: str, panel: int, steps: int) -> str:
    """The file a finished panel is kept in, under ``--out/panels``."""
    return f"{label}-{steps}steps-{panel:03d}.csv"


def _run_panel(label: str, panel: int, args: argparse.Namespace) -> None:
    path = args.out / "panels" / panel_file(label, panel, args.steps)
    if path.exists():
        return
    frame = one_panel(label, panel, args)
    write_atomic(path, frame.to_csv(index=False).encode("utf-8"))


def markdown_table(rows: pd.DataFrame, scenarios: list[str]) -> str:
    """Per scenario, run length and parameter: panels, median |error|, 90 % interval coverage, and the rank KS test.

    The KS test of the ranks' uniformity needs :data:`MIN_KS_PANELS` panels; with fewer it reads "n/a".
    """
    out = []
    chosen = rows[rows["scenario"].isin(scenarios)]
    for (label, steps, key), part in chosen.groupby(["scenario", "steps", "parameter"], sort=False):
        ranks = part["rank"].to_numpy(dtype=float)
        ks = f"{stats.kstest(ranks, 'uniform').pvalue:.2f}" if len(part) >= MIN_KS_PANELS else "n/a"
        covered = int(part["covered"].sum())
        out.append(
            {
                "scenario": label,
                "steps": int(steps),
                "parameter": key,
                "panels": len(part),
                "particles × generations": f"{int(part['particles'].iloc[0])} × {int(part['generations'].iloc[0])}",
                "median abs. error": f"{float(np.median(np.abs(part['median'] - part['truth']))):.3f}",
                "median 90% width": f"{float(np.median(part['high'] - part['low'])):.3f}",
                "90% coverage": f"{covered}/{len(part)} ({covered / len(part):.0%})",
                "rank KS p": ks,
            }
        )
    return pipe_table(pd.DataFrame(out))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The experiment's options."""
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=list(SCENARIOS), action="append", required=True)
    parser.add_argument("--panels", type=positive_int, default=50, help="synthetic panels per scenario (default 50)")
    parser.add_argument("--particles", type=positive_int, default=100, help="accepted particles per generation (100)")
    parser.add_argument("--generations", type=positive_int, default=4, help="ABC-SMC generations (default 4)")
    parser.add_argument("--steps", type=positive_int, default=20, help="run length T (default 20, the paper's)")
    parser.add_argument("--statistics", nargs="+", default=["applicants", "approvals", "reapplicants", "mean_score"])
    parser.add_argument("--workers", type=positive_int, default=1, help="panels calibrated at once (default 1)")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results/calibration_recovery"))
    parser.add_argument(
        "--collect", action="store_true", help="run nothing: tabulate the panels already finished in --out"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the experiment; write ``--out/calibration_recovery.csv.gz`` and print the table.

    Rows already in that file for scenarios not run now, or run now at another ``--steps``, are kept, so one
    file holds every scenario's panels at every run length.
    """
    args = parse_args(argv)
    (args.out / "panels").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    jobs = [(label, panel) for label in args.scenario for panel in range(args.panels)]
    if not args.collect:
        parallel_map(_run_panel, [(label, panel, args) for label, panel in jobs], args.workers)
    paths = [args.out / "panels" / panel_file(label, panel, args.steps) for label, panel in jobs]
    frames = [pd.read_csv(path) for path in paths if path.is_file()]
    if not frames:
        raise ConfigError("--out", f"{args.out} holds no finished panel", "run the experiment without --collect")
    rows = pd.concat(frames, ignore_index=True)
    kept = args.out / "calibration_recovery.csv.gz"
    if kept.is_file():  # the kept rows of scenarios and run lengths not run now stay
        earlier = pd.read_csv(kept)
        replaced = earlier["scenario"].isin(args.scenario) & (earlier["steps"] == args.steps)
        rows = pd.concat([earlier[~replaced], rows], ignore_index=True)
    data = gzip.compress(rows.to_csv(index=False).encode("utf-8"), mtime=0)
    write_atomic(kept, data)
    print(markdown_table(rows, args.scenario))
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    seconds = time.perf_counter() - start
    print(f"{len(frames)} panels of {len(jobs)} finished; {seconds:.0f} s now, {args.workers} workers; load {load}")
    return 0
