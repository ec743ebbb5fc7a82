"""What a calibration concludes: posterior medians and credible intervals, runnable scenarios, predictive bands.

The posterior is the last ABC-SMC generation's weighted particles. Its median and the 5 % and 95 %
weighted quantiles (interpolated, :func:`weighted_quantile`) give each parameter's estimate and
90 % credible interval; ``best.toml`` is the
scenario at the medians; ``posterior.toml`` holds equally weighted draws for runs that sample the
posterior; the posterior predictive check simulates panels at draws and summarises them per
(statistic, step, group) as a median and a 90 % band.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.calibration.simulator import PanelSimulator, parameter_overrides
from recoursesim.errors import ConfigError
from recoursesim.policy.space import ParamRange
from recoursesim.scenario import Scenario
from recoursesim.scenario.tables import dump_toml

#: The credible level of the intervals.
LEVEL = 0.9


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The ``q`` quantile of weighted particles, interpolated between their plotting positions.

    Of ``n`` particles sorted by value, the ``i``-th sits at ``C_i · n / (n + 1)``, where ``C_i`` is the
    normalised weight of it and every smaller one; the quantile interpolates linearly between these
    positions (and is the smallest or largest value beyond them). With equal weights the positions are
    ``i / (n + 1)``, numpy's ``method="weibull"``: the interval between the 5 % and 95 % quantiles of
    ``n`` draws then covers one more draw from the same distribution 90 % of the time whatever ``n``,
    where the smallest value whose cumulative weight reaches ``q`` covers it less often the fewer the
    particles (84.6 % for 25).
    """
    order = np.argsort(values, kind="stable")
    sorted_values = np.asarray(values, dtype=float)[order]
    sorted_weights = np.asarray(weights, dtype=float)[order]
    keep = sorted_weights > 0  # a particle of no weight has no position
    n = int(np.count_nonzero(keep))
    positions = np.cumsum(sorted_weights[keep]) / np.sum(sorted_weights[keep]) * n / (n + 1)
    return float(np.interp(q, positions, sorted_values[keep]))


def summary(sample: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per parameter: weighted posterior median and the 90 % credible interval.

    Args:
        sample: Particles with a ``weight`` column (:func:`~recoursesim.calibration.smc.posterior_sample`).
        keys: The parameter columns.
    """
    weights = sample["weight"].to_numpy(dtype=float)
    rows = []
    for key in keys:
        values = sample[key].to_numpy(dtype=float)
        low, median, high = (weighted_quantile(values, weights, q) for q in ((1 - LEVEL) / 2, 0.5, (1 + LEVEL) / 2))
        rows.append({"parameter": key, "median": median, "low": low, "high": high})
    return pd.DataFrame(rows)


def draws(sample: pd.DataFrame, keys: Sequence[str], n: int, seed: int) -> pd.DataFrame:
    """``n`` equally weighted draws of the posterior (particles resampled by weight, with replacement)."""
    rng = np.random.default_rng(seed)
    weights = sample["weight"].to_numpy(dtype=float)
    index = rng.choice(len(sample), size=n, replace=True, p=weights / weights.sum())
    return sample.iloc[index][list(keys)].reset_index(drop=True)


def best_toml(scenario: Scenario, simulator: PanelSimulator, table: pd.DataFrame) -> str:
    """The scenario at the posterior medians, as a runnable scenario file."""
    medians = dict(zip(table["parameter"], table["median"], strict=True))
    best = scenario.with_overrides(parameter_overrides(simulator.ranges, medians))
    header = "Posterior medians of recoursesim calibrate: " + ", ".join(
        f"{key} = {value:.6g}" for key, value in medians.items()
    )
    return dump_toml(best.spec, header)


def posterior_toml(scenario: Scenario, sample: pd.DataFrame, ranges: Sequence[ParamRange], n: int, seed: int) -> str:
    """``n`` equally weighted posterior draws, as TOML: ``[posterior]`` with the scenario and one list per key.

    Each value is the one the runs used (whole numbers for integer ranges), so a sweep over the
    draws runs the scenarios the calibration ran.
    """
    keys = [r.key for r in ranges]
    table = draws(sample, keys, n, seed)
    return dump_toml(
        {
            "posterior": {
                "scenario": scenario.name,
                "draws": n,
                "parameters": {r.key: [r.value(v) for v in table[r.key]] for r in ranges},
            }
        },
        "Equally weighted draws from the posterior of recoursesim calibrate; run them with "
        "recoursesim sweep SCENARIO --posterior posterior.toml, read them with recoursesim.calibration.read_posterior.",
    )


def read_posterior(path: str | Path) -> pd.DataFrame:
    """The draws of a ``posterior.toml`` as a frame: one column per parameter, one row per draw.

    Raises:
        ConfigError: An unreadable file, or one without ``[posterior.parameters]`` lists of equal length.
    """
    import tomllib

    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        parameters: dict[str, Any] = table["posterior"]["parameters"]
        frame = pd.DataFrame({key: _numbers(values) for key, values in parameters.items()})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as error:
        fix = "give a posterior.toml written by recoursesim calibrate"
        raise ConfigError(str(path), f"is not a posterior file ({type(error).__name__}: {error})", fix) from None
    return frame


def _numbers(values: Any) -> np.ndarray:
    """A parameter's draws: whole numbers stay integers (integer ranges), anything else is read as floats."""
    array = np.asarray(values)
    return array if array.dtype.kind == "i" else np.asarray(values, dtype=float)


def predictive_bands(simulator: PanelSimulator, table: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The posterior predictive panels' median and 90 % band per (statistic, step, group).

    Args:
        simulator: The calibration's simulator (one seed per draw is run).
        table: Equally weighted draws (:func:`draws`).
        seed: Root of the runs' seeds.

    Returns:
        Columns ``statistic, step, group, median, low, high``.
    """
    seeds = np.random.SeedSequence(seed).generate_state(len(table))
    rows = table.to_dict("records")
    panels = [simulator.panel(row, [int(s)]) for row, s in zip(rows, seeds, strict=True)]
    long = pd.concat(panels, ignore_index=True).melt(
        id_vars=["step", "group"], value_vars=list(simulator.statistics), var_name="statistic"
    )
    grouped = long.groupby(["statistic", "step", "group"], sort=False)["value"]
    alpha = (1 - LEVEL) / 2
    bands = grouped.quantile(0.5).rename("median").to_frame()
    bands["low"] = grouped.quantile(alpha)
    bands["high"] = grouped.quantile(1 - alpha)
    return bands.reset_index()
