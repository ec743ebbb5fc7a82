"""The real-data scenarios run from the command line; bad input is one line, exit 2, nothing written."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

from recoursesim.cli import main
from tests.user_csv import people, user_scenario_text

REAL = ("german-credit-lending", "adult-income-threshold")


def _bundled(name: str) -> str:
    return resources.files("recoursesim.scenarios").joinpath(f"{name}.toml").read_text(encoding="utf-8")


def _variant(tmp_path: Path, text: str) -> str:
    path = tmp_path / "variant.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_german_credit_lending_prints_groups_and_writes_results(tmp_path: Path, capsys) -> None:
    out = tmp_path / "r"
    assert main(["run", "german-credit-lending", "--steps", "3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for word in ("female", "male", "successes", "rETR", "dTTR"):
        assert word in printed
    ledger = pd.read_parquet(out / "ledger.parquet")
    assert isinstance(ledger["purpose"].dtype, pd.CategoricalDtype)
    assert {"ledger.parquet", "summary.parquet", "scenario.json"} <= {p.name for p in out.iterdir()}


def test_adult_income_threshold_runs(tmp_path: Path, capsys) -> None:
    assert main(["run", "adult-income-threshold", "--steps", "2", "--no-write"]) == 0
    assert "Female" in capsys.readouterr().out


def _people_csv(tmp_path: Path, nan: bool) -> Path:
    path = tmp_path / "people.csv"
    people(80, nan_row=5 if nan else None).to_csv(path, index=False)
    return path


def test_user_csv_scenario_runs(tmp_path: Path) -> None:
    scenario = _variant(tmp_path, user_scenario_text(_people_csv(tmp_path, nan=False)))
    assert main(["run", scenario, "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "ledger.parquet").exists()


def _german_with(old: str, new: str) -> str:
    text = _bundled("german-credit-lending")
    assert old in text
    return text.replace(old, new, 1)


BAD = {
    "protected column not in the data": (
        lambda tmp: _german_with('group = "sex"', 'group = "gender"'),
        r"population\.group: 'gender' is not a column of the data; fix: use one of ",
    ),
    "categorical move to an unlisted category": (
        lambda tmp: _german_with(
            'name = "auto"', 'name = "auto"\naction_set = { allowed_categories = { purpose = ["flying"] } }'
        ),
        r"recourse\.action_set\.allowed_categories\.purpose: 'flying' is not a category of 'purpose'; fix: use some",
    ),
    "unknown model name": (
        lambda tmp: _german_with('model = "gradient_boosting"', 'model = "xgboost"'),
        r"scorer\.model: unknown model 'xgboost'; fix: use one of logistic, random_forest, gradient_boosting, mlp",
    ),
    "CSV with NaN in a needed feature": (
        lambda tmp: user_scenario_text(_people_csv(tmp, nan=True)),
        r"population\.feature_types\.income: column has 1 missing \(NaN\) value\(s\) in .*people\.csv, first in data "
        r"row 6; fix: replace them",
    ),
    "action set naming an unknown feature": (
        lambda tmp: _german_with('name = "auto"', 'name = "auto"\naction_set = { immutable = ["height"] }'),
        r"recourse\.action_set\.immutable: unknown feature 'height'; fix: use one of status, ",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_exit_2_nothing_written(case: str, tmp_path: Path, capsys) -> None:
    make, message = BAD[case]
    scenario = _variant(tmp_path, make(tmp_path))
    out = tmp_path / "out"
    assert main(["run", scenario, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert re.search(message, lines[0]), lines[0]
    assert "Traceback" not in captured.err + captured.out
    assert not out.exists()
