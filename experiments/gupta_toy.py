"""Gupta et al. (2019) group recourse regularisation on the hand-typed 14-point toy of docs/mitigations.md.

Usage:
    python experiments/gupta_toy.py

Fits the regularised SVM with the exact dual solver and the smoothed primal for lambda in
{0, 0.5, 1, 5}, and prints w, b, the recourse difference RD and the gap to the exact rational
solution (acceptance: 1e-6 exact, 1e-3 smoothed).

The logic is in :mod:`recoursesim.reproductions.gupta_toy`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.gupta_toy import main

if __name__ == "__main__":
    sys.exit(guarded(main))
