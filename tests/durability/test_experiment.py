"""experiments/recourse_durability.py: bad arguments, and a tiny grid end to end."""

import pandas as pd
import pytest

from recoursesim.cli import guarded
from recoursesim.reproductions.recourse_durability import Condition, main, scenario_of, table
from tests.hostile.conftest import one_line_error


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seeds", "1"], "argument --seeds: must be at least 2"),
        (["--scenarios", "mars"], "argument --scenarios: invalid choice: 'mars'"),
    ],
)
def test_bad_arguments_exit_2_in_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and message in line and "--help" in line


def test_conditions_name_the_policy_and_wrap_the_scenarios_generator():
    cns = scenario_of(Condition("rising-competition", "CNS", "margin")).spec
    assert cns["selection"]["name"] == "cns" and cns["selection"]["k"][0] == 20
    assert cns["recourse"]["name"] == "margin" and cns["recourse"]["base"]["name"] == "linear"
    cda = scenario_of(Condition("german-credit", "CDA", "worst_case")).spec
    assert cda["training"] == {"name": "cda", "estimator": "gradient_boosting"} and cda["observers"] == []


def test_tiny_grid_prints_a_table_and_extra_cost_is_paired_with_exact(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["--seeds", "2", "--steps", "3", "--scenarios", "rising-competition", "--policies", "top-k",
                 "--out", str(out)])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "valid h=1" in printed and "load average" in printed
    rows = pd.read_csv(out / "runs.csv")
    result = table(rows)
    exact = result[result["generator"] == "exact"]
    assert exact["extra cost"].str.startswith("0.00").all()
    assert (out / "survival.png").stat().st_size > 10_000


def test_unknown_generator_exits_2(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--generators", "oracle"])
    assert stopped.value.code == 2 and "argument --generators: invalid choice: 'oracle'" in capsys.readouterr().err


def test_resume_reuses_finished_runs_and_quick_is_two_seeds_of_three_steps(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["--quick", "--resume", "--scenarios", "rising-competition", "--policies", "CNS", "--generators", "margin",
            "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    runs = sorted(p.name for p in (tmp_path / "out.runs").glob("*.rows.csv"))
    assert runs == [f"rising-competition__CNS__{g}__{s}.rows.csv" for g in ("exact", "margin") for s in (0, 1)]
    first = pd.read_csv(out / "runs.csv")
    assert set(first["seed"]) == {0, 1} and set(first["generator"]) == {"exact", "margin"}
    # A kept run is read back, not recomputed: a value changed in its file reaches the new table.
    kept = tmp_path / "out.runs" / "rising-competition__CNS__margin__1.rows.csv"
    rows = pd.read_csv(kept)
    rows["validity_1"] = 0.25
    rows.to_csv(kept, index=False)
    assert main(args) == 0
    again = pd.read_csv(out / "runs.csv")
    changed = again[(again["generator"] == "margin") & (again["seed"] == 1)]
    assert (changed["validity_1"] == 0.25).all()
    assert "mean per run" in capsys.readouterr().out
    # --from-runs runs nothing: it tables the runs of two directories (the first wins a duplicate)
    other = tmp_path / "other.runs"
    other.mkdir()
    for kind in ("rows", "curves"):
        frame = pd.read_csv(tmp_path / "out.runs" / f"rising-competition__CNS__exact__0.{kind}.csv")
        frame.assign(seed=5).to_csv(other / f"rising-competition__CNS__exact__5.{kind}.csv", index=False)
        if kind == "rows":
            frame["validity_1"] = 0.5  # a duplicate of a run the first directory has: not read
        frame.to_csv(other / f"rising-competition__CNS__exact__0.{kind}.csv", index=False)
    (other / "rising-competition__CNS__exact__9.rows.csv").write_text("unfinished: no curves file\n")
    capsys.readouterr()
    merged = tmp_path / "merged"
    assert main(["--from-runs", str(tmp_path / "out.runs"), str(other), "--out", str(merged)]) == 0
    printed = capsys.readouterr().out
    assert "rising-competition CNS exact 3" in printed and "rising-competition CNS margin 2" in printed
    rows = pd.read_csv(merged / "runs.csv")
    assert sorted(set(rows["seed"])) == [0, 1, 5]
    assert (rows.loc[(rows["generator"] == "margin") & (rows["seed"] == 1), "validity_1"] == 0.25).all()
    assert not (rows.loc[(rows["generator"] == "exact") & (rows["seed"] == 0), "validity_1"] == 0.5).any()
    assert (merged / "survival-rising-competition.png").stat().st_size > 10_000
    assert not (tmp_path / "merged.runs").exists()


def test_from_runs_refuses_a_missing_or_empty_directory(tmp_path, capsys):
    status = guarded(lambda: main(["--from-runs", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]))
    assert one_line_error(status, capsys.readouterr().err).startswith("error: --from-runs: ")
    status = guarded(lambda: main(["--from-runs", str(tmp_path), "--out", str(tmp_path / "out")]))
    line = one_line_error(status, capsys.readouterr().err)
    assert "no finished run" in line and "fix: " in line and not (tmp_path / "out").exists()


def test_shares_get_intervals_inside_zero_one_and_costs_student_t():
    # Validity 1.0 in nine seeds and 0.7 in one: the t-interval of the mean (0.97) reaches 1.038.
    validity = [1.0] * 9 + [0.7]
    rows = pd.DataFrame({
        "scenario": "bell2024", "policy": "top-k", "generator": "exact", "group": "a", "seed": range(10),
        "validity_1": validity, "validity_3": validity, "validity_5": validity,
        "expired_effort_share": [0.0] * 9 + [0.3], "retr": validity, "dttr": validity,
    })  # fmt: skip
    result = table(rows).iloc[0]
    for label in ("valid h=1", "effort on expired"):
        low, high = (float(v) for v in result[label].split("[")[1].rstrip("]").split(", "))
        assert low >= 0.0 and high <= 1.0
    assert result["valid h=1"].startswith("0.97 [0.91, 1.00]")
    # rETR is not a share: its Student-t interval may pass 1 (0.97 +- 2.262 * 0.0949 / sqrt(10) = [0.90, 1.04]).
    assert result["rETR"] == "0.97 [0.90, 1.04]"
