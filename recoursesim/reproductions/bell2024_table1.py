"""Reproduce Bell et al. (2024) Table 1 with the bell2024 preset and compare every cell with the paper.

Usage:
    python experiments/bell2024_table1.py --strategy baseline --seeds 100 --json out.json
    python experiments/bell2024_table1.py --strategy baseline,cns,cda,cns+cda --workers 2 --csv cells.csv.gz
    python experiments/bell2024_table1.py --strategy baseline,cns --workers 2 --out results/table1 [--resume]
    python experiments/bell2024_table1.py --dask-local 2            # or --scheduler tcp://host:8786

The runs are one `recoursesim.sweep` (grid: strategy × effort × q; seeds spawned from SeedSequence(0)),
so with --out an interrupted reproduction continues with --resume.

A cell is reproduced when our mean is within 4 combined standard errors of the paper's. The cells
of the four strategies are kept in experiments/runs/bell2024_table1.csv.gz (written with --csv);
the docs' table of reproduced cells is made from them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from recoursesim.cli._common import Parser, positive_int, seed_count
from recoursesim.output import check_replaceable_file, write_atomic
from recoursesim.reproductions.bell2024 import STRATEGIES, format_cells, reproduce


def main(argv: list[str] | None = None) -> int:
    """Run the Table 1 reproduction from the command line; return the exit status."""
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", default="baseline", help=f"comma-separated, from: {', '.join(STRATEGIES)}")
    parser.add_argument("--seeds", type=seed_count, default=100, help="seeds per setting (default 100, as the paper)")
    parser.add_argument("--workers", type=positive_int, default=1, help="parallel processes (default 1)")
    parser.add_argument("--out", type=Path, default=None, help="keep the sweep's shards here (default: temporary)")
    parser.add_argument("--resume", action="store_true", help="continue the sweep already in --out")
    dask = parser.add_mutually_exclusive_group()
    dask.add_argument("--scheduler", default=None, metavar="ADDRESS", help="run on this Dask scheduler")
    dask.add_argument("--dask-local", type=positive_int, default=None, metavar="W", help="run on a Dask LocalCluster")
    parser.add_argument("--json", type=Path, default=None, help="write the cells as a JSON list (.gz: compressed)")
    parser.add_argument("--csv", type=Path, default=None, help="write the cells as CSV (.gz: compressed)")
    args = parser.parse_args(argv)
    strategies = [s.strip() for s in args.strategy.split(",") if s.strip()]
    # Before the runs: a refused path costs nothing, and no file of the user's is replaced.
    targets = {
        field: check_replaceable_file(path, field)
        for field, path in (("--json", args.json), ("--csv", args.csv))
        if path is not None
    }
    start = time.perf_counter()
    print(format_cells([]), flush=True)
    cells = reproduce(
        strategies,
        args.seeds,
        workers=args.workers,
        progress=lambda line: print(line, flush=True),
        out=args.out,
        resume=args.resume,
        scheduler=args.scheduler,
        dask_local=args.dask_local,
    )
    compared = [c for c in cells if c.reproduced is not None]
    ok = sum(bool(c.reproduced) for c in compared)
    print(f"\n{ok}/{len(compared)} cells reproduced within 4 combined SE ({time.perf_counter() - start:.0f} s)")
    for cell in compared:
        if not cell.reproduced:
            print(f"not reproduced: {cell.strategy} {cell.effort} q={cell.q} {cell.metric}")
    cell_rows = [asdict(c) for c in cells]
    for field, target in targets.items():
        if field == "--json":
            text = json.dumps(cell_rows, indent=1) + "\n"
        else:
            text = pd.DataFrame(cell_rows).to_csv(index=False)
        data = gzip.compress(text.encode(), mtime=0) if target.suffix == ".gz" else text.encode()
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)
    return 0
