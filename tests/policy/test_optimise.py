import contextlib
import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.output import record as ownership
from recoursesim.policy.objectives import pareto_mask, parse_constraint, parse_objective, seed_mean
from recoursesim.policy.optimise import PolicySearch, PolicySpace
from recoursesim.policy.space import ParamRange, parse_metric
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.sweep import SweepAbortedError
from tests.hostile.conftest import one_line_error
from tests.policy._fake_runs import CrashingRunner, bowl_runner
from tests.policy._outputs import study_outputs, study_rows

pytestmark = pytest.mark.policy

# A continuous field too: its TPE draws depend on the sampler's random stream, so a sampler that is
# not re-seeded the same way after a stop would ask different trials.
SPACE = PolicySpace(
    (
        ParamRange("selection.k", 20, 200, integer=True),
        ParamRange("population.entrants", 10, 100, True),
        ParamRange("scorer.intercept", -0.5, 0.5),
    )
)


def _search(out, **kwargs):
    return PolicySearch(
        load_scenario("default"),
        SPACE,
        [parse_objective("min dTTR:a")],
        out,
        n_seeds=2,
        batch=2,
        startup_trials=3,
        **kwargs,
    )


def _history(search):
    frame = search.trials_frame()
    columns = ["selection.k", "population.entrants", "scorer.intercept", "min dttr:a", "min dttr:a_se"]
    return frame[columns].reset_index(drop=True)


def test_a_stopped_and_resumed_search_ends_like_an_uninterrupted_one(tmp_path):
    whole = _search(tmp_path / "whole")
    whole.open(resume=False)
    whole.run(10, runner=bowl_runner)
    expected = _history(whole)
    assert len(expected) == 10

    # Stopped between batches (a smaller --trials), then resumed with the full budget.
    parts = _search(tmp_path / "parts")
    parts.open(resume=False)
    parts.run(4, runner=bowl_runner)
    again = _search(tmp_path / "parts")
    again.open(resume=True)
    assert again.run(10, runner=bowl_runner) == 6
    pd.testing.assert_frame_equal(_history(again), expected)

    # Killed in the middle of a batch: the cut-short trials are marked, asked again, and do not count.
    crashed = _search(tmp_path / "crashed")
    crashed.open(resume=False)
    with pytest.raises(SweepAbortedError):
        crashed.run(10, runner=CrashingRunner(after=9))
    resumed = _search(tmp_path / "crashed")
    resumed.open(resume=True)
    resumed.run(10, runner=bowl_runner)
    pd.testing.assert_frame_equal(_history(resumed), expected)
    interrupted = [t for t in resumed.study_.trials if t.user_attrs.get("interrupted")]
    assert len(interrupted) == 2

    best = {name: s.best(s.trials_frame()) for name, s in (("whole", whole), ("again", again), ("res", resumed))}
    assert best["whole"] is not None
    for other in ("again", "res"):
        assert best[other]["selection.k"] == best["whole"]["selection.k"]
        assert best[other]["min dttr:a"] == best["whole"]["min dttr:a"]


def test_resuming_with_other_options_is_refused(tmp_path):
    first = _search(tmp_path / "s")
    first.open(resume=False)
    other = PolicySearch(load_scenario("default"), SPACE, [parse_objective("max dttr:a")], tmp_path / "s", batch=2)
    with pytest.raises(ConfigError, match="holds another search"):
        other.open(resume=True)


def test_objectives_and_constraints_by_hand():
    objective = parse_objective("min |rETR:female - 1|")
    assert objective.label == "min |retr:female - 1|" and objective.direction == "minimize"
    assert objective.value(0.7) == pytest.approx(0.3) and objective.value(1.2) == pytest.approx(0.2)
    assert parse_objective("max selected:all").value(900.0) == 900.0
    assert parse_objective("min dttr:a + 2").value(1.0) == pytest.approx(3.0)
    constraint = parse_constraint("selected:all >= 900")
    assert constraint.violation(950) == -50 and constraint.violation(850) == 50
    assert parse_constraint("censored:female <= 10").violation(12) == 2
    for bad in ("min |dttr:a", "lower dttr:a", "min dttr", "min etr:all"):
        with pytest.raises(ConfigError):
            parse_objective(bad)
    assert seed_mean(np.array([1.0, 3.0, np.nan])) == (2.0, pytest.approx(1.0), 2)


