"""Equality of effort on Raimondi et al.'s synthetic data (§4.1, Figures 2–3).

Usage:
    python experiments/eoe_synthetic.py --seeds 20 --out results/eoe_synthetic

The logic is in :mod:`recoursesim.reproductions.eoe_synthetic`; this script only runs it. Its
rows are kept (gzipped) in experiments/runs/eoe_synthetic.csv.gz; the docs' table is made from them.
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.eoe_synthetic import main

if __name__ == "__main__":
    sys.exit(guarded(main))
