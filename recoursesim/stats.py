"""Across-seed statistics: the mean, its Student-t confidence interval, and differences of means.

One definition used by reports, sweep summaries, policy comparisons and the auditors:

* **Sample.** Non-finite values (NaN, ±inf: a metric undefined in that run) are left out; ``n``
  counts the finite values.
* **Mean and spread.** ``mean`` is the sample mean, ``sd`` the sample standard deviation
  (``ddof=1``) and ``sem = sd / √n``.
* **Interval.** ``mean ± t(1 − α/2, n − 1) · sem`` with the t quantile from scipy. A sample whose
  values are all equal has a zero-width interval.
* **Too few values.** With ``n = 1`` the mean is that value and ``sd``, ``sem`` and both bounds
  are NaN: one value says nothing about its spread. Text shows it as ``"0.123 (n = 1, no CI)"``
  (:func:`format_interval`). With ``n = 0`` everything is NaN (``"n/a"``).

Differences of two policies' means run on the same seeds (a comparison of policies over shared
seeds) are :func:`paired_difference`: the t interval of the per-seed differences and scipy's
paired t-test (:func:`scipy.stats.ttest_rel`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from recoursesim.errors import ConfigError

#: How :func:`format_interval` shows a mean that has no interval because it rests on one value.
NO_INTERVAL = "n = 1, no CI"


@dataclass(frozen=True)
class MeanInterval:
    """The mean of a sample and its Student-t interval (see the module docstring for the rules).

    Attributes:
        n: Finite values.
        mean: Their mean (NaN when ``n = 0``).
        sd: Sample standard deviation (NaN when ``n < 2``).
        sem: Standard error of the mean (NaN when ``n < 2``).
        low: Lower bound (NaN when ``n < 2``).
        high: Upper bound (NaN when ``n < 2``).
    """

    n: int
    mean: float
    sd: float
    sem: float
    low: float
    high: float


@dataclass(frozen=True)
class Difference:
    """A difference of means ``b − a`` with its interval and two-sided p-value.

    Attributes:
        n: Pairs that entered the test.
        difference: The difference of means.
        low: Lower bound of its interval (NaN when it cannot be estimated).
        high: Upper bound.
        p_value: Two-sided p-value of "no difference" (NaN when it cannot be estimated).
    """

    n: int
    difference: float
    low: float
    high: float
    p_value: float

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies entirely on one side of 0."""
        return bool(np.isfinite(self.low) and (self.low > 0 or self.high < 0))


def check_confidence(confidence: object) -> float:
    """Return ``confidence`` as a float if it lies in (0, 1), else raise :class:`ConfigError`."""
    if isinstance(confidence, bool) or not isinstance(confidence, float | int) or not 0 < confidence < 1:
        raise ConfigError("confidence", f"must be in (0, 1), got {confidence!r}", "use for example 0.95")
    return float(confidence)


def t_half_width(n: np.ndarray, sd: np.ndarray, confidence: float = 0.95) -> np.ndarray:
    """Half-width ``t(1 − α/2, n − 1) · sd / √n`` of the interval, element-wise; NaN where ``n < 2``.

    Args:
        n: Sample sizes.
        sd: Sample standard deviations (``ddof=1``).
        confidence: Coverage, in (0, 1).

    Returns:
        The half-widths, shaped like ``n``.
    """
    n = np.asarray(n, dtype=float)
    sd = np.asarray(sd, dtype=float)
    enough = n >= 2
    safe_n = np.where(enough, n, 2.0)
    quantile = stats.t.ppf(0.5 + confidence / 2, safe_n - 1)
    return np.where(enough, quantile * sd / np.sqrt(safe_n), math.nan)


