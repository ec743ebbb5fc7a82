"""The simulator a calibration fits: scenario parameters in, a run's panel statistics out.

One call runs the scenario with the particle's parameters for ``seeds`` seeds and averages their
panels (:func:`~recoursesim.calibration.panel.panel_statistics`); :func:`flatten` turns a panel,
observed or simulated, into the named summary statistics the distance compares.

A calibration runs one scenario thousands of times, so what does not change between its runs is
reused: the scenario is validated once (at each range's bounds, by
:func:`~recoursesim.calibration.calibrate.panel_simulator`) rather than at every particle (see
:meth:`PanelSimulator.run`). Everything a run draws or fits from its seed
(the population, its split and scaler, the decision model) is built afresh, as a plain run builds
it: a run through :meth:`PanelSimulator.run` is bit-identical to
:func:`~recoursesim.simulate.simulate` of the scenario with the same overrides and seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.calibration.panel import panel_statistics
from recoursesim.policy.space import ParamRange
from recoursesim.scenario import Scenario
from recoursesim.simulate import RunResult, simulate


def flatten(panel: pd.DataFrame, statistics: Sequence[str]) -> dict[str, float]:
    """Named summary statistics of a panel: ``"<statistic>|<group>|<step>"`` → value.

    A ``mean_score`` of a (step, group) with no applicant (NaN) counts as 0, so a simulation that
    leaves a group empty is far from a panel where it is not, instead of never comparable.

    Args:
        panel: A panel (:func:`~recoursesim.calibration.panel.panel_statistics` or
            :func:`~recoursesim.calibration.panel.read_panel`).
        statistics: The statistic columns to use.
    """
    out: dict[str, float] = {}
    steps = panel["step"].to_numpy()
    groups = panel["group"].astype(str).to_numpy()
    for column in statistics:
        values = np.nan_to_num(panel[column].to_numpy(dtype=float), nan=0.0)
        out.update({f"{column}|{g}|{int(s)}": float(v) for g, s, v in zip(groups, steps, values, strict=True)})
    return out


def parameter_overrides(ranges: Sequence[ParamRange], params: Mapping[str, float]) -> dict[str, int | float]:
    """The scenario overrides of a particle: each range's value (rounded for integer ranges)."""
    return {r.key: r.value(float(params[r.key])) for r in ranges}


@dataclass(frozen=True)
class PanelSimulator:
    """Run a scenario at a particle's parameters and return its panel statistics (picklable).

    Attributes:
        scenario: The scenario calibrated.
        ranges: The free parameters.
        statistics: The statistic columns compared.
        last_step: The panel's last step (steps ``0 … last_step`` are compared).
        groups: The groups compared.
        seeds: Runs per particle; their panels are averaged (more seeds, less simulation noise).
    """

    scenario: Scenario
    ranges: tuple[ParamRange, ...]
    statistics: tuple[str, ...]
    last_step: int
    groups: tuple[str, ...]
    seeds: int = 1

    def panel(self, params: Mapping[str, float], seeds: Sequence[int]) -> pd.DataFrame:
        """The mean panel over runs at ``params`` with the given run seeds."""
        panels = [self._one(self.run(params, seed)) for seed in seeds]
        if len(panels) == 1:
            return panels[0]
        mean = panels[0].copy()
        columns = list(self.statistics)
        mean[columns] = np.mean([p[columns].to_numpy(dtype=float) for p in panels], axis=0)
        return mean

    def run(self, params: Mapping[str, float], seed: int) -> RunResult:
        """One run at ``params`` with run seed ``seed``, the scenario not validated again.

        :meth:`Scenario.with_overrides` validates the whole table by building every component once
        more (a dry run); the keys were validated at both bounds of their ranges when the
        calibration began (:func:`~recoursesim.calibration.calibrate.panel_simulator`), and a value
        between the bounds is a number of the same kind, so each particle skips it.
        """
        overrides = parameter_overrides(self.ranges, params)
        return simulate(self.scenario.with_overrides(overrides, validate=False), seed)

    def _one(self, result: RunResult) -> pd.DataFrame:
        panel = panel_statistics(result.ledger, list(result.model.group_names), result.scenario.steps)
        panel = panel[(panel["step"] <= self.last_step) & panel["group"].isin(self.groups)]
        return panel.reset_index(drop=True)

    def __call__(self, params: Mapping[str, float]) -> dict[str, float]:
        """Statistics of ``seeds`` runs at ``params``; run seeds come from NumPy's global state, which pyabc seeds."""
        seeds = [int(s) for s in np.random.randint(0, 2**31 - 1, size=self.seeds)]  # noqa: NPY002
        return flatten(self.panel(params, seeds), self.statistics)
