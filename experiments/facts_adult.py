"""FACTS on Adult, the paper's Table 1 style: three subgroups ranked first by three definitions.

Usage: python experiments/facts_adult.py [--protected sex race] [--support 0.01] [--out DIR]

The logic is in :mod:`recoursesim.reproductions.facts_adult`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.facts_adult import main

if __name__ == "__main__":
    sys.exit(guarded(main))
