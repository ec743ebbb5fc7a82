"""Equality of effort on German credit, the setup of Raimondi et al. (§4.2, Figure 5).

Usage:
    python experiments/eoe_german.py --out results/eoe_german

The logic is in :mod:`recoursesim.reproductions.eoe_german`; this script only runs it.
"""

import sys

from recoursesim.reproductions.eoe_german import main

if __name__ == "__main__":
    sys.exit(main())
