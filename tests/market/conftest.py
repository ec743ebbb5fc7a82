"""A short run of the default scenario with a given trainer, for the anticipating lenders' tests."""

from collections.abc import Callable
from typing import Any

import pytest

from recoursesim.scenario import Scenario
from recoursesim.simulate import RunResult, simulate


@pytest.fixture
def small_run() -> Callable[..., RunResult]:
    """``small_run(training, steps=3, initial=60, **overrides)``: the default scenario, shortened, with ``training``."""

    def run(training: dict[str, Any], steps: int = 3, initial: int = 60, **overrides: Any) -> RunResult:
        scenario = Scenario.bundled("default").with_overrides(
            {"training": training, "run.steps": steps, "population.initial": initial, **overrides}
        )
        return simulate(scenario)

    return run
