"""The teaching dashboard: the paper authors' *Game of Recourse* on the recoursesim engine.

:class:`DashboardSettings` holds the controls and builds a scenario, :class:`DashboardSession`
steps the model and computes what is shown, :mod:`recoursesim.dashboard.figures` draws it, and
:mod:`recoursesim.dashboard.app` (imported only by ``recoursesim dashboard``; needs the
``dashboard`` extra) is the Solara page.
"""

from recoursesim.dashboard.session import DashboardSession, StoryAgent
from recoursesim.dashboard.settings import DISTRIBUTIONS, MITIGATIONS, DashboardSettings

__all__ = ["DISTRIBUTIONS", "MITIGATIONS", "DashboardSession", "DashboardSettings", "StoryAgent"]
