"""Reproduce Bell et al. (2024) Table 1 with the bell2024 preset and compare every cell with the paper.

Usage:
    python experiments/bell2024_table1.py --strategy baseline --seeds 100 --json out.json
    python experiments/bell2024_table1.py --strategy baseline,cns --workers 2 --out results/table1 [--resume]
    python experiments/bell2024_table1.py --dask-local 2            # or --scheduler tcp://host:8786

The runs are one `recoursesim.sweep` (grid: strategy × effort × q; seeds spawned from SeedSequence(0)),
so with --out an interrupted reproduction continues with --resume.

A cell is reproduced when our mean is within 4 combined standard errors of the paper's.

The logic is in :mod:`recoursesim.reproductions.bell2024_table1`; this script only runs it.
"""

import sys

from recoursesim.reproductions.bell2024_table1 import main

if __name__ == "__main__":
    sys.exit(main())
