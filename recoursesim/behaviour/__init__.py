"""Behaviours: how agents act on their recommendations."""

from recoursesim.behaviour.base import ActionContext, Behaviour
from recoursesim.behaviour.bounded_effort import BoundedEffortBehaviour
from recoursesim.behaviour.follow import FollowExactlyBehaviour
from recoursesim.behaviour.logit_step import LogitStepBehaviour

__all__ = [
    "ActionContext",
    "Behaviour",
    "BoundedEffortBehaviour",
    "FollowExactlyBehaviour",
    "LogitStepBehaviour",
]
