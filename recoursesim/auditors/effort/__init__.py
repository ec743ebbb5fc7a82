"""Equality of effort via algorithmic recourse (Raimondi, Lawrence and Chockler).

A linear additive SCM (:class:`LinearAdditiveSCM`), minimal-intervention recourse
(:class:`MinimalInterventionRecourse`), the situation-testing distance and
neighbourhoods, the Average Cost Ratio (ACR), recourse ratios and RD (:func:`cost_ratio`), the
decision rule (:func:`effort_decision`), system-level and per-centre tests
(:func:`equality_of_effort`), ACR(q) curves (:func:`acr_curve`), the paper's synthetic data and
the per-step :class:`EqualityOfEffortObserver`.
"""

from recoursesim.auditors.effort.audit import DEFAULT_QS, EqualityOfEffortAuditor, acr_curve, equality_of_effort
from recoursesim.auditors.effort.distance import feature_ranges, mixed_distance, neighbourhood, neighbourhood_radii
from recoursesim.auditors.effort.observer import EqualityOfEffortObserver
from recoursesim.auditors.effort.ratio import average_effort, cost_ratio, effort_decision
from recoursesim.auditors.effort.recourse import MinimalInterventionRecourse, RecourseResult
from recoursesim.auditors.effort.scm import LinearAdditiveSCM
from recoursesim.auditors.effort.synthetic import make_effort_synthetic, synthetic_auditor

__all__ = [
    "DEFAULT_QS",
    "EqualityOfEffortAuditor",
    "EqualityOfEffortObserver",
    "LinearAdditiveSCM",
    "MinimalInterventionRecourse",
    "RecourseResult",
    "acr_curve",
    "average_effort",
    "cost_ratio",
    "effort_decision",
    "equality_of_effort",
    "feature_ranges",
    "make_effort_synthetic",
    "mixed_distance",
    "neighbourhood",
    "neighbourhood_radii",
    "synthetic_auditor",
]
