"""docs/teaching.md: the kept lesson pages are what its commands make, and its figures are read from them.

A table in the page marked ``<!-- lesson figures: NAME -->`` lists settings (one column per
control, by name: ``policy`` first on a lesson over several scenarios, then the ``--vary`` keys)
and the pooled rETR and dTTR of the non-reference group with their 95% intervals; the test reads
the same numbers from ``docs/lessons/NAME.html`` and compares the table line by line. The
command above each link must name the page's scenarios, controls and seeds.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "teaching.md"
LESSONS = ROOT / "docs" / "lessons"
TABLE = re.compile(r"<!-- lesson figures: (\S+) -->\n((?:\|.*\n)+)")
MAX_BYTES = 5_000_000


def _data(name: str) -> dict:
    text = (LESSONS / f"{name}.html").read_text(encoding="utf-8")
    match = re.search(r"<script id='lesson-data' type='application/json'>(.*?)</script>", text, re.S)
    assert match is not None, name
    return json.loads(match.group(1))


def _cell(row: dict) -> str:
    return f"{row['mean']:.2f} ({row['low']:.2f} to {row['high']:.2f})"


def lesson_table(name: str, settings: list[list[str]], header: list[str]) -> str:
    """The Markdown table of ``settings`` (rows of control labels), from the kept page's data."""
    data = _data(name)
    controls = data["lesson"]["controls"]
    fields = header[: len(controls)]
    assert fields == [field for field, _ in controls], (fields, controls)
    labels = [[_label(v) for v in values] for _, values in controls]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for setting in settings:
        position = {f"v{i}": labels[i].index(text) for i, text in enumerate(setting)}
        cells = []
        for metric in ("retr", "dttr"):
            [row] = [
                r for r in data["rows"]
                if r["step"] is None and r["metric"] == metric and r["group"] != data["lesson"]["reference"]
                and all(r[k] == v for k, v in position.items())
            ]  # fmt: skip
            cells.append(_cell(row))
        lines.append("| " + " | ".join([*setting, *cells]) + " |")
    return "\n".join(lines) + "\n"


def _label(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


CASES = TABLE.findall(PAGE.read_text(encoding="utf-8"))


def test_every_kept_lesson_has_a_table():
    assert sorted(name for name, _ in CASES) == sorted(p.stem for p in LESSONS.glob("*.html")) != []


@pytest.mark.parametrize(("name", "block"), CASES, ids=[name for name, _ in CASES])
def test_figures_come_from_the_kept_page(name, block):
    lines = block.strip().splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    n_controls = len(_data(name)["lesson"]["controls"])
    settings = [[cell.strip() for cell in line.strip("|").split("|")][:n_controls] for line in lines[2:]]
    assert block == lesson_table(name, settings, header)


@pytest.mark.parametrize("name", sorted(p.stem for p in LESSONS.glob("*.html")))
def test_kept_page_matches_its_command_and_size(name):
    page = LESSONS / f"{name}.html"
    assert page.stat().st_size <= MAX_BYTES
    text = PAGE.read_text(encoding="utf-8")
    commands = [c.replace("\\\n", " ") for c in re.findall(r"```bash\n(recoursesim lesson .*?)```", text, re.S)]
    [command] = [shlex.split(c) for c in commands if f"--out {name}.html" in c]
    about = _data(name)["lesson"]
    scenarios = command[2 : next(i for i, word in enumerate(command) if word.startswith("--"))]
    assert scenarios == about.get("scenarios", [about["scenario"]])
    assert int(command[command.index("--seeds") + 1]) == about["seeds"]
    controls = about["controls"]
    if len(scenarios) > 1:  # several scenarios: the first control is the policy, labelled by --label or name
        labels = [command[i + 1] for i, word in enumerate(command) if word == "--label"] or scenarios
        assert controls[0] == ["policy", labels]
        controls = controls[1:]
    varied = [command[i + 1] for i, word in enumerate(command) if word == "--vary"]
    assert varied == [f"{field}={','.join(_label(v) for v in values)}" for field, values in controls]
