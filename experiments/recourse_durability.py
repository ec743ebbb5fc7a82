"""Durability of recourse: validity 1, 3 and 5 steps after issue per group, policy and generator.

Runs bell2024 (with exact recourse), rising-competition, german-credit and german-credit-competition
under top-k, CNS and CDA with the exact, margin and worst-case generators for SEEDS seeds; prints the
table (mean and 95% CI across seeds of validity at h = 1, 3, 5, extra cost, effort on expired
recommendations, rETR and dTTR) and writes it with the Kaplan–Meier figure to --out.

Usage:
    python experiments/recourse_durability.py --seeds 30 --workers 2 --out results/recourse_durability

The logic is in :mod:`recoursesim.reproductions.recourse_durability`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.recourse_durability import main

if __name__ == "__main__":
    sys.exit(guarded(main))
