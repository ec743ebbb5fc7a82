"""Monoculture in a lending market: systemic exclusion, homogenization, portability and dTTR.

Usage:
    nice python experiments/market_monoculture.py --seeds 30 --out results/market_monoculture

What it runs and writes is described in :mod:`recoursesim.reproductions.market_monoculture`, which
holds the logic; this script only runs it (``--help`` for the options).
"""

import sys

from recoursesim.cli import guarded
from recoursesim.reproductions.market_monoculture import main

if __name__ == "__main__":
    sys.exit(guarded(main))
