"""Delayed impact with agents: the FICO scenarios under each lending criterion, with and without recourse advice.

Usage:
    python experiments/delayed_impact_agents.py --out results/delayed_impact_agents --seeds 3

Prints, per variant, criterion and group, the mean score at steps 0, 1 and T (beside the
expected-value iteration's), the default burden and the time and effort to a first loan after a
refusal (dTTR, rETR), and draws the scores and the score distribution over time (see
docs/delayed-impact.md).

The logic is in :mod:`recoursesim.reproductions.delayed_impact_agents`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.delayed_impact_agents import main

if __name__ == "__main__":
    sys.exit(guarded(main))
