"""Counterfactual Confusion Matrix auditor (Pinto et al., "The Matrix Reloaded").

Plausible counterfactuals (:func:`generate_counterfactuals`), CCM and ECCM counts
(:func:`ccm`, :func:`eccm`), their rates (:func:`ccm_metrics`, :func:`eccm_metrics`), score
divergences (:func:`rmscd`, :func:`klcd`, :func:`jscd`), report tables (:func:`ccm_report`,
:func:`audit`, :func:`ccm_parity`) and the per-step :class:`CounterfactualSwitchObserver`.
"""

from recoursesim.auditors.ccm.divergence import jscd, klcd, rmscd
from recoursesim.auditors.ccm.generate import generate_counterfactuals
from recoursesim.auditors.ccm.mapping import cdf_at, empirical_cdf, ordinal_map, quantile_map
from recoursesim.auditors.ccm.matrix import CCM_CELLS, ECCM_CELLS, ccm, ccm_from_eccm, eccm
from recoursesim.auditors.ccm.metrics import (
    CCM_METRICS,
    ECCM_METRICS,
    PERFORMANCE_METRICS,
    ccm_metrics,
    eccm_metrics,
    performance_metrics,
)
from recoursesim.auditors.ccm.observer import CounterfactualSwitchObserver
from recoursesim.auditors.ccm.pca_check import subspace_valid
from recoursesim.auditors.ccm.report import audit, ccm_parity, ccm_report

__all__ = [
    "CCM_CELLS",
    "CCM_METRICS",
    "ECCM_CELLS",
    "ECCM_METRICS",
    "PERFORMANCE_METRICS",
    "CounterfactualSwitchObserver",
    "audit",
    "ccm",
    "ccm_from_eccm",
    "ccm_metrics",
    "ccm_parity",
    "ccm_report",
    "cdf_at",
    "eccm",
    "eccm_metrics",
    "empirical_cdf",
    "generate_counterfactuals",
    "jscd",
    "klcd",
    "ordinal_map",
    "performance_metrics",
    "quantile_map",
    "rmscd",
    "subspace_valid",
]
