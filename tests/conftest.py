"""Suite-wide markers: ``dice`` tests need dice-ml, ``policy`` tests the policy extra, ``ema`` tests the ema extra."""

from __future__ import annotations

import importlib.util
import os

import pytest

#: Marker -> (import names it needs, environment variable that makes them required, extra).
OPTIONAL = {
    "dice": (("dice_ml",), "RECOURSESIM_REQUIRE_DICE", "dice"),
    "policy": (("SALib", "optuna", "gymnasium"), "RECOURSESIM_REQUIRE_POLICY", "policy"),
    "ema": (("ema_workbench",), "RECOURSESIM_REQUIRE_EMA", "ema"),
    "calibrate": (("pyabc",), "RECOURSESIM_REQUIRE_CALIBRATE", "calibrate"),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests of an optional extra cleanly when its packages are missing.

    ``.ci/run`` installs each such extra in its own stage, runs ``-m <marker>`` and sets
    ``RECOURSESIM_REQUIRE_<MARKER>=1``, which turns a missing package into a failure instead.
    """
    for marker, (modules, variable, extra) in OPTIONAL.items():
        missing = [name for name in modules if importlib.util.find_spec(name) is None]
        if not missing:
            continue
        if os.environ.get(variable) == "1":
            raise pytest.UsageError(
                f"{variable}=1 but {', '.join(missing)} is not installed: pip install -e '.[{extra}]'"
            )
        skip = pytest.mark.skip(reason=f"needs {', '.join(missing)}: pip install 'recoursesim[{extra}]'")
        for item in items:
            if item.get_closest_marker(marker) is not None:
                item.add_marker(skip)
