"""``recoursesim report``: every section and figure present and non-empty; clear errors for bad directories."""

from __future__ import annotations

import base64
import json
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.report import SECTION_IDS, load_results, write_report
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.simulate import simulate

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def small_scenario(observers: bool = True) -> Scenario:
    spec = {
        "preset": "bell2024",
        "name": "small-bell2024",
        "run": {"steps": 6},
        "population": {"name": "bell2024", "initial": 200, "entrants": 20, "q": 2.0},
        "selection": {"name": "top_k", "k": 20},
    }
    if observers:
        spec["observers"] = [{"name": "equality_of_effort", "every": 2}]
    return Scenario.from_dict(spec)


def write_runs(root: Path, scenario: Scenario, seeds) -> Path:
    for seed in seeds:
        directory = root / f"seed-{seed}"
        directory.mkdir(parents=True)
        simulate(scenario, seed).write(directory)
    return root


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory) -> Path:
    return write_runs(tmp_path_factory.mktemp("results") / "small", small_scenario(), range(3))


class Sections(HTMLParser):
    """Collects, per <section id>, its heading, text and embedded images."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, dict] = {}
        self.current: str | None = None
        self.in_h1 = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.current = attrs["id"]
            self.sections[self.current] = {"text": "", "images": [], "tables": 0}
        elif self.current and tag == "img":
            self.sections[self.current]["images"].append(attrs["src"])
        elif self.current and tag == "table":
            self.sections[self.current]["tables"] += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self.current = None

    def handle_data(self, data):
        if self.current:
            self.sections[self.current]["text"] += data


def parse(path: Path) -> dict[str, dict]:
    parser = Sections()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.sections


def check_report(html: Path, figures_dir: Path, *, auditors: bool) -> dict[str, dict]:
    sections = parse(html)
    assert list(sections) == list(SECTION_IDS)
    for section_id, section in sections.items():
        assert len(section["text"].strip()) > 40, f"section {section_id} is empty"
    expected_figures = {
        "recourse-over-time": 1, "disparities": 1, "selection": 1, "utility": 1, "auditors": int(auditors),
        "durability": 1, "boundary": 1, "distributions": 2,
    }  # fmt: skip
    for section_id, count in expected_figures.items():
        images = sections[section_id]["images"]
        assert len(images) == count, section_id
        for source in images:
            assert source.startswith("data:image/png;base64,")
            data = base64.b64decode(source.split(",", 1)[1])
            assert data.startswith(PNG_MAGIC) and len(data) > 5_000
    assert sections["recourse-over-time"]["tables"] == 1
    assert sections["selection"]["tables"] == 1
    assert sections["outcomes"]["tables"] == 1
    pngs = sorted(figures_dir.glob("*.png"))
    assert len(pngs) == sum(expected_figures.values())
    for png in pngs:
        assert png.read_bytes().startswith(PNG_MAGIC)
        assert png.with_suffix(".svg").stat().st_size > 1_000
        assert png.name in sections["figures"]["text"], f"the closing note does not list {png.name}"
    return sections


@pytest.fixture(scope="module")
def html_report(results_dir, tmp_path_factory):
    return write_report(results_dir, tmp_path_factory.mktemp("report") / "report.html")


def test_html_report_has_every_section_and_figure(html_report):
    html, figures_dir, _ = html_report
    assert figures_dir == html.parent / "report_figures"
    sections = check_report(html, figures_dir, auditors=True)
    assert "3 seeds" in sections["summary"]["text"]
    assert "effort" in sections["auditors"]["text"]
    text = html.read_text()
    assert 'src="http' not in text and "<link" not in text  # self-contained


def test_summary_states_the_runs_numbers(results_dir, html_report):
    _, _, report = html_report
    runs = load_results(results_dir)
    retr = np.mean([run.summary.set_index("group").loc["disadvantaged", "retr"] for run in runs.runs])
    text = " ".join(report.sections[0].paragraphs)
    assert f"spent {retr:.2f}" in text
    censored = np.mean(
        [run.summary.set_index("group").loc["disadvantaged", ["censored", "gave_up"]].sum() for run in runs.runs]
    )
    assert f"({censored:.0f} per run)" in text


def test_markdown_report_links_the_pngs(results_dir, tmp_path):
    md, figures_dir, report = write_report(results_dir, tmp_path / "report.md", fmt="md")
    text = md.read_text(encoding="utf-8")
    for heading in ("## Summary", "## Scenario", "## Disparities over time", "## Auditors over time"):
        assert heading in text
    for figure in report.figures:
        assert f"]({figures_dir.name}/{figure.name}.png)" in text
        assert (figures_dir / f"{figure.name}.png").stat().st_size > 5_000


def test_one_run_directory_without_observers(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    simulate(small_scenario(observers=False), 4).write(run_dir)
    status = main(["report", str(run_dir), "--html", str(tmp_path / "one.html")])
    assert status == 0
    sections = check_report(tmp_path / "one.html", tmp_path / "one_figures", auditors=False)
    assert "No per-step auditors" in sections["auditors"]["text"]
    assert "1 seed" in sections["summary"]["text"]


def _copy(results_dir: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(results_dir, target)
    return target


def _older_metrics(root: Path) -> None:
    path = root / "seed-1" / "metrics.parquet"
    pd.read_parquet(path).drop(columns=["mean_selected_score"]).to_parquet(path)


def _no_scenario_json(root: Path) -> None:
    (root / "seed-0" / "scenario.json").unlink()


def _other_scenario(root: Path) -> None:
    path = root / "seed-2" / "scenario.json"
    meta = json.loads(path.read_text())
    meta["scenario"]["selection"]["k"] = 21
    path.write_text(json.dumps(meta))


def _sweep(root: Path) -> None:
    (root / "manifest.json").write_text("{}")


def _tampered_ledger(root: Path) -> None:
    path = root / "seed-0" / "ledger.parquet"
    ledger = pd.read_parquet(path)
    ledger.loc[ledger["step"] == 0, "score"] += 0.01
    ledger.to_parquet(path)


def _huge_population(root: Path) -> None:
    for path in root.glob("seed-*/scenario.json"):
        meta = json.loads(path.read_text())
        meta["scenario"]["population"]["initial"] = 20_000_000
        path.write_text(json.dumps(meta))


def _list_seed(root: Path) -> None:
    for path in root.glob("seed-*/scenario.json"):
        meta = json.loads(path.read_text())
        meta["seed"] = [1]
        path.write_text(json.dumps(meta))


def _bad_manifest_runs(root: Path) -> None:
    (root / "manifest.json").write_text(
        json.dumps({"sweep_id": "x", "param_names": [], "points": [{"params": {}}], "runs": [["x", 0]]})
    )


def _text_ledger(root: Path) -> None:
    path = root / "seed-0" / "ledger.parquet"
    pd.read_parquet(path).astype(str).to_parquet(path)


def _nan_metrics(root: Path) -> None:
    path = root / "seed-1" / "metrics.parquet"
    pd.read_parquet(path).assign(n_selected=np.nan).to_parquet(path)


def _empty_summary(root: Path) -> None:
    path = root / "seed-0" / "summary.parquet"
    pd.read_parquet(path).iloc[:0].to_parquet(path)


def _text_durability(root: Path) -> None:
    pd.DataFrame({"step": ["0"], "duration": ["1"]}).to_parquet(root / "seed-0" / "durability.parquet")


def _not_parquet_durability(root: Path) -> None:
    (root / "seed-0" / "durability.parquet").write_text("not a table")


@pytest.mark.parametrize(
    "damage, needle",
    [
        (_text_ledger, "ledger.parquet column step must hold numbers (has str"),
        (_nan_metrics, "metrics.parquet column n_selected must hold whole counts (has float64)"),
        (_empty_summary, "summary.parquet has no rows"),
        (_text_durability, "durability.parquet column step must hold numbers"),
        (_not_parquet_durability, "durability.parquet as Parquet"),
        (_older_metrics, "older recoursesim (metrics.parquet lacks mean_selected_score)"),
        (_no_scenario_json, "older recoursesim (no scenario.json)"),
        (_other_scenario, "different scenario"),
        (_sweep, "is not a sweep manifest this recoursesim can read"),
        (_tampered_ledger, "does not match a rebuilt run"),
        (_huge_population, "scenario.json states 20000"),
        (_list_seed, "seed is [1], not a seed recoursesim writes"),
        (_bad_manifest_runs, "runs holds ['x', 0], not [run id, point, seed index]"),
    ],
)
def test_bad_results_directories_give_one_clear_error(results_dir, tmp_path, capsys, damage, needle):
    root = _copy(results_dir, tmp_path / "results")
    damage(root)
    output = tmp_path / "report.html"
    assert main(["report", str(root), "--html", str(output)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not output.exists() and not (tmp_path / "report_figures").exists()


def test_missing_and_empty_directories(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nowhere"), "--html", str(tmp_path / "a.html")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--html", str(tmp_path / "a.html")]) == 2
    assert "is empty" in capsys.readouterr().err
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("hello")
    assert main(["report", str(tmp_path / "other"), "--html", str(tmp_path / "a.html")]) == 2
    assert "holds no run results" in capsys.readouterr().err
    assert not (tmp_path / "a.html").exists()


def test_bad_format_is_rejected(results_dir, tmp_path):
    with pytest.raises(ConfigError, match="format"):
        write_report(results_dir, tmp_path / "r.html", fmt="pdf")


@pytest.mark.slow
def test_twenty_seed_table1_setting_renders(tmp_path):
    """Acceptance: Bell et al. Table 1, baseline, q = 2, e_a = e_d, 20 seeds."""
    root = write_runs(tmp_path / "bell2024-baseline", load_scenario("bell2024-baseline"), range(20))
    assert main(["report", str(root), "--html", str(tmp_path / "table1.html")]) == 0
    sections = check_report(tmp_path / "table1.html", tmp_path / "table1_figures", auditors=False)
    assert "20 seeds" in sections["summary"]["text"]
    assert "outside the 80% rule" in sections["summary"]["text"]


def test_library_modules_import_on_their_own():
    """The report, comparison and dashboard libraries import without the command line loaded first."""
    import subprocess
    import sys

    code = "import recoursesim.report, recoursesim.compare, recoursesim.dashboard.figures"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def _title_boxes(figure):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    titles = [ax.title for ax in figure.axes if ax.get_visible() and ax.get_title()]
    if figure._suptitle is not None:
        titles.append(figure._suptitle)
    return [(t.get_text(), t.get_window_extent(renderer)) for t in titles], figure.bbox


def test_figures_have_integer_step_ticks_and_titles_that_fit(html_report):
    _, _, report = html_report
    step_axes = 0
    for figure in report.figures:
        for ax in figure.figure.axes:
            if ax.get_visible() and ax.get_xlabel() == "step t":
                step_axes += 1
                ticks = ax.get_xticks()
                assert np.array_equal(ticks, np.round(ticks)), (figure.name, ticks)
        boxes, page = _title_boxes(figure.figure)
        for text, box in boxes:
            assert "((" not in text and "))" not in text, text
            assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1, f"{figure.name}: title {text!r} is cut off"
        panel_titles = [(text, box) for text, box in boxes if text != getattr(figure.figure._suptitle, "_text", None)]
        for i, (first, a) in enumerate(panel_titles):
            for second, b in panel_titles[i + 1 :]:
                assert not a.overlaps(b), f"{figure.name}: titles {first!r} and {second!r} overlap"
    assert step_axes >= 8


def test_step_axis_turns_half_steps_into_whole_ones():
    from matplotlib.figure import Figure

    from recoursesim.report.figures import step_axis

    plain, fixed = Figure(figsize=(8, 3)).subplots(1, 2)
    for ax in (plain, fixed):
        ax.plot([0, 1], [0.0, 1.0])  # a run with steps 0 and 1
    step_axis(fixed)
    assert not np.array_equal(plain.get_xticks(), np.round(plain.get_xticks()))  # matplotlib's default: 0.2 steps
    assert np.array_equal(fixed.get_xticks(), np.round(fixed.get_xticks()))
    assert fixed.get_xlabel() == "step t"
