"""Suite-wide markers: ``dice`` tests need the optional dice-ml package."""

from __future__ import annotations

import importlib.util
import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``dice``-marked tests cleanly when dice-ml is missing.

    ``.ci/run`` installs the ``dice`` extra in its own stage, runs ``-m dice`` and sets
    ``RECOURSESIM_REQUIRE_DICE=1``, which turns a missing dice-ml into a failure instead.
    """
    if importlib.util.find_spec("dice_ml") is not None:
        return
    if os.environ.get("RECOURSESIM_REQUIRE_DICE") == "1":
        raise pytest.UsageError("RECOURSESIM_REQUIRE_DICE=1 but dice-ml is not installed: pip install -e '.[dice]'")
    skip = pytest.mark.skip(reason="needs dice-ml: pip install 'recoursesim[dice]'")
    for item in items:
        if item.get_closest_marker("dice") is not None:
            item.add_marker(skip)
