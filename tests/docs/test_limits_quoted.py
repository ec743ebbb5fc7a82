"""The size limits docs/cli.md quotes are the constants the code refuses by."""

from __future__ import annotations

from pathlib import Path

from recoursesim import resources
from recoursesim.datasets.user import BYTES_PER_CSV_BYTE

CLI_PAGE = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")


def test_the_quoted_limits_are_the_constants() -> None:
    text = " ".join(CLI_PAGE.split())  # the page wraps lines
    assert resources.MAX_SCENARIO_BYTES == 2**20 and "scenario or `base` file over 1 MiB" in text
    assert f"more than {resources.MAX_BASE_CHAIN} `base` files" in text
    assert resources.MAX_HEADER_BYTES == 2**20 and "header line is over 1 MiB" in text
    assert f"more than {resources.MAX_TABLE_COLUMNS:,} columns" in text
    assert f"about {BYTES_PER_CSV_BYTE} bytes of memory per byte of file" in text
    assert f"at most {resources.MAX_GRID_POINTS:,} points and {resources.MAX_SWEEP_RUNS:,} runs" in text
    assert f"even number from 2 to {resources.MAX_MORRIS_LEVELS:,}" in text
