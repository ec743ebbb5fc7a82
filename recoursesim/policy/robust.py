"""Robust policy choice: how each candidate policy fares across scenarios it cannot control.

The input is an outcome table: one row per candidate policy (a setting of the levers), one column
per scenario (a draw of the uncertainties), each cell the outcome of that policy in that scenario,
for instance the mean over seeds of ``dTTR:female``. Two measures from the literature on decisions
under deep uncertainty (McPhail et al. 2018 review both):

* **Regret** (Savage's minimax regret): a policy's regret in a scenario is how far its outcome is
  from the best outcome any candidate reaches in that scenario, ``|f(p, s) − best_p' f(p', s)|``.
  Its robustness is its regret in the worst scenario (or, with ``quantile < 1``, that quantile of
  its regrets over the scenarios); smaller is more robust.
* **Satisficing** (Starr's domain criterion): the share of scenarios in which the policy's outcome
  meets a threshold (``f ≤ threshold`` when the outcome is minimised, ``≥`` when maximised); larger
  is more robust.

Regret is relative to the candidates compared (adding a candidate can change every policy's
regret); satisficing is not. A NaN outcome (a metric undefined in a scenario) is refused: say what
it should count as first.

:func:`sample_scenarios` draws the uncertainty settings a set of policies is compared over (a
Latin hypercube, so few settings still spread over every range); ``recoursesim optimise`` uses it
to evaluate every trial over the same settings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError
from recoursesim.policy.space import ParamRange


def sample_scenarios(uncertainties: Sequence[ParamRange], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` settings of the uncertainties: a Latin hypercube sample, the same for the same seed.

    Each range is cut into ``n`` equal strata (on a log scale for ``:log`` ranges) and every
    stratum is drawn once; integer ranges are rounded.

    Args:
        uncertainties: The uncertain scenario fields and their ranges.
        n: Number of settings (``>= 1``).
        seed: Seed of the sample.

    Returns:
        One ``{key: value}`` dictionary per setting.

    Raises:
        ConfigError: No uncertainty, or ``n < 1``.
    """
    from scipy.stats import qmc

    if not uncertainties:
        raise ConfigError("--uncertainty", "no uncertainty given", "give one or more --uncertainty KEY=LO:HI")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigError("--scenarios", f"must be a positive integer, got {n!r}", "give e.g. --scenarios 8")
    unit = qmc.LatinHypercube(d=len(uncertainties), rng=np.random.default_rng(seed)).random(n)
    settings: list[dict[str, Any]] = [{} for _ in range(n)]
    for column, r in enumerate(uncertainties):
        low, high = (math.log(r.low), math.log(r.high)) if r.log else (r.low, r.high)
        draws = low + unit[:, column] * (high - low)
        for setting, x in zip(settings, np.exp(draws) if r.log else draws, strict=True):
            setting[r.key] = r.value(float(x))
    return settings


def _check_table(table: pd.DataFrame, min_policies: int = 2) -> np.ndarray:
    values = table.to_numpy(dtype=float)
    if values.ndim != 2 or values.shape[0] < min_policies or values.shape[1] < 1:
        what = "two or more policies" if min_policies > 1 else "a policy"
        raise ConfigError("policies", f"need {what} and a scenario, got {values.shape}", "add policies")
    if not np.isfinite(values).all():
        row, column = (int(i) for i in np.argwhere(~np.isfinite(values))[0])
        raise ConfigError(
            "outcome",
            f"is not finite for policy {table.index[row]!r} in scenario {table.columns[column]!r}",
            "fill undefined outcomes (e.g. with the worst value) before comparing policies",
        )
    return values


def regret(table: pd.DataFrame, *, maximise: bool = False) -> pd.DataFrame:
    """Each policy's regret in each scenario: its distance from the best candidate's outcome there.

    Args:
        table: Outcomes, one row per policy and one column per scenario.
        maximise: Larger outcomes are better (else smaller).

    Returns:
        A table of the same shape, ``≥ 0``, with a 0 in every column (the best policy there).

    Raises:
        ConfigError: Fewer than two policies, or an outcome that is not finite.
    """
    values = _check_table(table)
    best = values.max(axis=0) if maximise else values.min(axis=0)
    return pd.DataFrame(np.abs(values - best), index=table.index, columns=table.columns)


def satisficing(table: pd.DataFrame, threshold: float, *, maximise: bool = False) -> pd.Series:
    """Share of scenarios in which each policy's outcome meets ``threshold``.

    Args:
        table: Outcomes, one row per policy and one column per scenario.
        threshold: The outcome a policy must reach (at most it when minimising, at least it when maximising).
        maximise: Larger outcomes are better.

    Returns:
        Per policy, a share in [0, 1].

    Raises:
        ConfigError: No policy or scenario, an outcome that is not finite, or a threshold that is
            not finite (one policy is enough: satisficing needs no other to compare with).
    """
    if not math.isfinite(threshold):
        raise ConfigError("threshold", f"must be a finite number, got {threshold}", "give the outcome to reach")
    values = _check_table(table, min_policies=1)
    met = values >= threshold if maximise else values <= threshold
    return pd.Series(met.mean(axis=1), index=table.index, name="satisficing")


def robustness(table: pd.DataFrame, threshold: float, *, maximise: bool = False, quantile: float = 1.0) -> pd.DataFrame:
    """Regret and satisficing robustness of each policy, most robust (least regret) first.

    Args:
        table: Outcomes, one row per policy and one column per scenario.
        threshold: The satisficing threshold (:func:`satisficing`).
        maximise: Larger outcomes are better.
        quantile: Which quantile of a policy's regrets over the scenarios to report (1: the maximum).

    Returns:
        One row per policy: ``regret`` (the quantile of its regrets), ``satisficing`` (share of
        scenarios meeting the threshold), ``mean`` and ``worst`` outcome; sorted by regret, then
        by satisficing (descending).

    Raises:
        ConfigError: As :func:`regret`, or a quantile outside (0, 1].
    """
    if not (math.isfinite(quantile) and 0 < quantile <= 1):
        raise ConfigError("quantile", f"must be in (0, 1], got {quantile}", "give 1 for the maximum regret")
    regrets = regret(table, maximise=maximise).to_numpy()
    values = table.to_numpy(dtype=float)
    frame = pd.DataFrame(
        {
            "regret": np.quantile(regrets, quantile, axis=1),
            "satisficing": satisficing(table, threshold, maximise=maximise).to_numpy(),
            "mean": values.mean(axis=1),
            "worst": values.min(axis=1) if maximise else values.max(axis=1),
        },
        index=table.index,
    )
    frame.index.name = table.index.name or "policy"
    return frame.sort_values(["regret", "satisficing"], ascending=[True, False], kind="stable")
