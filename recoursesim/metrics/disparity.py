"""Group disparities: rETR (a ratio) and dTTR (a difference) against a reference group."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from recoursesim.errors import ConfigError

#: The 80% rule's tolerable band for a ratio such as rETR (paper §3.2).
EIGHTY_PERCENT_BAND = (0.8, 1.25)


def add_disparities(
    frame: pd.DataFrame, reference_group: str, *, by: list[str] | None = None, etr: str = "etr", ttr: str = "ttr"
) -> pd.DataFrame:
    """Add ``retr = ETR_g / ETR_ref`` and ``dttr = TTR_g - TTR_ref`` columns.

    Args:
        frame: One row per group (per ``by`` key), with ``group``, ``etr`` and ``ttr`` columns.
        reference_group: The group the others are compared with (the paper's advantaged group).
        by: Keys within which groups are compared (for example ``["step"]``).
        etr: Name of the ETR column.
        ttr: Name of the TTR column.

    Returns:
        A copy of ``frame`` with ``retr`` and ``dttr`` (NaN where either side is undefined, and
        for rETR where the reference ETR is 0).
    """
    group = frame["group"].astype(str).to_numpy()
    if frame.shape[0]:
        check_reference_group(reference_group, set(group))
    out = frame.copy()
    keys = by or []
    is_reference = group == reference_group
    if keys:
        index = pd.MultiIndex.from_frame(out[keys]) if len(keys) > 1 else pd.Index(out[keys[0]])
        position = index[is_reference].get_indexer(index)
        rows = np.flatnonzero(is_reference)
        found = position >= 0
        source = np.where(found, rows[np.maximum(position, 0)], 0)
    else:
        found = np.full(len(out), bool(is_reference.any()))
        source = np.full(len(out), int(np.argmax(is_reference)) if is_reference.any() else 0)
    etr_values = out[etr].to_numpy(dtype=float)
    ttr_values = out[ttr].to_numpy(dtype=float)
    etr_ref = np.where(found, etr_values[source] if len(out) else etr_values, np.nan)
    ttr_ref = np.where(found, ttr_values[source] if len(out) else ttr_values, np.nan)
    out["retr"], out["dttr"] = disparity_values(etr_values, ttr_values, etr_ref, ttr_ref)
    return out


def check_reference_group(reference_group: str, groups: Iterable[str]) -> None:
    """Raise the configuration error for a reference group that is not among ``groups``."""
    names = set(groups)
    if reference_group not in names:
        raise ConfigError(
            "metrics.reference_group", f"{reference_group!r} is not a group", f"use one of {', '.join(sorted(names))}"
        )


def disparity_values(
    etr: np.ndarray, ttr: np.ndarray, etr_ref: np.ndarray, ttr_ref: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``rETR = etr / etr_ref`` (NaN where not finite) and ``dTTR = ttr - ttr_ref``, elementwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = etr / etr_ref
    return np.where(np.isfinite(ratio), ratio, np.nan), ttr - ttr_ref


def within_eighty_percent_rule(ratio: float, band: tuple[float, float] = EIGHTY_PERCENT_BAND) -> bool:
    """Whether a ratio (rETR) lies in the 80% rule's tolerable band."""
    return bool(band[0] <= ratio <= band[1])
