"""Package layout that ``pyproject.toml`` cannot express: the bundled scenarios.

The scenario files live in the top-level ``scenarios/`` folder, where users browse them first, and are
installed as the data package ``recoursesim.scenarios`` (read with ``importlib.resources``). Everything
else about the build is declared in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["recoursesim", "recoursesim.*"]), "recoursesim.scenarios"],
    package_dir={"recoursesim.scenarios": "scenarios"},
)
