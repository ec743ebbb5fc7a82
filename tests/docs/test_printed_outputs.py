"""Every command output printed in README.md and docs/ is what the command prints today.

A block is marked by an HTML comment naming the command, on the line before its fence::

    <!-- output: recoursesim run default --no-write -->
    ```text
    ...the exact standard output...
    ```

The test runs the command (``recoursesim`` is this checkout's command line, started as
``python -m recoursesim``) in a fresh working directory and compares its standard output with the
block, line by line. Lines that report how long the command took (``60 runs in 12.9 s``) are
left out of both sides: they change with the machine, the numbers above them must not.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- output: (.+?) -->\s*\n```text\n(.*?)```", re.S)
TIMING = re.compile(r"^\d+ runs? in [0-9.]+ s$")
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
CASES = [
    pytest.param(command, expected, id=f"{path.relative_to(ROOT)}: {command}")
    for path in DOCUMENTS
    for command, expected in BLOCK.findall(path.read_text(encoding="utf-8"))
]


def _kept(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines() if not TIMING.match(line.strip())]
    return "\n".join(lines).strip("\n").splitlines()


def test_the_readme_prints_verified_outputs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(BLOCK.findall(readme)) >= 2, "the README's result tables come from marked, tested commands"


@pytest.mark.parametrize(("command", "expected"), CASES)
def test_printed_output_is_current(command: str, expected: str, tmp_path: Path) -> None:
    words = shlex.split(command)
    assert words[0] == "recoursesim", f"only recoursesim commands are run, not {words[0]!r}"
    run = subprocess.run(
        [sys.executable, "-m", "recoursesim", *words[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert _kept(run.stdout) == _kept(expected)
