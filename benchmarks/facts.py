"""Time FACTS audits against their targets: each in a fresh process, wall time and peak memory.

Usage: python benchmarks/facts.py [--json PATH] [--only german-sex ...] [--quick]

``--quick``: the ``german-sex`` case only.

Cases (name: data set, protected attribute, support settings, target):

- ``german-sex``, ``compas-race``: the command line's defaults (support 0.01 with at least 10
  rows), target <= 10 s and <= 1 GB;
- ``adult-sex``: the defaults, target <= 30 s and <= 2 GB;
- ``adult-sex-1pct``: the paper's setting (``--support 0.01`` alone), no target beyond "not slower".

``seconds`` is the wall time of everything in the child process: importing, loading and preparing
the data, the split, fitting the model and the audit with every metric ranked; ``peak_rss_mb`` is the
child's high-water mark (ru_maxrss). The load average is printed beside every figure: the machine
is shared, so compare CPU seconds (``cpu_seconds``) when the load is high.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, resource, sys, time
started = time.perf_counter()
from recoursesim.auditors.facts import FactsAuditor, paper_setup
dataset, protected, support = sys.argv[1], sys.argv[2], sys.argv[3]
setup = paper_setup(dataset)
kwargs = {} if support == "default" else {"min_support": float(support)}
auditor = FactsAuditor(config=setup.data.config, **kwargs).fit(setup.X_test, setup.model, protected)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({
    "seconds": round(time.perf_counter() - started, 2),
    "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
    "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
    "audit_seconds": round(auditor.timings_["total"], 2),
    "common_subgroups": auditor.summary_["common_subgroups"],
    "actions": auditor.summary_["actions"],
    "support": auditor.summary_["support"],
    "estimate": auditor.summary_["estimate"],
}))
"""

#: name -> (data set, protected, support ("default" = the defaults), target seconds, target MB).
CASES: dict[str, tuple[str, str, str, float | None, float | None]] = {
    "german-sex": ("german", "sex", "default", 10.0, 1024.0),
    "compas-race": ("compas", "race", "default", 10.0, 1024.0),
    "adult-sex": ("adult", "sex", "default", 30.0, 2048.0),
    "adult-sex-1pct": ("adult", "sex", "0.01", None, None),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), default=list(CASES))
    parser.add_argument("--quick", action="store_true", help="the german-sex case only")
    args = parser.parse_args()
    if args.quick:
        args.only = ["german-sex"]

    results = {}
    for name in args.only:
        dataset, protected, support, max_seconds, max_mb = CASES[name]
        load_before = os.getloadavg()[0]
        out = subprocess.run(
            [sys.executable, "-c", CHILD, dataset, protected, support], capture_output=True, text=True, check=True
        )
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        figures["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
        figures["cpus"] = os.cpu_count()
        verdict = ""
        if max_seconds is not None and max_mb is not None:
            ok = figures["seconds"] <= max_seconds and figures["peak_rss_mb"] <= max_mb
            figures["target"] = f"<= {max_seconds:g} s and <= {max_mb / 1024:g} GB"
            figures["meets_target"] = ok
            verdict = f"  target {figures['target']}: {'met' if ok else 'MISSED'}"
        print(
            f"{name:<15} {figures['seconds']:>7.2f} s wall {figures['cpu_seconds']:>7.2f} s CPU "
            f"{figures['peak_rss_mb']:>7.1f} MB peak  {figures['common_subgroups']:>6} subgroups "
            f"{figures['actions']:>7} actions  load {figures['load_average']}{verdict}",
            flush=True,
        )
        results[name] = figures
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
