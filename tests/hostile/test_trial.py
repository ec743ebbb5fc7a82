"""The rest of the hostile-input trial: each case was reproduced on the earlier code before its fix.

Every bad input ends as one stderr line naming the field and a concrete fix, exit 2, no traceback,
nothing written; the inputs that can be accepted (a byte-order mark, a compressed CSV) are.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from recoursesim.datasets.user import favourable_labels, read_table
from recoursesim.errors import ConfigError, DataError
from recoursesim.scenario import Scenario
from tests.hostile.conftest import one_line_error, small_text, tree
from tests.user_csv import people, user_scenario_text


def user_scenario(tmp_path: Path, frame: pd.DataFrame | None = None, name: str = "people.csv", **parts: str) -> Path:
    data = tmp_path / name
    if frame is not None:
        frame.to_csv(data, index=False)
    path = tmp_path / "user.toml"
    path.write_text(user_scenario_text(data, **parts), encoding="utf-8")
    return path


def refused(cli, *argv: str) -> str:
    """Run the command; assert the one-line refusal; return the line."""
    return one_line_error(*cli(*argv)[::2])


# -- silently wrong results ------------------------------------------------------------------


def test_text_outcome_needs_favourable(cli, tmp_path):
    frame = people()
    frame["approved"] = np.where(frame["approved"] == 1, "approved", "denied")
    line = refused(cli, "run", str(user_scenario(tmp_path, frame)), "--no-write")
    assert "population.favourable" in line and "'approved' and 'denied'" in line
    assert 'favourable = "approved"' in line
    status, _, err = cli("run", str(user_scenario(tmp_path, frame, population='favourable = "approved"')), "--no-write")
    assert status == 0, err


def test_favourable_labels_rule():
    labels = favourable_labels(pd.Series([0, 1, 1], name="y"), None, field="target", favourable_field="favourable")
    assert labels.tolist() == [0, 1, 1]
    flags = favourable_labels(pd.Series([True, False], name="y"), None, field="t", favourable_field="f")
    assert flags.tolist() == [1, 0]
    chosen = favourable_labels(pd.Series(["no", "yes", "no"], name="y"), "no", field="t", favourable_field="f")
    assert chosen.tolist() == [1, 0, 1]  # the smaller label, when the user says so
    for values in (["no", "yes"], [1, 2]):
        with pytest.raises(ConfigError, match=r"^favourable: is needed"):
            favourable_labels(pd.Series(values, name="y"), None, field="target", favourable_field="favourable")
    with pytest.raises(ConfigError, match=r"^favourable: 'maybe' is not a value"):
        favourable_labels(pd.Series(["no", "yes"], name="y"), "maybe", field="target", favourable_field="favourable")


def test_facts_csv_text_target_needs_favourable(cli, tmp_path):
    frame = people()
    frame["approved"] = np.where(frame["approved"] == 1, "approved", "denied")
    frame.to_csv(tmp_path / "p.csv", index=False)
    argv = ("audit", "facts", "--csv", str(tmp_path / "p.csv"), "--target", "approved", "--protected", "sex")
    line = refused(cli, *argv)
    assert "--favourable" in line and "--favourable approved" in line
    assert tree(tmp_path / "work") == []


def test_duplicate_column_names_are_refused(cli, tmp_path):
    lines = people().to_csv(index=False).splitlines()
    lines[0] = lines[0].replace("years", "income")
    (tmp_path / "people.csv").write_text("\n".join(lines) + "\n")
    scenario = user_scenario(tmp_path)
    scenario.write_text(scenario.read_text().replace('years = "integer"\n', ""))
    line = refused(cli, "run", str(scenario), "--no-write")
    assert "population.path" in line and "'income' 2 times" in line
    audit = ("audit", "ccm", "--csv", str(tmp_path / "people.csv"), "--target", "approved", "--sensitive", "sex")
    assert "--csv" in refused(cli, *audit)
    assert tree(tmp_path / "work") == []


def test_zero_cost_weight_is_refused(cli, tmp_path):
    path = user_scenario(tmp_path, people(), recourse="cost_weights = { income = 0.0, years = 1.0 }")
    line = refused(cli, "run", str(path), "--no-write")
    assert "recourse.cost_weights.income" in line and "rETR" in line and "action_set.immutable" in line


def test_infinite_value_names_the_column_and_row(cli, tmp_path):
    frame = people()
    frame.loc[7, "income"] = np.inf
    line = refused(cli, "run", str(user_scenario(tmp_path, frame)), "--no-write")
    assert "population.feature_types.income" in line and "infinite" in line and "data row 8" in line
    assert "action_set" not in line


# -- tracebacks ------------------------------------------------------------------------------


@pytest.mark.parametrize("nested", ["x = " + "[" * 3000 + "]" * 3000, "x = " + "{a = " * 3000 + "1" + "}" * 3000])
def test_deeply_nested_toml(cli, tmp_path, nested):
    path = tmp_path / "deep.toml"
    path.write_text(nested + "\n")
    line = refused(cli, "run", str(path), "--no-write")
    assert "deep.toml: toml:" in line and "levels deep" in line


def test_brackets_inside_strings_are_not_nesting(scenario_file):
    path = scenario_file()
    path.write_text(path.read_text().replace('name = "small"', 'name = "' + "[" * 100 + '" # ]]]]'))
    assert Scenario.from_file(path).name == "[" * 100


def test_estimator_parameter_rejected_at_load(cli, tmp_path):
    line = refused(cli, "run", str(user_scenario(tmp_path, people(), scorer="params = { C = -1 }")), "--no-write")
    assert "scorer.params.C" in line and "LogisticRegression" in line
    line = refused(cli, "run", str(user_scenario(tmp_path, people(), scorer="params = { Cee = 1 }")), "--no-write")
    assert "scorer.params.Cee" in line and "max_iter" in line


def test_refit_estimator_parameter_rejected_at_load(scenario_file):
    path = scenario_file(extra='\n[training]\nname = "refit"\nestimator_params = { C = -1 }\n')
    with pytest.raises(ConfigError) as caught:
        Scenario.from_file(path)
    assert caught.value.field == "training.estimator_params.C"


@pytest.mark.parametrize(
    ("where", "text"),
    [("dataset", "features = []"), ("bundled", "features = []")],
)
def test_empty_feature_list(cli, tmp_path, where, text):
    if where == "dataset":
        path = user_scenario(tmp_path, people(), population=text)
    else:
        path = tmp_path / "g.toml"
        bundled = Path(__file__).resolve().parents[2] / "scenarios" / "german-credit-lending.toml"
        path.write_text(bundled.read_text().replace('group = "sex"', f'group = "sex"\n{text}'))
    line = refused(cli, "run", str(path), "--no-write")
    assert "population.features: is empty" in line


def test_empty_feature_list_of_a_mixture(cli, scenario_file):
    path = scenario_file()
    path.write_text(path.read_text().replace('features = ["skill", "experience"]', "features = []"))
    line = refused(cli, "run", str(path), "--no-write")
    assert "population.features" in line and 'features = ["x0", "x1"]' in line


PLUGIN = """
import numpy as np

