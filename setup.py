"""Package layout that ``pyproject.toml`` cannot express: the bundled scenarios.

The scenario files live in the top-level ``scenarios/`` folder, where users browse them first, and are
installed as the data package ``recoursesim.scenarios`` (read with ``importlib.resources``). Everything
else about the build is declared in ``pyproject.toml``.
"""

from setuptools import find_namespace_packages, setup

setup(
    # Namespace discovery, as pyproject's own package finder does: folders holding only data files
    # (recoursesim/datasets/data/...) are packages too, so their files are installed without a warning.
    packages=[
        *find_namespace_packages(include=["recoursesim", "recoursesim.*"], exclude=["*.__pycache__"]),
        "recoursesim.scenarios",
    ],
    package_dir={"recoursesim.scenarios": "scenarios"},
)
