"""Reproduce Bell et al. (2024) Table 1 with the bell2024 preset and compare every cell with the paper.

Usage:
    python experiments/bell2024_table1.py --strategy baseline --seeds 100 --json out.json

A cell is reproduced when our mean is within 4 combined standard errors of the paper's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from recoursesim.errors import RecourseSimError
from recoursesim.experiments.bell2024 import STRATEGIES, format_cells, reproduce


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", default="baseline", help=f"comma-separated, from: {', '.join(STRATEGIES)}")
    parser.add_argument("--seeds", type=int, default=100, help="seeds per setting (default 100, as the paper)")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes (default 1)")
    parser.add_argument("--json", type=Path, default=None, help="write the cells as a JSON list")
    args = parser.parse_args(argv)
    strategies = [s.strip() for s in args.strategy.split(",") if s.strip()]
    start = time.perf_counter()
    print(format_cells([]), flush=True)
    try:
        cells = reproduce(strategies, args.seeds, workers=args.workers, progress=lambda line: print(line, flush=True))
    except RecourseSimError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    compared = [c for c in cells if c.reproduced is not None]
    ok = sum(c.reproduced for c in compared)
    print(f"\n{ok}/{len(compared)} cells reproduced within 4 combined SE ({time.perf_counter() - start:.0f} s)")
    for cell in compared:
        if not cell.reproduced:
            print(f"not reproduced: {cell.strategy} {cell.effort} q={cell.q} {cell.metric}")
    if args.json:
        args.json.write_text(json.dumps([c.as_dict() for c in cells], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
