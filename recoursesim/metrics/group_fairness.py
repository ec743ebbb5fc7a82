"""fairlearn's group metrics of the selections in a ledger, per step and group, on request.

recoursesim computes the recourse metrics (ETR, TTR, rETR, dTTR) itself; for the classic group
metrics of the decisions (selection rate, demographic parity, equalised odds) it hands the
ledger's outcomes to fairlearn. The per-step selection rate that every run stores
(:func:`~recoursesim.metrics.recourse_over_time`) is the same number computed with one
``bincount`` (tested equal to fairlearn's): a ``MetricFrame`` over a 4,200-row ledger took about
60 times as long, too slow for the thousands of runs of a sweep. Needs fairlearn (a runtime
dependency), imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from recoursesim.errors import DataError

if TYPE_CHECKING:
    from fairlearn.metrics import MetricFrame


def selection_metric_frame(
    ledger: pd.DataFrame, *, step: int | None = None, y_true: np.ndarray | pd.Series | None = None
) -> MetricFrame:
    """A fairlearn ``MetricFrame`` of the selections: per group (and per step), selection rate and count.

    Args:
        ledger: A ledger frame (one row per agent and step; ``selected`` is the decision).
        step: Only this step's rows (``None``: every step, with ``step`` as a control feature, so
            ``by_group`` is indexed by (step, group) and ``difference()`` is per step).
        y_true: Optional ground truth, one boolean per ledger row (for example who was truly
            qualified, from a ground-truth model): adds the true- and false-positive rates that
            equalised odds compares.

    Returns:
        The ``MetricFrame``: ``by_group``, ``difference()``, ``ratio()``, ``group_min()``, ...

    Raises:
        DataError: ``step`` not in the ledger, or ``y_true`` not one value per ledger row.
    """
    from fairlearn.metrics import MetricFrame, count, false_positive_rate, selection_rate, true_positive_rate

    rows = np.ones(len(ledger), dtype=bool) if step is None else (ledger["step"].to_numpy() == step)
    if step is not None and not rows.any():
        raise DataError("step", f"no ledger rows at step {step}", "give a step the run recorded")
    y_pred = ledger["selected"].to_numpy(dtype=bool)[rows]
    metrics: dict[str, Any] = {"selection_rate": selection_rate, "count": count}
    truth = y_pred
    if y_true is not None:
        truth = np.asarray(y_true, dtype=bool)
        if truth.shape != (len(ledger),):
            problem = f"has shape {truth.shape}, not one value per ledger row"
            raise DataError("y_true", problem, "align it with the ledger")
        truth = truth[rows]
        metrics.update(true_positive_rate=true_positive_rate, false_positive_rate=false_positive_rate)
    return MetricFrame(
        metrics=metrics,
        y_true=truth,
        y_pred=y_pred,
        sensitive_features=ledger["group"].astype(str).to_numpy()[rows],
        control_features=None if step is not None else pd.Series(ledger["step"].to_numpy()[rows], name="step"),
    )


def parity_over_time(ledger: pd.DataFrame, y_true: np.ndarray | pd.Series | None = None) -> pd.DataFrame:
    """Per step, fairlearn's between-group disparities of the selection.

    Args:
        ledger: A ledger frame.
        y_true: Optional ground truth per ledger row (see :func:`selection_metric_frame`).

    Returns:
        One row per step: ``demographic_parity_difference`` (largest minus smallest group
        selection rate) and ``demographic_parity_ratio`` (smallest over largest); with
        ``y_true``, also ``equalized_odds_difference`` (the larger of the between-group
        differences of the true- and false-positive rates, fairlearn's definition).
    """
    frame = selection_metric_frame(ledger, y_true=y_true)
    difference, ratio = frame.difference(), frame.ratio()
    out = pd.DataFrame(
        {
            "demographic_parity_difference": difference["selection_rate"],
            "demographic_parity_ratio": ratio["selection_rate"],
        }
    )
    if y_true is not None:
        out["equalized_odds_difference"] = difference[["true_positive_rate", "false_positive_rate"]].max(axis=1)
    return out.rename_axis("step").reset_index()
