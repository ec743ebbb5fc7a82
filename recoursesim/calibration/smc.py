"""ABC-SMC with pyabc: priors from ``--param`` ranges, a distance on standardised statistics, resumable.

The prior of each range is uniform on ``[low, high]`` (log-uniform with ``:log``). The distance is
pyabc's adaptive L2 distance, which divides each statistic by its median absolute deviation over the
last generation's simulations, so a count of hundreds and a mean score below one weigh alike. A
calibration keeps pyabc's history in an SQLite file; it runs one generation at a time, so each
generation is saved as it ends and ``--resume`` continues after the last one saved.

Particles run on pyabc's own samplers: one process, local processes, or a Dask cluster. They, not the
sweep engine, run the particles because ABC-SMC draws particles until enough are accepted: the
number of runs is not known in advance, and the samplers keep every worker busy until then.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.calibration.simulator import PanelSimulator
from recoursesim.errors import ConfigError
from recoursesim.policy.space import ParamRange

#: How to install the calibration's optional dependency.
CALIBRATE_INSTALL = "pip install 'recoursesim[calibrate]'"


def require_pyabc() -> ModuleType:
    """Import pyabc (the ``calibrate`` extra).

    Raises:
        ConfigError: pyabc is not installed, with the install command.
    """
    try:
        module = importlib.import_module("pyabc")
    except ImportError:
        raise ConfigError("pyabc", "is not installed (needed for recoursesim calibrate)", CALIBRATE_INSTALL) from None
    _quiet_pyabc()
    return module


def prior(ranges: tuple[ParamRange, ...]) -> Any:
    """The pyabc prior: independent uniform (or log-uniform) distributions over the ranges."""
    pyabc = require_pyabc()
    return pyabc.Distribution(
        **{r.key: pyabc.RV("loguniform", r.low, r.high) if r.log else pyabc.RV("uniform", r.low, r.high - r.low)
           for r in ranges}
    )  # fmt: skip


@dataclass(frozen=True)
class Generation:
    """One finished ABC-SMC generation, for the progress line and the notes."""

    t: int
    epsilon: float
    accepted: int
    runs: int
    seconds: float

    def line(self, generations: int, seeds: int) -> str:
        """``generation 2/6: epsilon 3.1, 100 accepted of 412 particles (…)`` with runs/s and the load."""
        load = " ".join(f"{v:.2f}" for v in os.getloadavg())
        rate = self.runs * seeds / self.seconds if self.seconds > 0 else float("nan")
        return (
            f"generation {self.t + 1}/{generations}: epsilon {self.epsilon:.4g}, {self.accepted} accepted of "
            f"{self.runs} particles ({self.runs * seeds} runs) in {self.seconds:.1f} s, {rate:.1f} runs/s, load {load}"
        )


def make_sampler(workers: int, client: Any = None) -> Any:
    """The pyabc sampler: a Dask client's, else local processes for ``workers > 1``, else this process."""
    pyabc = require_pyabc()
    if client is not None:
        return pyabc.sampler.DaskDistributedSampler(dask_client=client, batch_size=1)
    if workers > 1:
        return pyabc.sampler.MulticoreEvalParallelSampler(n_procs=workers)
    return pyabc.sampler.SingleCoreSampler()


@dataclass
class SMCRun:
    """An ABC-SMC calibration kept in an SQLite history file.

    Attributes:
        simulator: The panel simulator.
        observed: The observed summary statistics (:func:`~recoursesim.calibration.simulator.flatten`).
        database: The history file.
        population_size: Accepted particles per generation.
        sampler: A pyabc sampler (:func:`make_sampler`).
        seed: Seed of NumPy's global state before each generation (reproducible with one process).
    """

    simulator: PanelSimulator
    observed: dict[str, float]
    database: Path
    population_size: int
    sampler: Any
    seed: int = 0

    def _abc(self) -> Any:
        pyabc = require_pyabc()
        distance = pyabc.AdaptivePNormDistance(p=2, scale_function=pyabc.distance.mad, max_scale_weight_ratio=1e3)
        return pyabc.ABCSMC(
            self.simulator,
            prior(self.simulator.ranges),
            distance,
            population_size=self.population_size,
            sampler=self.sampler,
        )

    def run(self, generations: int, *, resume: bool, report: Callable[[Generation], None] | None = None) -> Any:
        """Run (or continue) until ``generations`` generations are saved; return pyabc's history.

        Args:
            generations: Generations in all, counting those already saved.
            resume: Continue the history in :attr:`database` instead of starting one.
            report: Called after each generation.

        Raises:
            ConfigError: Nothing to resume, or a history that does not belong to this calibration.
        """
        url = f"sqlite:///{self.database.absolute()}"
        abc = self._abc()
        if resume:
            history = abc.load(url, 1)
            saved = set(history.observed_sum_stat())
            if saved != set(self.observed):
                raise ConfigError("--resume", "the saved calibration compared other statistics", "use the same --data")
            names = set(history.get_distribution(m=0, t=history.max_t)[0].columns) if history.max_t >= 0 else set()
            if names and names != {r.key for r in self.simulator.ranges}:
                raise ConfigError(
                    "--resume", "the saved calibration has other parameters", "use the same --param options"
                )
        else:
            history = abc.new(url, self.observed)
        fresh = True
        while history.max_t + 1 < generations:
            if not fresh:
                # pyabc adapts the distance and epsilon between the generations of one run() call, or
                # when it loads a saved history: so each generation is a run() of a freshly loaded ABCSMC.
                abc = self._abc()
                abc.load(url, 1)
            fresh = False
            np.random.seed(self.seed + history.max_t + 1)  # noqa: NPY002 (pyabc draws from the global state)
            start = time.perf_counter()
            before = history.total_nr_simulations
            history = abc.run(max_nr_populations=1)
            populations = history.get_all_populations()
            last = populations.iloc[-1]
            if report is not None:
                report(
                    Generation(
                        int(last["t"]),
                        float(last["epsilon"]),
                        self.population_size,
                        int(history.total_nr_simulations - before),
                        time.perf_counter() - start,
                    )
                )
        return history


def posterior_sample(history: Any) -> pd.DataFrame:
    """The last generation's particles: one column per parameter and their normalised ``weight``."""
    frame, weights = history.get_distribution(m=0, t=history.max_t)
    frame = frame.reset_index(drop=True)
    frame.columns.name = None
    frame["weight"] = np.asarray(weights, dtype=float) / float(np.sum(weights))
    return frame


def _quiet_pyabc() -> None:
    """Silence pyabc's INFO line per generation: the calibration prints its own."""
    import logging

    for name in ("ABC", "ABC.History", "ABC.Sampler", "ABC.Distance", "ABC.Epsilon", "ABC.Population"):
        logging.getLogger(name).setLevel(logging.WARNING)
