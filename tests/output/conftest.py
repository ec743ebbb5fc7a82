"""The output folder's tests run the command line with the hostile-input tests' fixtures."""

from tests.hostile.conftest import cli, scenario_file  # noqa: F401  (fixtures shared with tests/hostile)
