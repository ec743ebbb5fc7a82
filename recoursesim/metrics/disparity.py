"""Group disparities: rETR (a ratio) and dTTR (a difference) against a reference group."""

from __future__ import annotations

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
    groups = set(frame["group"].astype(str))
    if frame.shape[0] and reference_group not in groups:
        raise ConfigError(
            "metrics.reference_group", f"{reference_group!r} is not a group", f"use one of {', '.join(sorted(groups))}"
        )
    out = frame.copy()
    keys = by or []
    reference = out.loc[out["group"].astype(str) == reference_group, [*keys, etr, ttr]]
    reference = reference.rename(columns={etr: "_etr_ref", ttr: "_ttr_ref"})
    merged = (
        out.merge(reference, on=keys, how="left")
        if keys
        else out.assign(
            _etr_ref=reference["_etr_ref"].iloc[0] if len(reference) else np.nan,
            _ttr_ref=reference["_ttr_ref"].iloc[0] if len(reference) else np.nan,
        )
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = merged[etr].to_numpy(dtype=float) / merged["_etr_ref"].to_numpy(dtype=float)
    merged["retr"] = np.where(np.isfinite(ratio), ratio, np.nan)
    merged["dttr"] = merged[ttr].to_numpy(dtype=float) - merged["_ttr_ref"].to_numpy(dtype=float)
    return merged.drop(columns=["_etr_ref", "_ttr_ref"])


def within_eighty_percent_rule(ratio: float, band: tuple[float, float] = EIGHTY_PERCENT_BAND) -> bool:
    """Whether a ratio (rETR) lies in the 80% rule's tolerable band."""
    return bool(band[0] <= ratio <= band[1])
