"""``summarise --out FILE`` and ``report --html FILE`` replace only a file recoursesim wrote, never the user's."""

from __future__ import annotations

import hashlib
from pathlib import Path

from recoursesim.output import input_files, written_by_recoursesim
from tests.hostile.conftest import one_line_error, small_text


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_summarise_and_report_never_replace_a_file_of_the_user(cli, tmp_path):
    work = tmp_path / "work"
    (work / "s.toml").write_text(small_text())
    assert cli("sweep", "s.toml", "--seeds", "2", "--out", "sw", "--quiet")[0] == 0
    assert cli("run", "s.toml", "--out", "r")[0] == 0
    mine = work / "notes.toml"
    mine.write_text("my own notes\n")
    before = digest(mine)
    line = one_line_error(*cli("summarise", "sw", "--out", "notes.toml")[::2])
    assert line.startswith("error: --out:") and "not written by recoursesim" in line
    line = one_line_error(*cli("report", "r", "--html", "notes.toml")[::2])
    assert line.startswith("error: --html:") and "not written by recoursesim" in line
    assert digest(mine) == before


def test_a_file_recoursesim_wrote_is_replaced_on_the_next_run(cli, tmp_path):
    work = tmp_path / "work"
    (work / "s.toml").write_text(small_text())
    assert cli("sweep", "s.toml", "--seeds", "2", "--out", "sw", "--quiet")[0] == 0
    assert cli("run", "s.toml", "--out", "r")[0] == 0
    for _ in range(2):  # the second time replaces the first's files
        assert cli("summarise", "sw", "--out", "summary.parquet", "--quiet")[0] == 0
        assert cli("report", "r", "--html", "report.html")[0] == 0
        assert cli("report", "r", "--html", "report.md", "--format", "md")[0] == 0
    for name in ("summary.parquet", "report.html", "report.md"):
        assert written_by_recoursesim(work / name), name
    assert written_by_recoursesim(work / "r" / "ledger.parquet")


def test_the_mark_is_not_faked_by_a_look_alike(tmp_path):
    (tmp_path / "a.parquet").write_bytes(b"PAR1 not really parquet")
    (tmp_path / "b.html").write_text("<html><head><title>recoursesim</title></head></html>")
    assert not written_by_recoursesim(tmp_path / "a.parquet")
    assert not written_by_recoursesim(tmp_path / "b.html")


def test_a_model_file_named_by_the_scenario_is_an_input_of_the_run():
    spec = {"scorer": {"model_file": "model.skops"}, "population": {"path": "people.csv"}}
    assert {p.name for p in input_files(spec=spec)} == {"model.skops", "people.csv"}