def test_pareto_mask_by_hand():
    values = np.array([[1.0, 5.0], [2.0, 2.0], [3.0, 3.0], [5.0, 1.0], [2.0, 2.0]])
    assert pareto_mask(values).tolist() == [True, True, False, True, True]


def test_metric_sums_counts_over_groups():
    rows = pd.DataFrame(
        {
            "seed_index": [0, 0, 0, 0, 1, 1, 1, 1],
            "step": pd.array([None] * 8, dtype="Int32"),
            "group": ["a", "a", "b", "b"] * 2,
            "metric": ["selected_on_entry", "recourse"] * 4,
            "value": [1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0],
        }
    )
    assert parse_metric("selected:all").per_seed(rows).tolist() == [10.0, 100.0]
    assert parse_metric("selected:b").per_seed(rows).tolist() == [7.0, 70.0]
    assert parse_metric("recourse:a").per_seed(rows).tolist() == [2.0, 20.0]


def test_cli_two_objectives_writes_front_and_a_runnable_best_policy(tmp_path):
    out = tmp_path / "opt"

    def argv(trials):
        return [
        "optimise", "default", "--param", "selection.k=10:60", "--param", "run.steps=3:5",
        "--choice", "selection.name=top_k,circumstance_normalised",
        "--objective", "min |dTTR:disadvantaged|", "--objective", "min censored:all",
        "--constraint", "entered:all >= 200", "--trials", str(trials), "--seeds", "2", "--startup-trials", "2",
        "--out", str(out), "--quiet",
        ]  # fmt: skip

    assert main(argv(4)) == 0
    for name in ("study.db", "trials.parquet", "pareto.parquet", "pareto.png", "best-policy.toml", "optimise.json"):
        assert (out / name).is_file(), name
    trials = pd.read_parquet(out / "trials.parquet")
    assert len(trials) == 4 and trials["pareto"].any()
    assert set(trials["selection.name"]) <= {"top_k", "circumstance_normalised"}
    best = Scenario.from_file(out / "best-policy.toml")
    chosen = trials.set_index("number").loc[json.loads((out / "optimise.json").read_text())["best_trial"]]
    assert chosen["pareto"]
    assert best.spec["selection"]["name"] == chosen["selection.name"]
    assert best.spec["run"]["steps"] == chosen["run.steps"]
    assert best.spec["selection"]["k"] == chosen["selection.k"]
    assert len(list((out / "front").glob("trial-*.toml"))) == int(trials["pareto"].sum())
    assert main([*argv(6), "--resume"]) == 0
    assert len(pd.read_parquet(out / "trials.parquet")) == 6


def test_overwrite_and_resume_touch_only_the_studys_own_files(tmp_path, capsys):
    out = tmp_path / "opt"

    def argv(trials, *more):
        return [
            "optimise", "default", "--param", "selection.k=10:60", "--objective", "min |dTTR:disadvantaged|",
            "--trials", str(trials), "--seeds", "1", "--startup-trials", "2", "--out", str(out), "--quiet", *more,
        ]  # fmt: skip

    assert main(argv(2)) == 0
    assert main(argv(2, "--overwrite")) == 0  # every file recorded: replaced through a hidden working directory
    notes = [(out / "best-policy.toml").read_text(encoding="utf-8")]
    notes += [path.read_text(encoding="utf-8") for path in (out / "front").glob("trial-*.toml")]
    search = json.loads((out / "optimise.json").read_text(encoding="utf-8"))["search"]
    for text in notes:  # the comment names the search, not the working directory
        comment = text.splitlines()[0]
        assert ".tmp-" not in comment and f"policy search {search} of scenario 'default'" in comment, comment
    capsys.readouterr()
    (out / "best-policy.toml").write_text("# my edits\n", encoding="utf-8")
    line = one_line_error(main(argv(3, "--resume")), capsys.readouterr().err)
    assert "best-policy.toml was not written by recoursesim" in line
    assert (out / "best-policy.toml").read_text(encoding="utf-8") == "# my edits\n"
    assert len(pd.read_parquet(out / "trials.parquet")) == 2  # refused before any trial ran
    (out / "best-policy.toml").unlink()
    (out / "front" / "trial-99.toml").write_text("mine", encoding="utf-8")
    assert "trial-99.toml" in one_line_error(main(argv(3, "--resume")), capsys.readouterr().err)
    (out / "front" / "trial-99.toml").unlink()
    assert main(argv(3, "--resume")) == 0
    assert len(pd.read_parquet(out / "trials.parquet")) == 3 and (out / "best-policy.toml").is_file()


