"""Recourse generators: the recommendation each rejected agent receives."""

from recoursesim.recourse.action_set import ActionSet
from recoursesim.recourse.base import RecourseGenerator
from recoursesim.recourse.linear import LinearRecourse
from recoursesim.recourse.offset_target import OffsetTargetRecourse
from recoursesim.recourse.projection import project_l1, project_l2

__all__ = [
    "ActionSet",
    "LinearRecourse",
    "OffsetTargetRecourse",
    "RecourseGenerator",
    "project_l1",
    "project_l2",
]
