"""Shift dynamics: what acting on recourse does to the population, the model and the truth.

For each world (the synthetic bell2024 population; German credit when the dataset population and
the model-agnostic generators are installed), each registered recourse generator (the exact
linear one; the search and data-manifold ones when present) and each retraining setting (fixed
model; refit every step), runs SEEDS seeds of 20 steps and prints, at steps 0, 10 and 20, the mean
and 95% CI across seeds of: MMD² between the step-0 and the current population (and its
permutation p-value), the model's disagreement with the step-0 model and its parameter change,
the gaming rate and the precision of the selections (docs/shift.md). Writes the table (CSV), the
raw observations (Parquet) and one figure per world (PNG).

Usage:
    python experiments/shift_dynamics.py --seeds 30 --workers 2 --out results/shift_dynamics

The logic is in :mod:`recoursesim.reproductions.shift_dynamics`; this script only runs it.
"""

import sys

from recoursesim.reproductions.shift_dynamics import main

if __name__ == "__main__":
    sys.exit(main())
