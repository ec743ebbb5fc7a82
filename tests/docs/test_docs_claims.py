"""Claims the docs make about the tool, each checked against the tool so that it fails when one drifts."""

from __future__ import annotations

import re
from pathlib import Path

from recoursesim.cli import main
from recoursesim.simulate import RESULT_FILES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _paragraph(page: str, start: str) -> str:
    """The paragraph of ``docs/<page>`` that begins with ``start`` (up to the next blank line), on one line."""
    text = (DOCS / page).read_text(encoding="utf-8")
    assert start in text, f"{page} no longer has the paragraph starting {start!r}"
    return " ".join(text.split(start, 1)[1].split("\n\n", 1)[0].split())


def test_the_cli_page_lists_every_file_run_writes() -> None:
    paragraph = _paragraph("cli.md", "`SCENARIO` is a TOML file")
    assert [name for name in RESULT_FILES if f"`{name}`" not in paragraph] == []


def test_the_reports_page_lists_every_file_of_a_run_directory() -> None:
    paragraph = _paragraph("reports.md", "**RESULTS** is either")
    assert [name for name in RESULT_FILES if f"`{name}`" not in paragraph] == []


def test_the_development_page_names_every_notebook_and_counts_them() -> None:
    notebooks = sorted(path.name for path in (ROOT / "examples").glob("*.ipynb"))
    paragraph = _paragraph("development.md", "Tutorial notebooks")
    assert f"({len(notebooks)} of them)" in paragraph
    assert sorted(re.findall(r"`([\w-]+\.ipynb)`", paragraph)) == notebooks


def test_the_reports_page_says_a_sweep_is_reported_and_it_is(tmp_path, capsys) -> None:
    results = _paragraph("reports.md", "**RESULTS** is either")
    errors = _paragraph("reports.md", "**Errors**")
    assert "sweep directory" in results and "--point" in results
    assert "it is a sweep directory" not in errors
    from recoursesim.scenario import Scenario
    from recoursesim.sweep import SweepPlan, run_sweep

    spec = Scenario.bundled("default").spec | {"run": {"steps": 2, "seed": 0}}
    spec["population"] = spec["population"] | {"initial": 40, "entrants": 4}
    spec["selection"] = spec["selection"] | {"k": 4}
    run_sweep(SweepPlan.from_grid(Scenario.from_dict(spec), n_seeds=2), tmp_path / "sweep", progress=False)
    assert main(["report", str(tmp_path / "sweep"), "--html", str(tmp_path / "r.html")]) == 0, capsys.readouterr()
    assert (tmp_path / "r.html").is_file()


def test_the_scenarios_page_makes_no_promise_of_speed_the_machine_can_break() -> None:
    paragraph = _paragraph("scenarios.md", "Both `list` and `show` import no modelling library")
    assert "fraction of a second" not in paragraph
    libraries = re.search(r"\(([^)]*)\)", paragraph)
    assert libraries is not None
    # the libraries the page names are the ones tests/engine/test_cli_catalogue.py keeps out of list and show
    assert libraries.group(1) == "scikit-learn, SciPy, pandas, Mesa"


def test_stored_notebook_outputs_show_no_folder_of_the_machine_that_ran_them() -> None:
    import json

    folder = re.compile(r"(?:^|[\s'\"(])/(?:home|Users|root|work|tmp|opt|usr)/|site-packages|\.venv/")
    found = []
    for path in sorted((ROOT / "examples").glob("*.ipynb")):
        for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            for output in cell.get("outputs", []):
                texts = [output.get("text", "")] + [
                    v for k, v in output.get("data", {}).items() if k.startswith("text")
                ]
                found += [f"{path.name} cell {number}" for text in texts if folder.search("".join(text))]
    assert found == []


def test_stored_notebook_outputs_print_no_label_twice() -> None:
    import json

    doubled = re.compile(r"^(\w+): \1:", flags=re.M)  # "support: support: ..."
    found = [
        f"{path.name} cell {number}"
        for path in sorted((ROOT / "examples").glob("*.ipynb"))
        for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"])
        for output in cell.get("outputs", [])
        if doubled.search("".join(output.get("text", "")))
    ]
    assert found == []
