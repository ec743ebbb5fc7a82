"""The per-step observers' record of a step where an auditor had too few rows to say anything."""

from __future__ import annotations

import pandas as pd

#: Metric name of the flag: 1 at a step where the auditor could not audit for lack of rows.
TOO_FEW_ROWS = "too_few_rows"


def too_few_rows(reason: str) -> pd.DataFrame:
    """Return the observation rows of such a step: ``too_few_rows = 1`` and ``too_few_rows:<reason> = 1``.

    The reason is part of the metric name so that it survives the numeric observations table.

    Args:
        reason: Why, e.g. ``"fewer than two groups among 3 agents"``.
    """
    return pd.DataFrame(
        {"group": [None, None], "metric": [TOO_FEW_ROWS, f"{TOO_FEW_ROWS}:{reason}"], "value": [1.0, 1.0]}
    )