def test_a_stopped_search_can_be_replaced_and_a_foreign_study_file_is_never_taken_over(tmp_path, capsys, monkeypatch):
    out = tmp_path / "opt"

    def argv(*more):
        return [
            "optimise", "default", "--param", "selection.k=10:60", "--objective", "min |dTTR:disadvantaged|",
            "--trials", "6", "--seeds", "1", "--startup-trials", "2", "--out", str(out), "--quiet", *more,
        ]  # fmt: skip

    real_run = PolicySearch.run
    with monkeypatch.context() as patch:  # stopped in its third trial: study.db changed since it was recorded
        patch.setattr(PolicySearch, "run", lambda self, n, **kw: real_run(self, n, runner=CrashingRunner(after=2)))
        assert main(argv()) == 2
    assert main(argv("--overwrite")) == 0
    assert len(pd.read_parquet(out / "trials.parquet")) == 6
    capsys.readouterr()

    theirs = tmp_path / "theirs"  # a study.db recoursesim did not create: refused, not opened
    theirs.mkdir()
    (theirs / "study.db").write_bytes(b"the user's own database")
    argv_theirs = [*argv("--resume")[:-4], "--out", str(theirs), "--quiet", "--resume"]
    assert "is not a study recoursesim created there" in one_line_error(main(argv_theirs), capsys.readouterr().err)
    assert (theirs / "study.db").read_bytes() == b"the user's own database"
    assert sorted(p.name for p in theirs.iterdir()) == ["study.db"]

    # The user's own SQLite file where a study's database was (a recorded name): neither opened nor deleted.
    (out / "study.db").rename(tmp_path / "ours.db")
    with contextlib.closing(sqlite3.connect(out / "study.db")) as mine:
        mine.execute("CREATE TABLE notes (x)")
        mine.commit()
    journal = bytes.fromhex("d9d505f920a163d7") + bytes(512)  # as if a killed writer had left it hot
    (out / "study.db-journal").write_bytes(journal)
    before = (out / "study.db").read_bytes()
    assert "is not a study recoursesim created there" in one_line_error(main(argv("--resume")), capsys.readouterr().err)
    assert (out / "study.db").read_bytes() == before and (out / "study.db-journal").read_bytes() == journal
    (out / "study.db-journal").unlink()
    (out / "study.db").write_text("my thesis notes")  # not even SQLite: --overwrite does not delete it
    assert "study.db" in one_line_error(main(argv("--overwrite")), capsys.readouterr().err)
    assert (out / "study.db").read_text() == "my thesis notes"
    (out / "study.db").unlink()
    (tmp_path / "ours.db").rename(out / "study.db")

    with ownership.exclusive(out, "study"):  # another process resuming this study meanwhile
        assert "another study is writing" in one_line_error(main(argv("--resume")), capsys.readouterr().err)

    (out / "front").rename(tmp_path / "front-moved")  # a file where the search writes a folder
    (out / "front").write_text("mine")
    line = one_line_error(main(argv("--resume")), capsys.readouterr().err)
    assert "front is a symbolic link or a file" in line and (out / "front").read_text() == "mine"


def test_resuming_where_no_study_was_started_says_how_to_start_one(tmp_path, capsys):
    assert main(["run", "default", "--steps", "2", "--out", str(tmp_path / "opt")]) == 0  # holds other files
    capsys.readouterr()
    argv = [
        "optimise", "default", "--param", "selection.k=10:60", "--objective", "min |dTTR:disadvantaged|",
        "--out", str(tmp_path / "opt"), "--quiet", "--resume",
    ]  # fmt: skip
    line = one_line_error(main(argv), capsys.readouterr().err)
    assert "holds no study" in line and "with --overwrite if --out holds files" in line


