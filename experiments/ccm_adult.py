"""CCM and ECCM by sex on Adult with a logistic regression (Pinto et al., App. F; 5-fold CV).

Usage:
    python experiments/ccm_adult.py --out results/ccm_adult

The logic is in :mod:`recoursesim.reproductions.ccm_adult`; this script only runs it.
"""

import sys

from recoursesim.reproductions.ccm_adult import main

if __name__ == "__main__":
    sys.exit(main())
