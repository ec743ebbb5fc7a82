import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _facts_tiny import FIXED, tiny_frame

from recoursesim.cli import main


@pytest.fixture
def csv(tmp_path):
    frame = tiny_frame(np.random.default_rng(5), n=400)
    frame["y"] = FIXED.predict(frame)
    path = tmp_path / "tiny.csv"
    frame.to_csv(path, index=False)
    return path


def test_cli_csv_writes_ranking(csv, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        [
            "audit",
            "facts",
            "--csv",
            str(csv),
            "--target",
            "y",
            "--protected",
            "s",
            "--support",
            "0.1",
            "--top",
            "2",
            "--model",
            "random_forest",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    table = pd.read_parquet(out / "ranking.parquet")
    assert {"subgroup", "metric", "score", "rank", "bias_against"} <= set(table.columns)
    assert (out / "summary.json").exists() and (out / "report.md").exists()
    assert "common_subgroups" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--protected", "nope"], "--protected"),
        (["--protected", "s", "--support", "0"], "--support"),
        (["--protected", "s", "--support", "1.5"], "--support"),
        (["--protected", "s", "--model", "svm"], "--model"),
        (["--protected", "s", "--metric", "nonsense"], "--metric"),
    ],
)
def test_cli_errors_are_one_line_and_write_nothing(csv, tmp_path, capsys, argv, message):
    out = tmp_path / "never"
    code = main(["audit", "facts", "--csv", str(csv), "--target", "y", "--support", "0.1", *argv, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not out.exists()


def test_cli_unknown_dataset_and_single_valued_protected(tmp_path, capsys):
    assert main(["audit", "facts", "--dataset", "iris", "--protected", "sex"]) == 2
    assert "--dataset" in capsys.readouterr().err
    frame = tiny_frame(np.random.default_rng(6), n=200).assign(s="F")
    frame["y"] = FIXED.predict(frame)
    frame.to_csv(tmp_path / "one.csv", index=False)
    code = main(["audit", "facts", "--csv", str(tmp_path / "one.csv"), "--target", "y", "--protected", "s"])
    assert code == 2
    assert "1 distinct value" in capsys.readouterr().err


@pytest.mark.parametrize(("bad", "what"), [(np.nan, "missing (NaN)"), (np.inf, "infinite"), (-np.inf, "infinite")])
def test_cli_csv_with_nan_or_inf_is_one_line_error_naming_the_column(tmp_path, capsys, bad, what):
    frame = tiny_frame(np.random.default_rng(5), n=200)
    frame["y"] = FIXED.predict(frame)
    frame["x"] = np.arange(len(frame), dtype=float)
    frame.loc[7, "x"] = bad
    frame.to_csv(tmp_path / "bad.csv", index=False)
    out = tmp_path / "never"
    argv = ["audit", "facts", "--csv", str(tmp_path / "bad.csv"), "--target", "y", "--protected", "s"]
    assert main([*argv, "--support", "0.1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"error: x: column has 1 {what} value(s), first in data row 8; fix: fill, replace or drop them "
        "before auditing (FACTS needs a value in every cell)\n"
    )
    assert not out.exists()


def test_cli_action_rule_option(csv, tmp_path, capsys):
    argv = ["audit", "facts", "--csv", str(csv), "--target", "y", "--protected", "s", "--support", "0.1"]
    assert main([*argv, "--actions", "subsets", "--metric", "equal_effectiveness", "--top", "1"]) == 0
    assert "action_rule: subsets" in capsys.readouterr().out
    assert main([*argv, "--metric", "equal_effectiveness", "--top", "1"]) == 0
    assert "action_rule: same_features" in capsys.readouterr().out


def test_cli_prints_each_summary_line_once_ranked_tables_with_headers_and_both_times(csv, capsys):
    argv = ["audit", "facts", "--csv", str(csv), "--target", "y", "--protected", "s", "--support", "0.1", "--top", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert not [line for line in lines if re.match(r"^(\w+): \1:", line)]  # "support: support: ..." once only
    assert any(line.startswith("support: subgroups need") for line in lines)
    tables = [i for i, line in enumerate(lines) if line.startswith("== ")]
    assert tables
    assert all(lines[i + 1].split() == ["rank", "score", "against", "subgroup"] for i in tables)
    times = re.findall(r"^(\w+_seconds): [0-9.]+$", out, flags=re.M)
    assert times == ["audit_seconds", "command_seconds"]
    facts_page = (Path(__file__).resolve().parents[3] / "docs" / "facts.md").read_text(encoding="utf-8")
    assert all(f"`{key}`" in facts_page for key in times)  # the docs explain each time the command prints
