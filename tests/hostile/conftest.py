"""Small scenarios and a helper that runs the command line in this process."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from recoursesim.cli import main

ROOT = Path(__file__).resolve().parents[2]


def small_text(name: str = "small", steps: int = 2) -> str:
    """The default scenario, cut to a few steps and 40 agents (a run takes milliseconds)."""
    text = (ROOT / "scenarios" / "default.toml").read_text(encoding="utf-8")
    for old, new in (
        ("steps = 20", f"steps = {steps}"),
        ("initial = 200", "initial = 40"),
        ("entrants = 20", "entrants = 4"),
        ("k = 20", "k = 4"),
    ):
        assert old in text
        text = text.replace(old, new)
    return text.replace('name = "default"', f"name = {json.dumps(name)}")  # JSON strings are TOML strings


@pytest.fixture
def scenario_file(tmp_path) -> Callable[..., Path]:
    """Write a small scenario with the given name (and extra TOML appended) and return its path."""

    def write(name: str = "small", extra: str = "", steps: int = 2, filename: str = "s.toml") -> Path:
        path = tmp_path / filename
        path.write_text(small_text(name, steps) + extra, encoding="utf-8")
        return path

    return write


@pytest.fixture
def cli(capsys, monkeypatch, tmp_path) -> Callable[..., tuple[int, str, str]]:
    """Run ``recoursesim ARGS`` in ``tmp_path/work``; return (status, stdout, stderr)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            status = main(list(argv))
        except SystemExit as exit_:  # argparse errors
            status = int(exit_.code or 0)
        out, err = capsys.readouterr()
        return status, out, err

    return run


def one_line_error(status: int, err: str) -> str:
    """Assert the documented bad-input outcome (exit 2, one stderr line, no traceback); return the line."""
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def tree(path: Path) -> list[str]:
    """Every path under ``path``, relative, sorted."""
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))
