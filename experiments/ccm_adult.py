"""CCM and ECCM by sex on Adult, logistic or gradient boosting (5-fold CV), beside the published values.

Usage:
    python experiments/ccm_adult.py [--model logistic|gbm|all] [--gbm-library auto|sklearn|lightgbm] \
        --out results/ccm_adult

``--model all`` makes the runs kept in experiments/runs/ccm_adult.csv.gz (adult_ccm_report.csv, gzipped).

The logic is in :mod:`recoursesim.reproductions.ccm_adult`; this script only runs it.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.ccm_adult import main

if __name__ == "__main__":
    sys.exit(guarded(main))
