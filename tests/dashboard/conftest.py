"""Browser tests run only when asked for with ``-m browser`` (as ``.ci/run`` does)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``browser``-marked tests unless the marker expression names ``browser``."""
    if "browser" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="browser test: run with -m browser (needs the dashboard and browser extras)")
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(skip)
