"""Bad tables for the anticipating lenders: one line naming the field, exit 2, nothing written."""

from importlib import resources

import pytest

from recoursesim.cli import main

BAD_TABLES = {
    "negative budget": ('[training]\nname = "strategic"\nbudget = -0.1\n', "training.budget"),
    "NaN budget": ('[training]\nname = "strategic"\nbudget = nan\n', "training.budget"),
    "text budget": ('[training]\nname = "strategic"\nbudget = "high"\n', "training.budget"),
    "negative tol": ('[training]\nname = "performative"\ntol = -1.0\n', "training.tol"),
    "unknown key": ('[training]\nname = "performative"\ntolerance = 0.1\n', "training.tolerance"),
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_cli_bad_trainer_exit_2_one_line_nothing_written(case, tmp_path, capsys):
    table, field = BAD_TABLES[case]
    default = resources.files("recoursesim.scenarios").joinpath("default.toml").read_text(encoding="utf-8")
    path = tmp_path / "bad.toml"
    path.write_text(default + "\n" + table)
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and field in err and "Traceback" not in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]