class StringScorer:
    def score(self, X):
        return np.array(["high"] * len(X))
"""


def test_plugin_scorer_returning_strings(tmp_path):
    from recoursesim.registry import _REGISTRY, register
    from recoursesim.simulate import simulate

    @register("scorer", "test_trial_strings")
    class StringScorer:
        def score(self, features):
            return np.array(["high"] * len(features))

    try:
        path = tmp_path / "s.toml"
        text = small_text().replace('name = "linear"   # f(x)', 'name = "test_trial_strings"  # f(x)')
        path.write_text(text.replace("weights = [0.5, 0.5]\n", "", 1))
        with pytest.raises(DataError, match=r"^scorer: returned <U4 values such as np.str_\('high'\), not numbers"):
            simulate(path, 0)
    finally:
        _REGISTRY["scorer"].pop("test_trial_strings")


def _run_dir(cli, scenario_file) -> Path:
    assert cli("run", str(scenario_file()), "--out", "r")[0] == 0
    return Path("r")


@pytest.mark.parametrize("damage", ["garbage", "truncate"])
def test_corrupt_parquet_given_to_report(cli, scenario_file, damage):
    run = _run_dir(cli, scenario_file)
    ledger = run / "metrics.parquet"
    data = ledger.read_bytes()
    ledger.write_bytes(b"not parquet" if damage == "garbage" else data[: len(data) // 2])
    line = refused(cli, "report", "r", "--html", "rep.html")
    assert "RESULTS" in line and "metrics.parquet" in line and "--out DIR" in line
    assert not Path("rep.html").exists() and not Path("rep_figures").exists()


def test_corrupt_shard_given_to_summarise(cli, scenario_file):
    assert cli("sweep", str(scenario_file()), "--seeds", "2", "--out", "sw", "--quiet")[0] == 0
    shard = sorted(Path("sw/runs").glob("*.parquet"))[0]
    shard.write_bytes(b"garbage")
    line = refused(cli, "summarise", "sw", "--out", "sum.parquet")
    assert shard.name in line and "--resume" in line
    assert not Path("sum.parquet").exists()


# -- resources -------------------------------------------------------------------------------


def _many_categories(tmp_path: Path, recourse: str) -> Path:
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame(
        {
            "income": rng.normal(30, 5, n).round(1),
            "city": [f"c{i}" for i in range(300)] * 2,
            "sex": rng.choice(["f", "m"], n),
            "approved": rng.integers(0, 2, n),
        }
    )
    path = user_scenario(tmp_path, frame)
    text = (
        path.read_text().replace('years = "integer"', 'city = "categorical"').replace("initial = 30", "initial = 200")
    )
    path.write_text(text.replace('name = "search"', f'name = "{recourse}"'))
    return path


def test_many_categories_exact_linear_refused_before_allocating(cli, tmp_path, monkeypatch):
    import recoursesim.recourse.exact_linear as exact

    monkeypatch.setattr(exact, "available_memory", lambda: 64 * 2**20)  # 200 agents x 300 options need ~5.5 MiB
    monkeypatch.setattr(exact, "BYTES_PER_OPTION", 96 * 20)  # scale the estimate up instead of the data
    line = refused(cli, "run", str(_many_categories(tmp_path, "exact_linear")), "--no-write")
    assert "recourse.name" in line and "'city' has 300 categories" in line and 'name = "search"' in line
    assert "GiB" in line or "MiB" in line
    status, _, err = cli("run", str(_many_categories(tmp_path, "auto")), "--no-write")
    assert status == 0, err  # auto searches instead


def test_many_categories_exact_linear_runs_when_it_fits(cli, tmp_path):
    status, _, err = cli("run", str(_many_categories(tmp_path, "exact_linear")), "--no-write")
    assert status == 0, err


def test_pareto_filter_matches_the_pairwise_definition():
    from recoursesim.recourse.separable import pareto_options

    rng = np.random.default_rng(1)
    for _ in range(200):
        n, m = int(rng.integers(1, 5)), int(rng.integers(1, 8))
        gain = rng.integers(-2, 4, (n, m)).astype(float)
        cost = rng.integers(0, 3, (n, m)).astype(float)
        usable = rng.random((n, m)) < 0.8
        value = np.broadcast_to(np.arange(m, dtype=float), (n, m))
        options = pareto_options(value, gain, cost, usable)
        for i in range(n):
            ok = usable[i] & (gain[i] > 0)
            expected = []
            for a in np.flatnonzero(ok):
                dominated = any(
                    cost[i, b] <= cost[i, a]
                    and gain[i, b] >= gain[i, a]
                    and (cost[i, b] < cost[i, a] or gain[i, b] > gain[i, a] or b < a)
                    for b in np.flatnonzero(ok)
                    if b != a
                )
                if not dominated:
                    expected.append(float(a))
            kept = options.value[i][np.isfinite(options.cost[i])].tolist()
            assert kept == expected


# -- messages naming the wrong thing ---------------------------------------------------------


def test_audit_columns_are_named_by_their_option(cli, tmp_path):
    people().to_csv(tmp_path / "p.csv", index=False)
    csv = str(tmp_path / "p.csv")
    line = refused(cli, "audit", "ccm", "--csv", csv, "--target", "approved", "--sensitive", "sex", "--features", "zz")
    assert line.startswith("error: --features: 'zz' is not a column") and "frame" not in line
    effort = ("audit", "effort", "--csv", csv, "--sensitive", "sex", "--protected", "f", "--target", "approved")
    line = refused(cli, *effort, "--variables", "income", "zz", "--actionable", "income")
    assert line.startswith("error: --variables: 'zz' is not a column")


@pytest.mark.parametrize("command", ["report", "summarise"])
def test_write_errors_name_the_option_not_a_temporary_path(cli, scenario_file, monkeypatch, command):
    import pyarrow.parquet as pq

    import recoursesim.report.build as build

    if command == "report":
        _run_dir(cli, scenario_file)
        figure = SimpleNamespace(name="f", png=lambda: b"png", svg=lambda: b"svg")
        report = SimpleNamespace(figures=[figure], sections=[SimpleNamespace(paragraphs=[])])
        monkeypatch.setattr(build, "load_results", lambda *args, **kwargs: None)  # only the writing is under test
        monkeypatch.setattr(build, "build_report", lambda data, progress=None: report)
        monkeypatch.setattr(build, "to_html", lambda built: "<html></html>")

        def full(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))

        monkeypatch.setattr(build.Path, "write_bytes", full)
        line = refused(cli, "report", "r", "--html", "rep.html")
        assert line.startswith("error: --html: rep.html: writing the report failed (No space left on device)")
    else:
        assert cli("sweep", str(scenario_file()), "--seeds", "1", "--out", "sw", "--quiet")[0] == 0

        def read_only(table, where, **kwargs):
            raise OSError(f"Failed to open local file '{where}'. Detail: [errno 30] Read-only file system")

        monkeypatch.setattr(pq, "write_table", read_only)
        line = refused(cli, "summarise", "sw", "--out", "sum.parquet")
        assert line.startswith("error: --out: sum.parquet: writing the summary failed (Read-only file system)")
    assert ".tmp" not in line
    assert not [p for p in Path().rglob(".*tmp*")]


def test_no_doubled_prefix(cli, tmp_path):
    bundled = Path(__file__).resolve().parents[2] / "scenarios" / "german-credit-lending.toml"
    path = tmp_path / "g.toml"
    path.write_text(bundled.read_text().replace('group = "sex"', 'group = "sex"\nfeatures = ["height"]'))
    line = refused(cli, "run", str(path), "--no-write")
    assert "population.features: 'height'" in line and "population.population" not in line
    assert ConfigError("recourse.name", "p", "f").under("recourse").field == "recourse.name"
    assert ConfigError("name", "p", "f").under("recourse").field == "recourse.name"


def test_observer_direction_is_checked_at_load_with_a_concrete_fix(cli, scenario_file):
    path = scenario_file(extra='\n[[observers]]\nname = "equality_of_effort"\ndirection = { skill = "sideways" }\n')
    line = refused(cli, "run", str(path), "--no-write")
    assert "observers[0].direction.skill" in line and "'increase', 'decrease', 'both'" in line


def test_no_generic_fix_texts():
    """No error tells the user to 'fix it': every fix says what to do."""
    root = Path(__file__).resolve().parents[2] / "recoursesim"
    generic = ('"fix it"', '"fix the list"', '"check the data"', '"check the caller"', '"fix the selector"')
    offenders = [
        f"{path.relative_to(root)}: {text}"
        for path in root.rglob("*.py")
        for text in generic
        if text in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_directory_or_fifo_given_as_a_file(cli, tmp_path, kind):
    def special(path: Path) -> None:
        path.mkdir() if kind == "directory" else os.mkfifo(path)

    special(tmp_path / "s.toml")
    expected = "is a directory" if kind == "directory" else "is not a regular file"
    line = refused(cli, "run", str(tmp_path / "s.toml"), "--no-write")
    assert line.startswith("error: scenario:") and expected in line and "not found" not in line
    special(tmp_path / "people.csv")
    line = refused(cli, "run", str(user_scenario(tmp_path)), "--no-write")
    assert "population.path" in line and expected in line and "not found" not in line
    audit = ("audit", "ccm", "--csv", str(tmp_path / "people.csv"), "--target", "approved", "--sensitive", "sex")
    assert expected in refused(cli, *audit)


def test_toml_with_a_byte_order_mark_is_accepted(cli, tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes("\ufeff".encode() + small_text("bom").encode())
    status, _, err = cli("run", str(path), "--no-write")
    assert status == 0, err
    assert Scenario.from_file(path).name == "bom"


def test_compressed_csv_and_bom_csv_are_accepted(cli, tmp_path):
    people().to_csv(tmp_path / "people.csv.gz", index=False)
    status, _, err = cli("run", str(user_scenario(tmp_path, name="people.csv.gz")), "--no-write")
    assert status == 0, err
    (tmp_path / "bom.csv").write_bytes("\ufeff".encode() + people().to_csv(index=False).encode())
    assert list(read_table(tmp_path / "bom.csv").columns) == ["income", "years", "sex", "approved"]
    with pytest.raises(DataError, match=r"neither CSV nor Parquet; fix: give a file ending in \.csv, \.csv\.gz"):
        read_table(tmp_path / "people.txt")


def test_observers_with_the_same_name(cli, scenario_file, tmp_path):
    twice = '\n[[observers]]\nname = "ccm"\nevery = 1\n\n[[observers]]\nname = "ccm"\nevery = 2\n'
    line = refused(cli, "run", str(scenario_file(extra=twice)), "--out", "r")
    assert "observers[1].label" in line and 'label = "ccm-1"' in line
    assert tree(tmp_path / "work") == []
    labelled = twice.replace("every = 2\n", 'every = 2\nlabel = "ccm-every-2"\n')
    status, _, err = cli("run", str(scenario_file(extra=labelled)), "--out", "r")
    assert status == 0, err
    observations = pd.read_parquet(Path("r") / "observations.parquet")
    assert set(observations["observer"]) == {"ccm", "ccm-every-2"}
    assert set(observations.loc[observations["observer"] == "ccm-every-2", "step"]) == {0, 2}


# -- issue 37: no tracebacks ------------------------------------------------------------------


def test_a_3000_deep_base_chain_is_one_line(cli, scenario_file, tmp_path):
    work = tmp_path / "work"
    (work / "c0.toml").write_text(small_text())
    for i in range(1, 3001):
        (work / f"c{i}.toml").write_text(f'base = "c{i - 1}.toml"\n')
    line = refused(cli, "show", "c3000.toml")
    assert line.startswith("error: c3000.toml: base: the chain of bases from c3000.toml is more than 64 files deep")
    assert cli("show", "c60.toml")[0] == 0  # a long but sane chain still resolves


@pytest.mark.parametrize("where", ["last", "middle"])
def test_a_300_character_out_is_one_line(cli, scenario_file, tmp_path, where):
    long = "x" * 300
    out = long if where == "last" else f"{long}/results"
    line = refused(cli, "run", str(scenario_file()), "--out", out)
    if where == "last":
        assert "argument --out: its last part is 300 bytes long; give a name of at most 200 bytes" in line
    else:
        assert "File name too long; fix: use a shorter name or path" in line and "(" in line  # quoted, shortened
    assert tree(tmp_path / "work") == []


def test_audit_ccm_seed_folds_and_nul_bytes_are_one_line(cli, tmp_path):
    frame = people()
    frame.to_csv(tmp_path / "p.csv", index=False)
    ccm = ("audit", "ccm", "--csv", str(tmp_path / "p.csv"), "--target", "approved", "--sensitive", "sex")
    assert refused(cli, *ccm, "--seed", "-1") == "error: --seed: must be >= 0, got -1; fix: set --seed to 0 or more"
    line = refused(cli, *ccm, "--folds", "1")
    assert line == "error: --folds: must be >= 2, got 1; fix: set --folds to 2 or more"
    line = refused(cli, *ccm, "--folds", "60")
    assert line.startswith("error: --folds: 60 folds, but the rarer class of approved has ") and "n_splits" not in line
    frame["sex"] = frame["sex"].astype(object)
    frame.loc[4, "sex"] = "f\x00m"
    frame.to_csv(tmp_path / "p.csv", index=False)
    line = refused(cli, *ccm)
    assert line.startswith("error: --csv: p.csv: column 'sex' holds a NUL byte in data row 5; fix: remove")
    assert tree(tmp_path / "work") == []


# -- issue 37: nothing silently wrong ---------------------------------------------------------


def test_audit_ccm_text_in_a_numerical_column_and_a_threshold_outside_0_1(cli, tmp_path):
    frame = people().astype({"income": object})
    frame.loc[6, "income"] = "unknown"
    frame.to_csv(tmp_path / "p.csv", index=False)
    ccm = ("audit", "ccm", "--csv", str(tmp_path / "p.csv"), "--target", "approved", "--sensitive", "sex")
    line = refused(cli, *ccm, "--types", "income=numerical")
    assert line == (
        "error: income: is numerical but holds 1 cell(s) that are not numbers, first 'unknown' (data row 7); "
        "fix: correct those cells, or declare the column categorical (--types income=categorical)"
    )
    people().to_csv(tmp_path / "p.csv", index=False)
    line = refused(cli, *ccm, "--threshold", "2")
    assert line == "error: --threshold: must lie strictly between 0 and 1, got 2.0; fix: use e.g. 0.5"
    assert tree(tmp_path / "work") == []


@pytest.mark.parametrize(
    ("cell", "start"),
    [
        ("abc", "error: income: is a column of numbers with 1 text cell(s), first 'abc' in data row 4"),
        ("inf", "error: income: column has 1 infinite value(s), first in data row 4"),
        ("-inf", "error: income: column has 1 infinite value(s), first in data row 4"),
        ("3\x001", "error: --csv: p.csv: column 'income' holds a NUL byte in data row 4"),
    ],
    ids=["text", "inf", "-inf", "nul"],
)
def test_audit_facts_csv_with_text_infinite_or_nul_cells(cli, tmp_path, cell, start):
    frame = people().astype({"income": object})
    frame.loc[3, "income"] = cell
    frame.to_csv(tmp_path / "p.csv", index=False)
    line = refused(
        cli, "audit", "facts", "--csv", str(tmp_path / "p.csv"), "--target", "approved", "--protected", "sex"
    )
    assert line.startswith(start), line


def test_a_nul_byte_in_a_group_name_is_refused(cli, scenario_file, tmp_path):
    path = scenario_file(extra="")
    path.write_text(path.read_text().replace('name = "disadvantaged"', 'name = "disadv\\u0000antaged"'))
    line = refused(cli, "run", str(path), "--out", "o")
    assert (
        line == r"error: population: the group name 'disadv\x00antaged' holds a NUL byte; fix: remove it from the name"
    )
    assert tree(tmp_path / "work") == []


def test_run_no_write_with_out_is_refused(cli, scenario_file, tmp_path):
    line = refused(cli, "run", str(scenario_file()), "--no-write", "--out", "o")
    assert line == "error: --out: is given with --no-write, which writes nothing; fix: drop --no-write or --out"
    assert tree(tmp_path / "work") == []


def test_optimise_resume_with_fewer_trials_than_were_run_is_refused(cli, scenario_file, tmp_path):
    pytest.importorskip("optuna")
    search = (
        "optimise", str(scenario_file()), "--param", "selection.k=2:6", "--objective", "min |dTTR:disadvantaged|",
        "--seeds", "1", "--out", "o", "--quiet",
    )  # fmt: skip
    assert cli(*search, "--trials", "3")[0] == 0

    def results() -> dict[Path, bytes]:  # the lock and the record of the files are the study's own bookkeeping
        files = (tmp_path / "work" / "o").rglob("*")
        return {p: p.read_bytes() for p in files if p.is_file() and p.name not in (".lock", "recoursesim-files.jsonl")}

    before = results()
    line = refused(cli, *search, "--trials", "2", "--resume")
    assert line.startswith("error: --trials: is 2, but the study in o has already finished 3 trials; fix: give")
    assert results() == before  # the outputs still describe the 3 trials


# -- issue 37: messages name what the user typed ----------------------------------------------


def test_audit_effort_qs_is_named_as_typed(cli):
    line = refused(cli, "audit", "effort", "--dataset", "german", "--qs", "nan", "0.5")
    assert line == "error: --qs: quantile levels must lie in (0, 1], got nan, 0.5; fix: use e.g. 0.1 ... 1.0"


def test_a_duplicate_toml_key_is_named(cli, scenario_file):
    path = scenario_file(extra="")
    path.write_text(path.read_text().replace("k = 4\n", "k = 4\nk = 5\n"))
    line = refused(cli, "show", str(path))
    assert line.endswith("selection.k: is given twice (lines 45 and 46); fix: keep one k = ... in [selection]"), line


def test_show_of_a_name_with_a_newline_is_one_line(cli):
    line = refused(cli, "show", "default\n")
    assert line.startswith("error: scenario: file default\\n not found; fix:")


def test_facts_with_no_valid_action_is_a_warning_not_a_traceback(cli, tmp_path):
    """Found while checking the cells above: a 200-row table of numbers gave no (row, action) pair at all."""
    import random

    from recoursesim.auditors.facts.effects import _sort_costs_within

    rows, cost = _sort_costs_within(np.array([], dtype=np.int64), np.array([], dtype=float))
    assert rows.size == 0 and cost.size == 0
    draw = random.Random(1)
    lines = ["age,hours,sex,y"] + [
        f"{draw.randint(18, 70)},{draw.randint(10, 60)},{'mf'[i % 2]},{draw.randint(0, 1)}" for i in range(200)
    ]
    (tmp_path / "n.csv").write_text("\n".join(lines) + "\n")
    status, _, err = cli("audit", "facts", "--csv", str(tmp_path / "n.csv"), "--target", "y", "--protected", "sex")
    assert status == 0, err
    assert "warning: no valid action for any subgroup" in err and "Traceback" not in err
