from importlib import resources
from pathlib import Path

import pytest

from recoursesim.scenario import Scenario
from tests.hostile.conftest import cli, scenario_file  # noqa: F401  (the hostile-input tests' fixtures)


@pytest.fixture
def small_toml(tmp_path) -> Path:
    """The default scenario cut to steps 0..4: a run takes a few milliseconds."""
    text = resources.files("recoursesim.scenarios").joinpath("default.toml").read_text(encoding="utf-8")
    assert "steps = 20" in text
    path = tmp_path / "small.toml"
    path.write_text(text.replace("steps = 20", "steps = 4").replace('name = "default"', 'name = "small"'))
    return path


@pytest.fixture
def small(small_toml) -> Scenario:
    return Scenario.from_file(small_toml)
