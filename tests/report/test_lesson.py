"""``recoursesim lesson``: the page's data, the page itself, and bad input (one line, exit 2, nothing written)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recoursesim.cli import main
from recoursesim.report.lesson_data import Control, controls_of, lesson_rows
from recoursesim.sweep import summarise
from recoursesim.sweep.worker import with_durability

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

SCENARIO = """
base = "bell2024-baseline"
name = "tiny-bell"
description = "A small world: two groups, one of them starts further from the cut-off."
[run]
steps = 4
[population]
initial = 200
entrants = 20
[selection]
k = 20
"""


@pytest.fixture
def tiny(tmp_path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(SCENARIO)
    return path


def _args(tiny: Path, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "lesson", str(tiny), "--vary", "population.q=0,2", "--vary", "selection.name=top_k,cns", "--seeds", "2",
        "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "lesson.html"), "--quiet", "--workers", "1", *extra,
    ]  # fmt: skip


def _page_data(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    match = re.search(r"<script id='lesson-data' type='application/json'>(.*?)</script>", text, re.S)
    assert match is not None
    return json.loads(match.group(1))


# ---------------------------------------------------------------------------------------------- the page


def test_page_is_one_file_with_the_sweep_summary_inside(tiny, tmp_path):
    assert main(_args(tiny, tmp_path)) == 0
    page = tmp_path / "lesson.html"
    text = page.read_text(encoding="utf-8")
    assert page.stat().st_size < 5_000_000
    assert '<meta name="generator" content="recoursesim">' in text[:4096]
    # nothing is loaded from elsewhere: no script or style by address, the libraries are inline
    markup = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", text, flags=re.S)  # the page without the code
    assert markup.count("<script") == 3
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=", markup)
    assert "window.vegaEmbed=" in text and "A small world" in text
    assert "advantaged" in text and "disadvantaged" in text  # the stories name the scenario's groups
    data = _page_data(page)
    assert set(data["specs"]) == {"outcomes", "lever", "selection", "durability", "compare"}
    # the numbers are the sweep summary's (mean across seeds), at the positions of the controls
    summary = summarise(tmp_path / "runs", write=False)
    row = summary[
        (summary["population.q"] == 2.0) & (summary["selection.name"] == "cns") & (summary["step"] == 3)
        & (summary["group"] == "disadvantaged") & (summary["metric"] == "ttr")
    ].iloc[0]  # fmt: skip
    [record] = [
        r for r in data["rows"]
        if r["v0"] == 1 and r["v1"] == 1 and r["step"] == 3 and r["group"] == "disadvantaged" and r["metric"] == "ttr"
    ]  # fmt: skip
    assert record["mean"] == pytest.approx(row["mean"], rel=1e-3)
    assert record["n"] == row["n"] == 2
    pooled = {r["metric"] for r in data["rows"] if r["step"] is None}
    assert pooled == {"retr", "dttr", "validity_1", "validity_3", "validity_5"}


def test_out_in_a_new_folder(tiny, tmp_path):
    assert main([*_args(tiny, tmp_path), "--out", str(tmp_path / "class" / "week1" / "lesson.html")]) == 0
    assert (tmp_path / "class" / "week1" / "lesson.html").stat().st_size > 0


def test_resume_rebuilds_the_page_from_kept_runs(tiny, tmp_path):
    assert main(_args(tiny, tmp_path)) == 0
    shards = sorted((tmp_path / "runs" / "runs").iterdir())
    stamps = [p.stat().st_mtime_ns for p in shards]
    first = _page_data(tmp_path / "lesson.html")
    assert main(_args(tiny, tmp_path, "--resume", "--title", "Second build")) == 0  # replaces its own page
    assert [p.stat().st_mtime_ns for p in shards] == stamps  # no run was redone
    assert _page_data(tmp_path / "lesson.html")["rows"] == first["rows"]
    assert "<title>Second build</title>" in (tmp_path / "lesson.html").read_text(encoding="utf-8")


def test_names_only_page_puts_the_names_on_the_lever_axis(tiny, tmp_path):
    args = ["lesson", str(tiny), "--vary", "selection.name=top_k,cns", "--seeds", "2", "--runs", str(tmp_path / "r"),
            "--out", str(tmp_path / "names.html"), "--quiet", "--workers", "1"]  # fmt: skip
    assert main(args) == 0
    data = _page_data(tmp_path / "names.html")
    assert data["lesson"]["controls"] == [["selection.name", ["top_k", "cns"]]]
    lever = json.dumps(data["specs"]["lever"])
    assert '"lever", "type": "nominal"' in lever.replace("'", '"') or '"type": "nominal"' in lever
    assert "<select id='ctl-v0'>" in (tmp_path / "names.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------- several scenarios


def _policy(tmp_path: Path, name: str, *, steps: int = 4, metrics: str = "") -> Path:
    """A tiny scenario on the bundled bell2024 preset ``name``, with ``steps`` and extra ``[metrics]`` lines."""
    text = SCENARIO.replace("bell2024-baseline", name).replace("tiny-bell", f"tiny-{name}")
    text = text.replace("steps = 4", f"steps = {steps}") + (f"[metrics]\n{metrics}\n" if metrics else "")
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def _policies_args(tmp_path: Path, *scenarios: Path, extra: tuple[str, ...] = ()) -> list[str]:
    return [
        "lesson", *map(str, scenarios), "--vary", "population.q=0,2", "--seeds", "2", "--runs", str(tmp_path / "runs"),
        "--out", str(tmp_path / "lesson.html"), "--quiet", "--workers", "1", *extra,
    ]  # fmt: skip


def test_scenarios_become_a_policy_control_on_shared_seeds(tiny, tmp_path):
    cda = _policy(tmp_path, "bell2024-cda")
    assert main(_policies_args(tmp_path, tiny, cda, extra=("--label", "top-k", "--label", "CDA"))) == 0
    page = tmp_path / "lesson.html"
    data = _page_data(page)
    assert data["lesson"]["controls"] == [["policy", ["top-k", "CDA"]], ["population.q", [0, 2]]]
    assert data["lesson"]["scenarios"] == ["tiny-bell", "tiny-bell2024-cda"]
    text = page.read_text(encoding="utf-8")
    assert "<select id='ctl-v0'><option value='0' selected>top-k</option><option value='1'>CDA</option>" in text
    assert "policy CDA: all settings of tiny-bell2024-cda" in text  # each scenario's settings fold out
    assert "A lesson on tiny-bell and tiny-bell2024-cda" in text
    # the lever is the first numeric control, with the policy drop-down still applying
    assert "<h2>Disparity against population.q</h2>" in text
    assert "compare the ratio rETR below rather than ETR itself" in text  # CDA's refitted model: another scale
    # each policy's numbers are those of a lesson of that scenario alone: the same spawned seeds
    alone = tmp_path / "alone"
    alone.mkdir()
    single = ["lesson", str(cda), "--vary", "population.q=0,2", "--seeds", "2", "--runs", str(alone / "runs"),
              "--out", str(alone / "lesson.html"), "--quiet", "--workers", "1"]  # fmt: skip
    assert main(single) == 0
    own = _page_data(alone / "lesson.html")["rows"]
    both = data["rows"]
    key = lambda r: (r["step"] is None, r["step"] or 0, r["group"], r["metric"], r["v0"])  # noqa: E731
    cda_rows = sorted(({**r, "v0": r["v1"]} for r in both if r["v0"] == 1), key=key)
    for r in cda_rows:
        del r["v1"]
    assert cda_rows == sorted(own, key=key)
    assert [r for r in both if r["v0"] == 0] != []
    assert [r["mean"] for r in both if r["v0"] == 0 and r["metric"] == "selection_rate"] != [
        r["mean"] for r in both if r["v0"] == 1 and r["metric"] == "selection_rate"
    ]


def test_policy_control_alone_and_as_the_lever(tiny, tmp_path):
    cns = _policy(tmp_path, "bell2024-cns")
    args = ["lesson", str(tiny), str(cns), "--seeds", "2", "--runs", str(tmp_path / "runs"), "--lever", "policy",
            "--out", str(tmp_path / "lesson.html"), "--quiet", "--workers", "1"]  # fmt: skip
    assert main(args) == 0
    data = _page_data(tmp_path / "lesson.html")
    assert data["lesson"]["controls"] == [["policy", ["tiny-bell", "tiny-bell2024-cns"]]]
    text = (tmp_path / "lesson.html").read_text(encoding="utf-8")
    assert "<h2>Disparity against policy</h2>" in text
    assert "rather than ETR itself" not in text  # top-k and CNS score with the same model
    assert '"lever:N"' in json.dumps(data["specs"]["lever"]) or '"nominal"' in json.dumps(data["specs"]["lever"])


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"steps": 5}, ["scenarios", "tiny-bell2024-cns has steps 5 but tiny-bell has 4"]),
        ({"metrics": 'reference_group = "disadvantaged"'}, ["scenarios", "reference group disadvantaged"]),
        ({"metrics": 'effort = "cost"'}, ["scenarios", "effort measure cost but tiny-bell has score_gain"]),
    ],
    ids=["steps", "reference", "effort"],
)
def test_scenarios_that_differ_are_refused(tiny, tmp_path, capsys, options, words):
    code = main(_policies_args(tmp_path, tiny, _policy(tmp_path, "bell2024-cns", **options)))
    _refused(capsys, code, *words)
    _nothing_written(tmp_path)


def test_scenarios_with_other_groups_are_refused(tiny, tmp_path, capsys):
    args = _policies_args(tmp_path, tiny)
    code = main([*args[:2], "german-credit-lending", *args[2:]])
    _refused(capsys, code, "scenarios", "german-credit-lending has groups female, male", "advantaged, disadvantaged")
    _nothing_written(tmp_path)


@pytest.mark.parametrize(
    ("labels", "words"),
    [
        (["a"], ["--label", "1 name(s) for 2"]),
        (["a", "a"], ["--label", "not distinct"]),
        (None, ["scenarios", "not distinct"]),
    ],
    ids=["count", "repeated", "same-names"],
)
def test_policy_labels_refused(tiny, tmp_path, capsys, labels, words):
    second = tiny if labels is None else _policy(tmp_path, "bell2024-cns")
    extra = tuple(word for label in labels or [] for word in ("--label", label))
    code = main(_policies_args(tmp_path, tiny, second, extra=extra))
    _refused(capsys, code, *words)
    _nothing_written(tmp_path)


def test_policies_count_toward_the_500_settings(tiny, tmp_path, capsys):
    many = ",".join(str(q / 10) for q in range(130))
    cns, cda = _policy(tmp_path, "bell2024-cns"), _policy(tmp_path, "bell2024-cda")
    code = main(_policies_args(tmp_path, tiny, cns, cda, extra=("--vary", f"selection.k={many}")))
    _refused(capsys, code, "--vary", "780", "2 x 130 x 3")
    _nothing_written(tmp_path)


def test_one_scenario_needs_a_vary(tiny, tmp_path, capsys):
    code = main(["lesson", str(tiny), "--seeds", "2", "--runs", str(tmp_path / "runs"),
                 "--out", str(tmp_path / "lesson.html")])  # fmt: skip
    _refused(capsys, code, "--vary", "several scenarios")
    _nothing_written(tmp_path)


def test_rows_match_numpy_scalars():
    controls = controls_of({"flag": [True, False], "selection.k": [10, 20]})
    summary = _summary(
        flag=np.array([False, True]), **{"selection.k": np.array([20, 10], dtype=np.int64)}, metric=["etr", "retr"],
        mean=[1.0, 1.0], ci_low=[0.5, 0.5], ci_high=[1.5, 1.5],
    )  # fmt: skip
    rows = lesson_rows(summary, controls)
    assert [(r["v0"], r["v1"]) for r in rows] == [(1, 1), (0, 0)]


# ---------------------------------------------------------------------------------------------- bad input


def _refused(capsys, code: int, *words: str) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and "fix:" in lines[0], err
    for word in words:
        assert word in lines[0], (word, err)
    return lines[0]


def _nothing_written(tmp_path: Path) -> None:
    assert not (tmp_path / "lesson.html").exists()
    assert not (tmp_path / "runs").exists()


def test_unknown_field(tiny, tmp_path, capsys):
    code = main([*_args(tiny, tmp_path), "--vary", "selection.kk=1,2"])
    _refused(capsys, code, "--vary selection.kk")
    _nothing_written(tmp_path)


def test_grid_over_500_cells(tiny, tmp_path, capsys):
    many = ",".join(str(q / 10) for q in range(130))
    code = main([*_args(tiny, tmp_path), "--vary", f"selection.k={many}"])  # 2 x 2 x 130 = 520
    _refused(capsys, code, "--vary", "520", "500")
    _nothing_written(tmp_path)


def test_value_out_of_range(tiny, tmp_path, capsys):
    code = main([*_args(tiny, tmp_path), "--vary", "selection.k=-5,10"])
    _refused(capsys, code, "--vary selection.k")
    _nothing_written(tmp_path)


@pytest.mark.parametrize("name", ["lesson.txt", "lesson", "lesson.html.bak"])
def test_out_not_html(tiny, tmp_path, capsys, name):
    code = main([*_args(tiny, tmp_path), "--out", str(tmp_path / name)])
    _refused(capsys, code, "--out", ".html")
    assert not (tmp_path / name).exists()
    _nothing_written(tmp_path)


def test_out_holding_a_users_file_is_never_replaced(tiny, tmp_path, capsys):
    page = tmp_path / "lesson.html"
    page.write_text("<html><body>my own lesson notes</body></html>")
    code = main(_args(tiny, tmp_path))
    _refused(capsys, code, "--out", "not written by recoursesim")
    assert page.read_text() == "<html><body>my own lesson notes</body></html>"
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("where", ["folder.html", "notes.txt/lesson.html"])
def test_out_not_a_usable_file_path(tiny, tmp_path, capsys, where):
    (tmp_path / "folder.html").mkdir()
    (tmp_path / "notes.txt").write_text("mine")
    code = main([*_args(tiny, tmp_path), "--out", str(tmp_path / where)])
    _refused(capsys, code, "--out")
    assert not (tmp_path / "runs").exists()


def test_lever_not_varied(tiny, tmp_path, capsys):
    code = main([*_args(tiny, tmp_path), "--lever", "selection.k"])
    _refused(capsys, code, "--lever", "population.q")
    _nothing_written(tmp_path)


def test_runs_holding_other_files(tiny, tmp_path, capsys):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "notes.txt").write_text("mine")
    code = main(_args(tiny, tmp_path))
    _refused(capsys, code, "--runs")
    assert not (tmp_path / "lesson.html").exists()


# ---------------------------------------------------------------------------------------------- the data


def _summary(**columns) -> pd.DataFrame:
    base = {"step": pd.array([1, None], dtype="Int32"), "group": ["a", "b"], "n": [3, 3], "sem": [0.1, 0.1]}
    return pd.DataFrame({**base, **columns})


def test_rows_positions_clipping_and_rounding():
    controls = controls_of({"population.q": [0.5, 2.0], "selection.name": ["top_k", "cns"]})
    assert [c.column for c in controls] == ["v0", "v1"]
    assert controls[0].numeric and not controls[1].numeric
    assert controls[0].labels == ["0.5", "2"]
    summary = _summary(
        **{"population.q": [2.0, 0.5], "selection.name": ["cns", "top_k"]},
        metric=["selection_rate", "validity_3"],
        mean=[0.123456, 0.9],
        ci_low=[-0.05, 0.7],
        ci_high=[0.3, 1.2],
    )
    first, second = lesson_rows(summary, controls)
    assert first == {
        "v0": 1, "v1": 1, "step": 1, "group": "a", "metric": "selection_rate", "n": 3,
        "mean": 0.1235, "low": 0.0, "high": 0.3,
    }  # fmt: skip
    assert second["step"] is None and (second["v0"], second["v1"]) == (0, 0)
    assert (second["low"], second["high"]) == (0.7, 1.0)


def test_rows_keep_only_what_the_panels_draw_and_json_safe_values():
    controls = [Control("selection.k", "v0", (10,))]
    summary = _summary(
        **{"selection.k": [10, 10]}, metric=["etr", "etr"], mean=[np.nan, 2.0], ci_low=[np.nan, 1.0],
        ci_high=[np.inf, 3.0],
    )  # fmt: skip
    rows = lesson_rows(summary, controls)
    assert len(rows) == 1  # pooled ETR is not drawn (the per-step ETR and the pooled rETR are)
    assert rows[0]["mean"] is None and rows[0]["high"] is None
    json.dumps(rows, allow_nan=False)


@given(
    metric=st.sampled_from(["etr", "ttr", "retr", "dttr", "selection_rate", "validity_1", "validity_5"]),
    low=st.floats(-5, 5),
    width=st.floats(0, 5),
)
def test_bands_stay_inside_the_quantitys_range(metric, low, width):
    step = None if metric in {"retr", "dttr"} or metric.startswith("validity") else 1
    summary = pd.DataFrame({
        "selection.k": [10], "step": pd.array([step], dtype="Int32"), "group": ["a"], "metric": [metric], "n": [4],
        "mean": [low + width / 2], "sem": [0.1], "ci_low": [low], "ci_high": [low + width],
    })  # fmt: skip
    [row] = lesson_rows(summary, [Control("selection.k", "v0", (10,))])
    if metric != "dttr":
        assert row["low"] >= 0
    if metric in {"selection_rate", "validity_1", "validity_5"}:
        assert row["high"] <= 1
    if metric == "dttr":
        assert row["low"] == pytest.approx(low, rel=1e-3, abs=1e-9)


def test_with_durability_maps_each_groups_shares():
    summary = pd.DataFrame({"group": pd.Categorical(["adv", "dis"]), "etr": [1.0, 2.0]})
    durability = pd.DataFrame({
        "group": ["dis", "adv"], "validity_1": [0.25, 1.0], "validity_3": [0.0, 0.5], "validity_5": [0.0, 0.5],
    })  # fmt: skip
    out = with_durability(summary, durability)
    assert out["validity_1"].tolist() == [1.0, 0.25]
    assert out["validity_3"].tolist() == [0.5, 0.0]
    assert with_durability(summary, pd.DataFrame()) is summary


def test_missing_extra_is_one_line_before_any_work(tiny, tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "vl_convert", None)  # as if vl-convert-python were not installed
    code = main(_args(tiny, tmp_path))
    _refused(capsys, code, "lesson", "vl_convert", "recoursesim[lesson]")
    _nothing_written(tmp_path)
