"""Recovery and coverage of ``recoursesim calibrate`` on synthetic panels with known parameters.

For each scenario, PANELS panels are simulated at true parameters drawn from the prior and
calibrated with ABC-SMC; the table gives the posterior median's error, how often the 90% credible
interval covers the truth, and a Kolmogorov-Smirnov test that the truth's rank among the posterior
particles is uniform (simulation-based calibration). Sizes are options; finished panels are kept in
OUT/panels/, so a stopped run continues where it stopped.

Usage:
    python experiments/calibration_recovery.py --scenario bell2024 --panels 50 --particles 100 \
        --generations 4 --workers 2 --out results/calibration_recovery

The logic is in :mod:`recoursesim.reproductions.calibration_recovery`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.calibration_recovery import main

if __name__ == "__main__":
    sys.exit(guarded(main))
