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


@pytest.mark.parametrize(
    ("module", "arguments", "field"),
    [
        ("bell2024_table1", ["--seeds", "1", "--csv", "{file}"], "--csv"),
        ("bell2024_table1", ["--seeds", "1", "--json", "{file}"], "--json"),
        ("eoe_synthetic", ["--seeds", "1", "--out", "{folder}"], "--out"),
        ("facts_adult", ["--protected", "sex", "--out", "{folder}"], "--out"),
    ],
)
def test_outputs_are_refused_before_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, arguments: list[str], field: str
) -> None:
    """A path the script may not write is refused before any run, so no work is lost and no file replaced."""
    import importlib

    from recoursesim.errors import ConfigError

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("the user's own file\n")
    script = importlib.import_module(f"recoursesim.reproductions.{module}")
    for name in ("reproduce", "run", "paper_setup"):  # the expensive part must not start
        if hasattr(script, name):
            monkeypatch.setattr(script, name, lambda *a, **k: pytest.fail("the work started"))
    given = [a.format(file=folder / "notes.txt", folder=folder) for a in arguments]
    with pytest.raises(ConfigError) as refused:
        script.main(given)
    assert refused.value.field == field
    assert (folder / "notes.txt").read_text() == "the user's own file\n"


def test_a_negative_count_given_to_a_script_is_one_line(tmp_path: Path) -> None:
    """``eoe_synthetic.py --seeds -1`` was a traceback (a ZeroDivisionError deep in the run)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = run_python([str(ROOT / "experiments" / "eoe_synthetic.py"), "--seeds", "-1"], tmp_path, env, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    expected = "argument --seeds: must be a positive integer, got -1; see 'eoe_synthetic.py --help'"
    assert line == f"eoe_synthetic.py: error: {expected}"


@pytest.mark.parametrize(
    ("module", "arguments", "message"),
    [
        ("gupta_toy", ["--bogus"], "unrecognized arguments: --bogus"),
        ("eoe_synthetic", ["--seeds", "many"], "argument --seeds: must be an integer, got 'many'"),
        ("bell2024_table1", ["--workers", "0"], "argument --workers: must be a positive integer, got 0"),
        ("ccm_adult", ["--seed", "-1"], "argument --seed: must be a non-negative integer, got -1"),
        ("real_data", ["--seeds", "1"], "argument --seeds: must be at least 2 (an interval across seeds needs two)"),
        ("recourse_durability", ["--policies", "magic"], "argument --policies: invalid choice: 'magic'"),
        ("eoe_synthetic", ["--seeds", "10000000000"], "argument --seeds: must be at most 1,000,000 seeds"),
        ("bell2024_table1", ["--seeds", "2000000"], "argument --seeds: must be at most 1,000,000 seeds"),
        ("delayed_impact_agents", ["--seeds", "0"], "argument --seeds: must be a positive integer, got 0"),
        ("delayed_impact_agents", ["--seeds", "10000000000"], "argument --seeds: must be at most 1,000,000 seeds"),
        ("liu2018", ["--bogus"], "unrecognized arguments: --bogus"),
        ("delayed_impact_over_time", ["--bogus"], "unrecognized arguments: --bogus"),
        ("calibration_recovery", ["--scenario", "bell2024", "--panels", "0"], "argument --panels: must be a positive"),
    ],
)
def test_scripts_refuse_bad_options_in_one_line_with_a_fix(capsys, module: str, arguments: list[str], message: str):
    """Every script's options are checked as the command line's are: one line that ends with where to look."""
    import importlib

    script = importlib.import_module(f"recoursesim.reproductions.{module}")
    with pytest.raises(SystemExit) as stopped:
        script.main(arguments)
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in line and line.endswith(" --help'"), line


def test_an_applicant_count_that_cannot_fit_in_memory_is_refused_before_the_work(tmp_path: Path) -> None:
    """``delayed_impact_agents.py --applicants 10**12`` is refused from its memory estimate, writing nothing."""
    from recoursesim.errors import ConfigError
    from recoursesim.reproductions import delayed_impact_agents

    with pytest.raises(ConfigError) as refused:
        delayed_impact_agents.main(["--applicants", str(10**12), "--out", str(tmp_path / "out")])
    assert refused.value.field == "--applicants"
    assert not (tmp_path / "out").exists()
