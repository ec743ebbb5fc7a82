"""Liu et al.'s delayed impact iterated for T steps on the FICO tables (everyone re-applies; expected values).

Usage:
    python experiments/delayed_impact_over_time.py --out results/delayed_impact --steps 20

Prints, per utility ratio, criterion and group, the mean score at steps 0, 1 and T, the selection
rate and the cumulative default burden, and draws both over time (see docs/delayed-impact.md).

The logic is in :mod:`recoursesim.reproductions.delayed_impact_over_time`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.delayed_impact_over_time import main

if __name__ == "__main__":
    sys.exit(guarded(main))