def mean_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> MeanInterval:
    """Mean and Student-t interval of the finite entries of ``values``.

    Args:
        values: The sample (one value per seed, say).
        confidence: Coverage of the interval, in (0, 1).

    Returns:
        The :class:`MeanInterval`.
    """
    sample = _finite(values)
    n = int(sample.size)
    if n == 0:
        return MeanInterval(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = float(sample.mean())
    if n == 1:
        return MeanInterval(1, mean, math.nan, math.nan, math.nan, math.nan)
    sd = float(sample.std(ddof=1))
    half = float(t_half_width(np.array([n]), np.array([sd]), confidence)[0])
    return MeanInterval(n, mean, sd, sd / math.sqrt(n), mean - half, mean + half)


def bootstrap_interval(
    values: Sequence[float] | np.ndarray, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean of the finite entries of ``values``.

    The percentile interval lies inside the range of the sample, so a bounded quantity (a rate, a
    probability, a p-value) gets bounds inside its own range, where a Student-t interval can leave
    it (a precision of 1.02). It uses :func:`scipy.stats.bootstrap` with a fixed seed, so the same
    values give the same bounds.

    Args:
        values: The sample (one value per seed, say).
        confidence: Coverage of the interval, in (0, 1).
        n_resamples: Bootstrap resamples.
        seed: Seed of the resampling.

    Returns:
        ``(low, high)``; NaN for fewer than two finite values; the value itself when all are equal.
    """
    sample = _finite(values)
    if sample.size < 2:
        return math.nan, math.nan
    if np.all(sample == sample[0]):
        return float(sample[0]), float(sample[0])
    result = stats.bootstrap(
        (sample,),
        np.mean,
        confidence_level=check_confidence(confidence),
        n_resamples=n_resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def describe_groups(
    frame: pd.DataFrame, by: Sequence[str], column: str, confidence: float = 0.95, method: str = "t"
) -> pd.DataFrame:
    """:func:`mean_interval` of ``column`` for every key of ``by``, vectorised.

    Args:
        frame: Rows (one per seed and key).
        by: Key columns.
        column: The values.
        confidence: Coverage of the interval, in (0, 1).
        method: ``"t"`` (Student-t, for unbounded quantities) or ``"bootstrap"`` (percentile
            bootstrap of the mean, :func:`bootstrap_interval`, for bounded ones: rates, p-values).

    Returns:
        One row per key present in ``frame`` (sorted, NaN keys last), with the key columns and
        ``n, mean, sd, sem, ci_low, ci_high``; a key whose values are all non-finite has ``n = 0``.
    """
    keys = list(by)
    values = frame[column].to_numpy(dtype=float, na_value=math.nan)  # nullable columns: pd.NA counts as missing
    frame = frame[keys].assign(**{column: values})
    finite = frame.loc[np.isfinite(values), [*keys, column]]
    grouped = finite.groupby(keys, dropna=False, sort=False, observed=True)[column]
    moments = grouped.agg(n="count", mean="mean", sd=lambda v: v.std(ddof=1)).reset_index()
    table = frame[keys].drop_duplicates().merge(moments, on=keys, how="left")
    table = table.sort_values(keys, kind="stable", na_position="last", ignore_index=True)
    n = table["n"].fillna(0).astype("int64").to_numpy()
    mean = table["mean"].to_numpy(dtype=float)
    sd = np.where(n > 1, table["sd"].to_numpy(dtype=float), math.nan)
    with np.errstate(invalid="ignore"):
        sem = np.where(n > 1, sd / np.sqrt(np.maximum(n, 1)), math.nan)
    if method == "t":
        half = t_half_width(n, sd, confidence)
        low, high = mean - half, mean + half
    elif method == "bootstrap":
        low, high = np.full(n.shape, math.nan), np.full(n.shape, math.nan)
        if not finite.empty:
            bounds = [
                (*(key if isinstance(key, tuple) else (key,)), *bootstrap_interval(part.to_numpy(), confidence))
                for key, part in grouped
            ]
            found = pd.DataFrame(bounds, columns=[*keys, "ci_low", "ci_high"])
            merged = table[keys].merge(found, on=keys, how="left")
            low, high = merged["ci_low"].to_numpy(dtype=float), merged["ci_high"].to_numpy(dtype=float)
    else:
        raise ConfigError("method", f"must be 't' or 'bootstrap', got {method!r}", "use 'bootstrap' for rates")
    return table[keys].assign(n=n, mean=mean, sd=sd, sem=sem, ci_low=low, ci_high=high)


def paired_difference(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> Difference:
    """Mean of the paired differences ``b_i − a_i`` with its t interval and the paired t-test.

    Pairs where either value is non-finite are left out. When every difference is the same the
    result is exact: the interval is that point and the p-value is 1 if it is 0, else 0.

    Args:
        a: The baseline, one value per seed.
        b: The other policy, on the same seeds in the same order.
        confidence: Coverage of the interval, in (0, 1).

    Returns:
        The :class:`Difference`; NaN interval and p-value with fewer than two pairs.

    Raises:
        ConfigError: ``a`` and ``b`` have different lengths (they cannot be pairs).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ConfigError("paired samples", f"have different lengths ({a.size} and {b.size})", "pair them by seed")
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    summary = mean_interval(b - a, confidence)
    if summary.n < 2:
        return Difference(summary.n, summary.mean, math.nan, math.nan, math.nan)
    if summary.sd == 0.0:
        return Difference(summary.n, summary.mean, summary.mean, summary.mean, _exact_p(summary.mean))
    p_value = float(stats.ttest_rel(b, a).pvalue)
    return Difference(summary.n, summary.mean, summary.low, summary.high, p_value)


def bounded_interval(
    values: Sequence[float] | np.ndarray,
    lower: float = -math.inf,
    upper: float = math.inf,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """Mean and interval of a quantity in ``[lower, upper]``: Student-t, or bootstrap where t leaves the range.

    A t-interval is symmetric, so for a share near 0 or a count near 0 it can reach below the
    quantity's range; there the percentile bootstrap (:func:`bootstrap_interval`), which stays
    inside the sample's range, is used instead.

    Args:
        values: The sample (one value per seed).
        lower: The quantity's smallest possible value.
        upper: Its largest possible value.
        confidence: Coverage of the interval.

    Returns:
        ``(mean, low, high)``; low and high NaN below two finite values.
    """
    summary = mean_interval(values, confidence)
    low, high = summary.low, summary.high
    if np.isfinite(low) and (low < lower or high > upper):
        low, high = bootstrap_interval(values, confidence)
    return summary.mean, low, high


def format_interval(mean: float, low: float, high: float, n: int | None = None, digits: int = 3) -> str:
    """``"mean [low, high]"``; ``"mean (n = 1, no CI)"`` without an interval; ``"n/a"`` without a mean.

    Args:
        mean: The mean.
        low: Lower bound (NaN when there is no interval).
        high: Upper bound.
        n: Sample size, if known (only to tell "one value" from "no value").
        digits: Decimals shown.
    """
    if not np.isfinite(mean):
        return "n/a"
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{mean:.{digits}f} ({NO_INTERVAL})" if n in (None, 1) else f"{mean:.{digits}f} (no CI)"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _finite(values: Sequence[float] | np.ndarray) -> np.ndarray:
    sample = np.asarray(values, dtype=float).ravel()
    return sample[np.isfinite(sample)]


def _exact_p(difference: float) -> float:
    return 1.0 if difference == 0.0 else 0.0