def _choice_runner(task):
    """dTTR:a = k and entered:all = 101 - k: every k is Pareto-optimal, and a repeated k gives the same values."""
    from recoursesim.sweep import RunOutcome
    from recoursesim.sweep.worker import encode_shard

    k = float(task.params["selection.k"])
    summary = pd.DataFrame({"group": ["a", "b"], "dttr": [k, 0.0], "entered": [100 - int(k), 1]})
    return RunOutcome(task, encode_shard(task, None, summary))


def test_a_policy_proposed_again_is_listed_once_on_the_front(tmp_path):
    from recoursesim.policy.space import parse_choices

    search = PolicySearch(
        load_scenario("default"),
        PolicySpace((), tuple(parse_choices(["selection.k=20,40"]))),
        [parse_objective("min dTTR:a"), parse_objective("min entered:all")],
        tmp_path / "opt",
        n_seeds=2,
        batch=2,
        startup_trials=2,
    )
    search.open(resume=False)
    search.run(6, runner=_choice_runner)  # two policies, six trials: repeats are certain
    frame = search.trials_frame()
    assert len(frame) == 6 and frame["selection.k"].nunique() == 2
    firsts = frame.groupby("selection.k")["number"].min()
    assert sorted(frame.loc[frame["pareto"], "number"]) == sorted(firsts)  # each policy once: its first trial
    for _, row in frame.iterrows():
        expected = -1 if row["number"] == firsts[row["selection.k"]] else firsts[row["selection.k"]]
        assert row["same_as"] == expected
    search.write()
    assert len(pd.read_parquet(search.out / "pareto.parquet")) == 2
    assert len(list((search.out / "front").glob("trial-*.toml"))) == 2


def test_a_written_policy_is_named_after_its_trial_and_describes_its_settings(tmp_path):
    from recoursesim.policy import policy_toml

    text = policy_toml(load_scenario("default"), {"selection.name": "cns", "selection.k": 40}, "note", trial=7)
    policy = Scenario.from_dict(__import__("tomllib").loads(text))
    assert policy.name == "default-trial-7"  # runs into results/default-trial-7, not over the searched scenario's
    description = policy.spec["description"]
    assert "selection.k = 40" in description and 'selection.name = "cns"' in description
    assert "top-k" not in description.lower()  # the searched scenario's description is not kept


def test_tied_front_points_get_one_label():
    from recoursesim.policy.figures import pareto_figure

    trials = pd.DataFrame(
        {
            "number": [0, 1, 2],
            "pareto": [True, True, True],
            "feasible": [True, True, True],
            "min a": [1.0, 1.0, 2.0],
            "min a_se": [0.1, 0.1, 0.1],
            "min b": [3.0, 3.0, 1.0],
            "min b_se": [0.1, 0.1, 0.1],
        }
    )
    figure = pareto_figure(trials, ["min a", "min b"], title="t")
    labels = sorted(text.get_text() for text in figure.axes[0].texts)
    assert labels == ["#0, #1", "#2"]


def test_two_identical_searches_write_identical_files(tmp_path):
    # Everything but wall-clock times: optimise.json's seconds_this_session and the study's trial
    # start and end times (compared without them).
    argv = [
        "optimise", "default", "--param", "selection.k=10:60", "--param", "scorer.intercept=-0.2:0.2",
        "--objective", "min |dTTR:disadvantaged|", "--objective", "max selected:all", "--trials", "4",
        "--seeds", "2", "--startup-trials", "2", "--batch", "2", "--quiet",
    ]  # fmt: skip
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        assert main([*argv, "--out", str(out)]) == 0
    first, second = (study_outputs(out, "optimise.json", clocked=("study.db",)) for out in outs)
    assert {"trials.parquet", "pareto.parquet", "pareto.png", "best-policy.toml"} <= set(first["files"])
    assert sorted(first["files"]) == sorted(second["files"])
    for name in first["files"]:
        assert first["files"][name] == second["files"][name], name
    assert first["notes"] == second["notes"] and first["record"] == second["record"]
    rows = study_rows(outs[0] / "study.db")
    assert len(rows["trials"]) == 4 and rows == study_rows(outs[1] / "study.db")
