"""Durability of recourse: how long a recommendation stays valid after it is issued (docs/durability.md)."""

from recoursesim.durability.fates import recommendation_fates
from recoursesim.durability.measures import (
    durability_by_step,
    durability_summary,
    expired_effort_share,
    survival_by_group,
)
from recoursesim.durability.survival import kaplan_meier
from recoursesim.engine.decision import Decision

__all__ = [
    "Decision",
    "durability_by_step",
    "durability_summary",
    "expired_effort_share",
    "kaplan_meier",
    "recommendation_fates",
    "survival_by_group",
]
