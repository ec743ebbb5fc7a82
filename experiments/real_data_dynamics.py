"""Recourse dynamics on real data: German credit and Adult under top-k, CNS and CDA across seeds.

Runs every bundled real-data scenario (german-credit-lending, adult-income-threshold) under the
three policies of recoursesim.reproductions.real_data for SEEDS seeds and prints, per scenario,
policy and group, the mean and 95% CI across seeds of rETR (effort to recourse relative to the
reference group) and dTTR (time to recourse minus the reference group's). Writes the raw
per-run summaries and the table (CSV) to --out.

Usage:
    python experiments/real_data_dynamics.py --seeds 30 --workers 2 --out results/real_data_dynamics

The logic is in :mod:`recoursesim.reproductions.real_data`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.real_data import main

if __name__ == "__main__":
    sys.exit(guarded(main))
