"""The docs' tables of long experiments are what the experiments' own code makes of their kept runs.

A long experiment (hours of runs) cannot be re-run by a test. Its per-run results are kept in
``experiments/runs/`` and a table in the docs is marked by a comment naming the experiment and the
scenarios it shows, on the line before the table::

    <!-- table from kept runs: recourse_durability bell2024 rising-competition -->
    | scenario | policy | ... |

The test makes the table again from the kept runs with the experiment's own table function and
compares it with the docs, line by line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from recoursesim.reproductions import recourse_durability

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- table from kept runs: (\S+)((?: \S+)*) -->\n((?:\|.*\n)+)")
#: Experiment name -> (its kept runs, the function making a Markdown table of some scenarios).
KEPT: dict[str, tuple[Path, Callable[[pd.DataFrame, list[str]], str]]] = {
    "recourse_durability": (
        ROOT / "experiments" / "runs" / "recourse_durability.csv.gz",
        recourse_durability.markdown_table,
    ),
}
CASES = [
    pytest.param(name, words.split(), block, id=f"{path.name}: {name}{words}")
    for path in sorted((ROOT / "docs").rglob("*.md"))
    for name, words, block in MARKER.findall(path.read_text(encoding="utf-8"))
]


def test_the_durability_page_shows_tables_from_kept_runs() -> None:
    assert sum(case.values[0] == "recourse_durability" for case in CASES) >= 2


@pytest.mark.parametrize(("experiment", "scenarios", "block"), CASES)
def test_table_is_made_from_the_kept_runs(experiment: str, scenarios: list[str], block: str) -> None:
    assert experiment in KEPT, f"no kept runs are known for {experiment!r}"
    path, make = KEPT[experiment]
    rows = pd.read_csv(path, dtype={"group": str})
    missing = sorted(set(scenarios) - set(rows["scenario"]))
    assert not missing, f"{path.name} has no runs of {missing}"
    assert make(rows, scenarios).splitlines() == block.strip("\n").splitlines()
