"""A lesson page: its size, the time to build it from kept runs, and how long a browser takes to draw it.

Usage (from the repository root; needs the lesson extra, and for the opening time the browser
extra and Debian's chromium):
    python benchmarks/lesson.py [--quick] [--json lesson.json]

The grid is the one of ``docs/teaching.md``'s first command: bell2024-baseline over
selection.name (2) x population.q (3) x selection.k (2), 10 seeds (``--quick``: 2 seeds). The
runs are made once (not timed); then the page is built from the kept runs
(``recoursesim lesson ... --resume``, a fresh process, so imports count) and opened offline in
headless Chromium until every panel has drawn. Targets: page <= 5 MB, build <= 10 s, open <= 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GRID = ["--vary", "selection.name=top_k,cns", "--vary", "population.q=0,1,2", "--vary", "selection.k=50,100"]


def _lesson(folder: Path, seeds: int, *extra: str) -> float:
    command = [sys.executable, "-m", "recoursesim", "lesson", "bell2024-baseline", *GRID, "--seeds", str(seeds)]
    command += ["--runs", str(folder / "runs"), "--out", str(folder / "lesson.html"), "--quiet", *extra]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


def _open_seconds(page: Path) -> float | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed: no opening time")
        return None
    chromium = os.environ.get("RECOURSESIM_CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).exists():
        print(f"no Chromium at {chromium}: no opening time")
        return None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        context = browser.new_context()
        context.set_offline(True)
        tab = context.new_page()
        start = time.perf_counter()
        tab.goto(page.as_uri())
        tab.evaluate("() => window.lessonReady")
        seconds = time.perf_counter() - start
        browser.close()
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2 seeds instead of 10")
    parser.add_argument("--json", type=Path, default=None, help="write the figures as JSON")
    args = parser.parse_args(argv)
    seeds = 2 if args.quick else 10
    load = os.getloadavg()
    print(f"cpus {os.cpu_count()}, load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load)}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        first = _lesson(folder, seeds, "--workers", "2")
        print(f"2 x 3 x 2 settings x {seeds} seeds: runs and page {first:.1f} s (2 workers)")
        build = _lesson(folder, seeds, "--resume")
        size = (folder / "lesson.html").stat().st_size
        print(f"  page built from the kept runs: {build:.2f} s (target <= 10 s), load {os.getloadavg()[0]:.2f}")
        print(f"  page size: {size / 1e6:.2f} MB (target <= 5 MB)")
        opened = _open_seconds(folder / "lesson.html")
        if opened is not None:
            print(f"  opened offline, every panel drawn: {opened:.2f} s (target <= 2 s), load {os.getloadavg()[0]:.2f}")
    load = os.getloadavg()
    print(f"load average after: {', '.join(f'{x:.2f}' for x in load)}")
    if args.json:
        figures = {"seeds": seeds, "build_seconds": build, "page_mb": size / 1e6, "open_seconds": opened}
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
