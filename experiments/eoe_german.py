"""Equality of effort on German credit, the setup of Raimondi et al. (§4.2, Figure 5).

Usage:
    python experiments/eoe_german.py --out results/eoe_german

The logic is in :mod:`recoursesim.reproductions.eoe_german`; this script only runs it. Its
rows are kept (gzipped) in experiments/runs/eoe_german.csv.gz; the docs' table is made from them.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.eoe_german import main

if __name__ == "__main__":
    sys.exit(guarded(main))
