"""Counterfactual Confusion Matrix (CCM) and Extended CCM (ECCM) cell counts (Pinto et al., §2.3)."""

from __future__ import annotations

import numpy as np

from recoursesim.errors import DataError

#: CCM cells: rows are the original prediction, columns the counterfactual prediction.
CCM_CELLS = ("CP", "SN", "SP", "CN")
#: ECCM cells in the paper's order: the row ``y = 1`` then the row ``y = 0``.
ECCM_CELLS = ("TCP", "TSN", "FSP", "FCN", "FCP", "FSN", "TSP", "TCN")
#: (original, counterfactual) prediction of each CCM cell, in the order of :data:`CCM_CELLS`.
_OUTCOMES = ((1, 1), (1, 0), (0, 1), (0, 0))


def _binary(name: str, values: object) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise DataError(name, "must be one-dimensional", "pass one value per sample")
    if array.size and not np.isin(array, (0, 1)).all():
        raise DataError(name, "must hold only 0 and 1", "binarise predictions and labels (1 = positive)")
    return array.astype(np.int64)


def ccm(y_pred: object, y_pred_cf: object) -> dict[str, int]:
    """Count the CCM cells from original and counterfactual predictions.

    Args:
        y_pred: Predictions for the original samples (0/1).
        y_pred_cf: Predictions for their counterfactuals (0/1), aligned with ``y_pred``.

    Returns:
        ``{"CP", "SN", "SP", "CN"}`` counts: consistent positive, switched to negative, switched
        to positive, consistent negative.
    """
    pred = _binary("y_pred", y_pred)
    cf = _binary("y_pred_cf", y_pred_cf)
    if pred.shape != cf.shape:
        raise DataError("y_pred_cf", "must align with y_pred", "pass one counterfactual prediction per sample")
    return {name: int(np.sum((pred == p) & (cf == c))) for name, (p, c) in zip(CCM_CELLS, _OUTCOMES, strict=True)}


def eccm(y_true: object, y_pred: object, y_pred_cf: object) -> dict[str, int]:
    """Count the ECCM cells from labels, original and counterfactual predictions.

    The first letter says whether the original prediction is correct (T/F); then consistent (C)
    or switched (S); then the counterfactual's outcome (P/N).

    Args:
        y_true: Ground-truth labels (0/1).
        y_pred: Predictions for the original samples (0/1).
        y_pred_cf: Predictions for their counterfactuals (0/1).

    Returns:
        The eight counts ``TCP, TSN, FSP, FCN, FCP, FSN, TSP, TCN``.
    """
    true = _binary("y_true", y_true)
    pred = _binary("y_pred", y_pred)
    cf = _binary("y_pred_cf", y_pred_cf)
    if not true.shape == pred.shape == cf.shape:
        raise DataError("y_true", "labels and predictions must align", "pass one value per sample to each")
    out: dict[str, int] = {}
    for y, names in ((1, ("TCP", "TSN", "FSP", "FCN")), (0, ("FCP", "FSN", "TSP", "TCN"))):
        row = true == y
        for name, (p, c) in zip(names, _OUTCOMES, strict=True):
            out[name] = int(np.sum(row & (pred == p) & (cf == c)))
    return out


def ccm_from_eccm(counts: dict[str, int]) -> dict[str, int]:
    """Collapse ECCM counts to CCM counts (the ECCM's column sums)."""
    return {
        "CP": counts["TCP"] + counts["FCP"],
        "SN": counts["TSN"] + counts["FSN"],
        "SP": counts["FSP"] + counts["TSP"],
        "CN": counts["FCN"] + counts["TCN"],
    }
