"""recoursesim: simulate algorithmic recourse over time and audit its fairness."""

from __future__ import annotations

from typing import Any

from recoursesim._version import __version__
from recoursesim.errors import ConfigError, DataError, RecourseSimError

__all__ = ["ConfigError", "DataError", "RecourseModel", "RecourseSimError", "__version__"]


def __getattr__(name: str) -> Any:
    # The model (and Mesa with it) is imported on first use, so that tools that only audit or
    # read results (FACTS, reports) do not pay for it.
    if name == "RecourseModel":
        from recoursesim.engine.model import RecourseModel

        return RecourseModel
    raise AttributeError(f"module 'recoursesim' has no attribute {name!r}")
