"""Run every benchmark script in this folder, keep the figures, compare them with the last results.

Usage (from the repository root):
    python -m benchmarks [--quick] [--only engine sweep ...] [--results DIR] [--no-save]

Every ``benchmarks/<name>.py`` whose name does not start with ``_`` is a benchmark script. The
convention each script follows (see ``benchmarks/README.md``):

- ``--json PATH`` writes its figures as one JSON object (nested objects allowed; numbers are
  the figures, anything else is kept as information);
- ``--quick`` runs a fast subset of the same measurements (fewer repeats, smaller sizes);
- it prints its figures, with the machine's load average, as it goes.

Each script runs in a fresh process (so peak-memory figures do not mix and imports are timed
alike). The results are written to ``benchmarks/results/<date>-<commit>.json`` with the commit,
the date, the number of cores and the 1/5/15-minute load average before and after; the figures
of the previous results file are then compared one by one (``new / old``; for times, below 1
is faster).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def scripts() -> list[str]:
    """The benchmark scripts' names, in alphabetical order."""
    return sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_"))


def flatten(value: object, prefix: str = "") -> dict[str, float]:
    """Numeric leaves of a JSON value as ``{"a.b.0": 1.5}`` (booleans and text are left out)."""
    out: dict[str, float] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}.{index}"))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out[prefix] = float(value)
    return out


def run_script(name: str, quick: bool) -> dict[str, object]:
    """Run one script in a fresh process; return its status, wall time, load average and figures."""
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / f"{name}.json"
        command = [sys.executable, str(HERE / f"{name}.py"), "--json", str(target), *(["--quick"] if quick else [])]
        print(f"== {name}: {' '.join(command[1:])}", flush=True)
        load_before = os.getloadavg()
        start = time.perf_counter()
        completed = subprocess.run(command, cwd=HERE.parent, check=False)
        seconds = time.perf_counter() - start
        load_after = os.getloadavg()
        figures = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    status = "ok" if completed.returncode == 0 and figures else f"failed (exit {completed.returncode})"
    print(f"== {name}: {status} in {seconds:.1f} s, load average {_load(load_before)} -> {_load(load_after)}")
    return {
        "status": status,
        "seconds": seconds,
        "load_average_before": list(load_before),
        "load_average_after": list(load_after),
        "figures": figures,
    }


def _load(load: tuple[float, ...] | list[float]) -> str:
    return "/".join(f"{x:.2f}" for x in load)


def commit() -> str:
    """The short commit id of the checkout (with ``+dirty`` when files are modified)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=HERE.parent, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short=10", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"{head}+dirty" if dirty else head


def previous(results: Path, quick: bool, exclude: Path | None = None) -> tuple[Path, dict] | None:
    """The latest results file in ``results`` (by its recorded date) of the same mode, other than ``exclude``."""
    found = []
    for path in results.glob("*.json"):
        if exclude is not None and path.resolve() == exclude.resolve():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and "date" in data and "scripts" in data and bool(data.get("quick")) == quick:
            found.append((str(data["date"]), path, data))
    if not found:
        return None
    _, path, data = max(found, key=lambda item: (item[0], item[1].name))
    return path, data


def compare(new: dict, old: dict) -> list[tuple[str, float, float, float]]:
    """``(figure, old, new, new / old)`` for every figure both results hold."""
    rows = []
    for name, run in new["scripts"].items():
        before = old["scripts"].get(name)
        if before is None:
            continue
        new_figures, old_figures = flatten(run["figures"]), flatten(before["figures"])
        for key, value in new_figures.items():
            if key in old_figures and "load_average" not in key and key != "cpus":
                was = old_figures[key]
                rows.append((f"{name}.{key}", was, value, value / was if was else float("nan")))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a fast subset of every benchmark")
    parser.add_argument("--only", nargs="+", choices=scripts(), default=None, help="run only these scripts")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where results files are kept")
    parser.add_argument("--no-save", action="store_true", help="compare, but write no results file")
    args = parser.parse_args(argv)
    started = dt.datetime.now(dt.UTC)
    load_before = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {_load(load_before)} (1/5/15 min)", flush=True)
    runs = {name: run_script(name, args.quick) for name in (args.only or scripts())}
    result = {
        "commit": commit(),
        "date": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": args.quick,
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "load_average_before": list(load_before),
        "load_average_after": list(os.getloadavg()),
        "scripts": runs,
    }
    target = None
    if not args.no_save:
        args.results.mkdir(parents=True, exist_ok=True)
        suffix = "-quick" if args.quick else ""
        target = args.results / f"{started.strftime('%Y%m%d-%H%M%S')}-{result['commit']}{suffix}.json"
        target.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"results written to {target}")
    last = previous(args.results, args.quick, exclude=target)
    if last is None:
        print(f"no earlier {'quick ' if args.quick else ''}results to compare with")
    else:
        path, old = last
        print(f"compared with {path.name} (commit {old.get('commit')}, load {_load(old['load_average_before'])}):")
        for figure, was, value, ratio in compare(result, old):
            print(f"  {figure:<60s} {was:>12.4g} -> {value:>12.4g}   x{ratio:.3f}")
    failed = [name for name, run in runs.items() if run["status"] != "ok"]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
