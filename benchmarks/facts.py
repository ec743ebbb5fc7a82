"""Time the full FACTS audit of Adult/sex at 1% support (the paper's setup).

Usage: python benchmarks/facts.py [--json PATH] [--protected sex] [--support 0.01]

Writes {"seconds": ..., "peak_rss_mb": ..., "n_common_subgroups": ...} (plus details) to PATH.
``seconds`` is the wall time of everything: loading and preparing the data, the split, fitting the
model, and the audit with every metric ranked. Peak RSS is the process's high-water mark.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--dataset", default="adult")
    parser.add_argument("--protected", default="sex")
    parser.add_argument("--support", type=float, default=0.01)
    args = parser.parse_args()

    started = time.perf_counter()
    from recoursesim.auditors.facts import FactsAuditor, paper_setup

    setup = paper_setup(args.dataset)
    prepared = time.perf_counter()
    auditor = FactsAuditor(min_support=args.support, config=setup.data.config).fit(
        setup.X_test, setup.model, args.protected
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak, 1),
        "n_common_subgroups": auditor.summary_["common_subgroups"],
        "audit_seconds": round(time.perf_counter() - prepared, 2),
        "setup_seconds": round(prepared - started, 2),
        "timings": {k: round(v, 2) for k, v in auditor.timings_.items()},
        "summary": auditor.summary_,
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    text = json.dumps(result, indent=2, default=str)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
