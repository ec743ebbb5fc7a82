"""``recoursesim report`` says what it is doing (on a terminal, unless ``--quiet``)."""

from __future__ import annotations

import io

from recoursesim.cli._common import status
from recoursesim.report.build import write_report
from recoursesim.report.sections import SECTION_BUILDERS
from recoursesim.simulate import simulate


def test_write_report_names_each_step(tmp_path):
    simulate("default", 0, steps=2).write((tmp_path / "r").mkdir() or tmp_path / "r")
    lines: list[str] = []
    write_report(tmp_path / "r", tmp_path / "report.html", progress=lines.append)
    assert lines[0] == f"report: reading the runs in {tmp_path / 'r'}"
    sections = [line for line in lines if line.startswith("report: section ")]
    assert len(sections) == len(SECTION_BUILDERS)
    assert sections[0] == f"report: section 1/{len(SECTION_BUILDERS)}: summary"
    assert lines[-1].startswith("report: writing ") and lines[-1].endswith("report.html")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_status_lines_go_to_a_terminal_unless_quiet(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    say = status(quiet=False)
    assert say is not None
    say("report: section 1/12: summary")
    assert terminal.getvalue() == "report: section 1/12: summary\n"
    assert status(quiet=True) is None
    monkeypatch.setattr("sys.stderr", io.StringIO())  # piped: an error stays one line
    assert status(quiet=False) is None
