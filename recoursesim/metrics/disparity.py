"""Group disparities: rETR (a ratio) and dTTR (a difference) against a reference group."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from recoursesim.errors import ConfigError

#: The 80% rule's tolerable band for a ratio such as rETR (paper §3.2).
EIGHTY_PERCENT_BAND = (0.8, 1.25)


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
