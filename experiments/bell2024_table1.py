"""Reproduce Bell et al. (2024) Table 1 and compare every cell with the paper (``--help`` for usage).

The logic is in :mod:`recoursesim.reproductions.bell2024_table1`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.bell2024_table1 import main

if __name__ == "__main__":
    sys.exit(guarded(main))
