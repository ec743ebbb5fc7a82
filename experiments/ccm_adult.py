"""CCM and ECCM by sex on Adult, logistic or gradient boosting (Pinto et al., App. F; 5-fold CV).

Usage:
    python experiments/ccm_adult.py [--model logistic|gbm] [--gbm-library auto|sklearn|lightgbm] --out results/ccm_adult

The logic is in :mod:`recoursesim.reproductions.ccm_adult`; this script only runs it.
"""

import sys

from recoursesim.reproductions.ccm_adult import main

if __name__ == "__main__":
    sys.exit(main())
