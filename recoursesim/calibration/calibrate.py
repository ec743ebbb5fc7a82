"""Calibrate a scenario to an observed panel: ABC-SMC, then the posterior's estimates and predictive check."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from recoursesim.calibration.panel import PANEL_STATISTICS
from recoursesim.calibration.posterior import draws, predictive_bands, summary
from recoursesim.calibration.result import HISTORY_FILE, CalibrationResult
from recoursesim.calibration.simulator import PanelSimulator, flatten
from recoursesim.calibration.smc import Generation, SMCRun, make_sampler, posterior_sample
from recoursesim.policy.space import ParamRange
from recoursesim.scenario import Scenario


def panel_simulator(
    scenario: Scenario, observed: pd.DataFrame, ranges: Sequence[ParamRange], seeds: int
) -> PanelSimulator:
    """The simulator of a calibration to ``observed``: its statistics, steps and groups are the panel's.

    Raises:
        ConfigError: A range whose key is not a numeric scenario field (checked by building the scenario at
            each range's bounds).
    """
    for r in ranges:
        for bound in (r.low, r.high):
            scenario.with_overrides({r.key: r.value(bound)})
    statistics = tuple(s for s in PANEL_STATISTICS if s in observed.columns)
    groups = tuple(dict.fromkeys(observed["group"].astype(str)))
    return PanelSimulator(scenario, tuple(ranges), statistics, int(observed["step"].max()), groups, seeds)


def calibrate(
    scenario: Scenario,
    observed: pd.DataFrame,
    ranges: Sequence[ParamRange],
    out: Path,
    *,
    particles: int = 200,
    generations: int = 6,
    seeds: int = 1,
    workers: int = 1,
    client: Any = None,
    resume: bool = False,
    progress: bool = True,
    seed: int = 0,
    predictive_draws: int = 40,
) -> CalibrationResult:
    """Run ABC-SMC for ``scenario`` against the ``observed`` panel, keeping the history in ``out``.

    Args:
        scenario: The scenario; the ranges' keys are its free parameters.
        observed: The observed panel (:func:`~recoursesim.calibration.panel.read_panel`).
        ranges: The free parameters and their prior ranges.
        out: An existing directory for the history file (the result is written by the caller).
        particles: Accepted particles per generation.
        generations: ABC-SMC generations in all (counting those a resumed calibration saved).
        seeds: Runs per particle, averaged.
        workers: Local worker processes (ignored with ``client``).
        client: A ``distributed.Client`` to run the particles on, or ``None``.
        resume: Continue the history in ``out``.
        progress: Print one line per generation on stderr.
        seed: Seed of the ABC-SMC draws (reproducible with one worker) and of the predictive draws.
        predictive_draws: Posterior draws simulated for the predictive check and written to ``posterior.toml``.

    Returns:
        The result, not yet written (:meth:`CalibrationResult.write`).
    """
    simulator = panel_simulator(scenario, observed, ranges, seeds)
    observed_stats = flatten(observed, simulator.statistics)
    smc = SMCRun(simulator, observed_stats, out / HISTORY_FILE, particles, make_sampler(workers, client), seed)
    done: list[Generation] = []

    def report(generation: Generation) -> None:
        done.append(generation)
        if progress:
            print(generation.line(generations, seeds), file=sys.stderr, flush=True)

    start = time.perf_counter()
    history = smc.run(generations, resume=resume, report=report)
    sample = posterior_sample(history)
    keys = [r.key for r in ranges]
    estimates = summary(sample, keys)
    bands = predictive_bands(simulator, draws(sample, keys, predictive_draws, seed), seed)
    seconds = time.perf_counter() - start
    runs = sum(g.runs for g in done) * seeds
    notes = {
        "scenario": scenario.name,
        "parameters": [asdict(r) for r in ranges],
        "statistics": list(simulator.statistics),
        "groups": list(simulator.groups),
        "last_step": simulator.last_step,
        "particles": particles,
        "generations_requested": generations,
        "seeds_per_particle": seeds,
        "workers": workers if client is None else "dask",
        "generations": [asdict(g) for g in done],
        "runs_now": runs,
        "seconds_now": round(seconds, 3),
        "runs_per_second": round(runs / max(sum(g.seconds for g in done), 1e-9), 3) if done else None,
        "total_simulations": int(history.total_nr_simulations),
    }
    return CalibrationResult(scenario, simulator, observed, sample, estimates, bands, notes, seed, predictive_draws)
