"""Liu et al. (2018), Delayed Impact of Fair Machine Learning, on the bundled FICO tables.

Usage:
    python experiments/liu2018_delayed_impact.py --out results/liu2018

Prints, for the utility ratios -4 and -10, each criterion's selection rate and expected score
change per group (Black, White), and draws the outcome curves (see docs/reproduction.md).

The logic is in :mod:`recoursesim.reproductions.liu2018`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.liu2018 import main

if __name__ == "__main__":
    sys.exit(guarded(main))
