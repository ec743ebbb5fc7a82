"""Metrics computed from the ledger: ETR/TTR over time and pooled, disparities, exclusions."""

from recoursesim.metrics.disparity import EIGHTY_PERCENT_BAND, within_eighty_percent_rule
from recoursesim.metrics.group_fairness import parity_over_time, selection_metric_frame
from recoursesim.metrics.outcomes import OUTCOMES, agent_outcomes, until_first_success
from recoursesim.metrics.recourse import recourse_over_time, recourse_summary, utility_over_time

__all__ = [
    "EIGHTY_PERCENT_BAND",
    "OUTCOMES",
    "agent_outcomes",
    "parity_over_time",
    "recourse_over_time",
    "recourse_summary",
    "selection_metric_frame",
    "until_first_success",
    "utility_over_time",
    "within_eighty_percent_rule",
]
