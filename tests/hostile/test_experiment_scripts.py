"""The scripts in experiments/ stop on a user's error as the command line does: one line, exit 2."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.subprocesses import run_python

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "experiments").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_runs_behind_the_error_boundary(script: Path) -> None:
    text = script.read_text(encoding="utf-8")
    assert "from recoursesim.cli import guarded" in text and "sys.exit(guarded(main))" in text


def test_an_output_folder_holding_files_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("the user's own file\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = run_python([str(ROOT / "experiments" / "eoe_german.py"), "--out", str(out)], tmp_path, env, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: --out:") and "fix:" in line
    assert (out / "notes.txt").read_text() == "the user's own file\n" and sorted(os.listdir(out)) == ["notes.txt"]
