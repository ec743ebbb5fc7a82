"""Rates derived from CCM and ECCM counts; undefined rates are NaN unless ``zero_division`` is set."""

from __future__ import annotations

import math
from collections.abc import Mapping

from recoursesim.auditors.ccm.matrix import CCM_CELLS, ECCM_CELLS, ccm_from_eccm
from recoursesim.errors import DataError

#: Names of the CCM metrics, in report order.
CCM_METRICS = ("CR", "SR", "PSR", "NCR", "NSR", "PCR", "PCP", "PSDR", "CMCC")
#: Names of the ECCM metrics, in report order.
ECCM_METRICS = ("TSNR", "FSNR", "TSPR", "FSPR", "TPSR", "FPSR", "TNSR", "FNSR")
#: Names of the classic performance metrics of the original predictions, in report order.
PERFORMANCE_METRICS = ("ACC", "TPR", "TNR")


def _counts(counts: Mapping[str, int], cells: tuple[str, ...]) -> dict[str, float]:
    missing = [c for c in cells if c not in counts]
    if missing:
        raise DataError("counts", f"missing cell(s) {missing}", "pass the output of ccm() or eccm()")
    values = {c: float(counts[c]) for c in cells}
    if any(v < 0 or not math.isfinite(v) for v in values.values()):
        raise DataError(
            "counts", "cells must be finite non-negative counts", "pass the counts ccm() or eccm() returned"
        )
    return values


def _ratio(num: float, den: float, zero_division: float) -> float:
    return num / den if den > 0 else float(zero_division)


def ccm_metrics(counts: Mapping[str, int], zero_division: float = math.nan) -> dict[str, float]:
    """Compute the CCM metrics.

    CR/SR (consistency and switch rate), PSR/NCR (positive switch rate, the FPR analogue),
    NSR/PCR (negative switch rate, the FNR analogue), PCP/PSDR (positive consistency precision)
    and CMCC (the Matthews correlation of original and counterfactual predictions).

    Args:
        counts: ``CP, SN, SP, CN`` (an ECCM's eight cells are collapsed first).
        zero_division: Value of a rate whose denominator is 0 (NaN by default).

    Returns:
        The nine metrics, named as in :data:`CCM_METRICS`.
    """
    if "CP" not in counts and "TCP" in counts:
        counts = ccm_from_eccm(dict(counts))
    c = _counts(counts, CCM_CELLS)
    cp, sn, sp, cn = c["CP"], c["SN"], c["SP"], c["CN"]
    n = cp + sn + sp + cn
    marginals = (cp + sp) * (cp + sn) * (cn + sp) * (cn + sn)
    cmcc = (cp * cn - sp * sn) / math.sqrt(marginals) if marginals > 0 else float(zero_division)
    return {
        "CR": _ratio(cp + cn, n, zero_division),
        "SR": _ratio(sp + sn, n, zero_division),
        "PSR": _ratio(sp, sp + cn, zero_division),
        "NCR": _ratio(cn, sp + cn, zero_division),
        "NSR": _ratio(sn, sn + cp, zero_division),
        "PCR": _ratio(cp, sn + cp, zero_division),
        "PCP": _ratio(cp, cp + sp, zero_division),
        "PSDR": _ratio(sp, cp + sp, zero_division),
        "CMCC": cmcc,
    }


def eccm_metrics(counts: Mapping[str, int], zero_division: float = math.nan) -> dict[str, float]:
    """Compute the ECCM metrics.

    TSNR/FSNR (share of negative switches coming from true/false positives), TSPR/FSPR (share of
    positive switches coming from true/false negatives), and TPSR, FPSR, TNSR, FNSR (the share
    of TPs, FPs, TNs and FNs that switch).

    Args:
        counts: The eight ECCM cells.
        zero_division: Value of a rate whose denominator is 0 (NaN by default).

    Returns:
        The eight metrics, named as in :data:`ECCM_METRICS`.
    """
    c = _counts(counts, ECCM_CELLS)
    return {
        "TSNR": _ratio(c["TSN"], c["TSN"] + c["FSN"], zero_division),
        "FSNR": _ratio(c["FSN"], c["TSN"] + c["FSN"], zero_division),
        "TSPR": _ratio(c["TSP"], c["TSP"] + c["FSP"], zero_division),
        "FSPR": _ratio(c["FSP"], c["TSP"] + c["FSP"], zero_division),
        "TPSR": _ratio(c["TSN"], c["TCP"] + c["TSN"], zero_division),
        "FPSR": _ratio(c["FSN"], c["FCP"] + c["FSN"], zero_division),
        "TNSR": _ratio(c["TSP"], c["TSP"] + c["TCN"], zero_division),
        "FNSR": _ratio(c["FSP"], c["FSP"] + c["FCN"], zero_division),
    }


def performance_metrics(counts: Mapping[str, int], zero_division: float = math.nan) -> dict[str, float]:
    """Accuracy, true-positive and true-negative rate of the *original* predictions, from the ECCM.

    An ECCM row splits each original prediction by the counterfactual's, so the ordinary confusion
    matrix is a sum of its cells: TP = TCP + TSN, FN = FSP + FCN, FP = FCP + FSN, TN = TSP + TCN.

    Args:
        counts: The eight ECCM cells.
        zero_division: Value of a rate whose denominator is 0 (NaN by default).

    Returns:
        ``ACC``, ``TPR`` and ``TNR``, named as in :data:`PERFORMANCE_METRICS`.
    """
    c = _counts(counts, ECCM_CELLS)
    tp, fn = c["TCP"] + c["TSN"], c["FSP"] + c["FCN"]
    fp, tn = c["FCP"] + c["FSN"], c["TSP"] + c["TCN"]
    return {
        "ACC": _ratio(tp + tn, tp + tn + fp + fn, zero_division),
        "TPR": _ratio(tp, tp + fn, zero_division),
        "TNR": _ratio(tn, tn + fp, zero_division),
    }
