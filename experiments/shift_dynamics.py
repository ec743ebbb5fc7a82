"""Shift dynamics: what acting on recourse does to the population, the model and the truth.

Usage:
    python experiments/shift_dynamics.py --seeds 30 --workers 2 --out results/shift_dynamics

What it runs and writes is described in :mod:`recoursesim.reproductions.shift_dynamics`, which
holds the logic; this script only runs it (``--help`` for the options).
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.shift_dynamics import main

if __name__ == "__main__":
    sys.exit(guarded(main))
