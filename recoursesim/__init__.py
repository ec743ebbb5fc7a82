"""recoursesim: simulate algorithmic recourse over time and audit its fairness."""

from recoursesim._version import __version__
from recoursesim.errors import ConfigError, DataError, RecourseSimError
from recoursesim.model import RecourseModel

__all__ = ["ConfigError", "DataError", "RecourseModel", "RecourseSimError", "__version__"]
