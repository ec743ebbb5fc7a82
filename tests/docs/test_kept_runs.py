"""The docs' tables of long experiments are what the experiments' own code makes of their kept runs.

A long experiment (hours of runs) cannot be re-run by a test, and the reproductions of published
results on full data sets (CCM, equality of effort) would add about a minute to the suite. Their
results are kept in ``experiments/runs/`` and a table in the docs is marked by a comment naming the
experiment and the parts it shows (scenarios, worlds, models or centre groups), on the line before
the table::

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

from recoursesim.reproductions import (
    bell2024,
    calibration_recovery,
    ccm_adult,
    delayed_impact_agents,
    delayed_impact_over_time,
    eoe_german,
    eoe_synthetic,
    liu2018,
    market_monoculture,
    real_data,
    recourse_durability,
    shift_dynamics,
)

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- table from kept runs: (\S+)((?: \S+)*) -->\n((?:\|.*\n)+)")
RUNS = ROOT / "experiments" / "runs"
#: Experiment name -> (its kept runs, the column naming the parts, the function making a Markdown table of some parts).
KEPT: dict[str, tuple[Path, str, Callable[[pd.DataFrame, list[str]], str]]] = {
    "recourse_durability": (RUNS / "recourse_durability.csv.gz", "scenario", recourse_durability.markdown_table),
    "shift_dynamics": (RUNS / "shift_dynamics.csv.gz", "world", shift_dynamics.markdown_table),
    "real_data_dynamics": (RUNS / "real_data_dynamics.csv.gz", "scenario", real_data.markdown_table),
    "ccm_adult": (RUNS / "ccm_adult.csv.gz", "model", ccm_adult.markdown_table),
    "eoe_synthetic": (RUNS / "eoe_synthetic.csv.gz", "centres", eoe_synthetic.markdown_table),
    "eoe_german": (RUNS / "eoe_german.csv.gz", "centres", eoe_german.markdown_table),
    "bell2024_table1": (RUNS / "bell2024_table1.csv.gz", "strategy", bell2024.markdown_table),
    "liu2018": (RUNS / "liu2018_delayed_impact.csv.gz", "setting", liu2018.markdown_table),
    "delayed_impact_over_time": (
        RUNS / "delayed_impact_over_time.csv.gz",
        "setting",
        delayed_impact_over_time.markdown_table,
    ),
    "delayed_impact_agents": (
        RUNS / "delayed_impact_agents.csv.gz",
        "variant",
        delayed_impact_agents.markdown_table,
    ),
    "calibration_recovery": (RUNS / "calibration_recovery.csv.gz", "scenario", calibration_recovery.markdown_table),
    "market_monoculture": (RUNS / "market_monoculture.csv.gz", "dataset", market_monoculture.markdown_table),
}
CASES = [
    pytest.param(name, words.split(), block, id=f"{path.name}: {name}{words}")
    for path in sorted((ROOT / "docs").rglob("*.md"))
    for name, words, block in MARKER.findall(path.read_text(encoding="utf-8"))
]


def test_the_long_experiments_tables_come_from_kept_runs() -> None:
    assert sum(case.values[0] == "recourse_durability" for case in CASES) >= 2
    assert sum(case.values[0] == "shift_dynamics" for case in CASES) >= 2
    assert sum(case.values[0] == "real_data_dynamics" for case in CASES) >= 1
    assert sum(case.values[0] == "ccm_adult" for case in CASES) >= 2
    assert sum(case.values[0] == "eoe_synthetic" for case in CASES) >= 1
    assert sum(case.values[0] == "eoe_german" for case in CASES) >= 1
    assert sum(case.values[0] == "bell2024_table1" for case in CASES) >= 1
    assert sum(case.values[0] == "liu2018" for case in CASES) >= 1
    assert sum(case.values[0] == "delayed_impact_over_time" for case in CASES) >= 2
    assert sum(case.values[0] == "delayed_impact_agents" for case in CASES) >= 1
    assert sum(case.values[0] == "calibration_recovery" for case in CASES) >= 2
    assert sum(case.values[0] == "market_monoculture" for case in CASES) >= 2


@pytest.mark.parametrize(("experiment", "parts", "block"), CASES)
def test_table_is_made_from_the_kept_runs(experiment: str, parts: list[str], block: str) -> None:
    assert experiment in KEPT, f"no kept runs are known for {experiment!r}"
    path, column, make = KEPT[experiment]
    rows = pd.read_csv(path, dtype={"group": str})
    missing = sorted(set(parts) - set(rows[column]))
    assert not missing, f"{path.name} has no runs of {missing}"
    assert make(rows, parts).splitlines() == block.strip("\n").splitlines()
