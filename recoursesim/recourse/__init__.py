"""Recourse generators: the recommendation each rejected agent receives."""

from recoursesim.recourse.auto import AutoRecourse
from recoursesim.recourse.base import RecourseGenerator
from recoursesim.recourse.dice import DiceRecourse
from recoursesim.recourse.exact_linear import ExactLinearRecourse
from recoursesim.recourse.linear import LinearRecourse
from recoursesim.recourse.manifold import NearestAcceptedRecourse
from recoursesim.recourse.margin import MarginRecourse
from recoursesim.recourse.mixed import MixedRecourse
from recoursesim.recourse.offset_target import OffsetTargetRecourse
from recoursesim.recourse.projection import project_l1, project_l2
from recoursesim.recourse.search import SearchRecourse
from recoursesim.recourse.worst_case import WorstCaseRecourse, worst_case_margin

__all__ = [
    "AutoRecourse",
    "DiceRecourse",
    "ExactLinearRecourse",
    "LinearRecourse",
    "MarginRecourse",
    "MixedRecourse",
    "NearestAcceptedRecourse",
    "OffsetTargetRecourse",
    "RecourseGenerator",
    "SearchRecourse",
    "WorstCaseRecourse",
    "project_l1",
    "project_l2",
    "worst_case_margin",
]
