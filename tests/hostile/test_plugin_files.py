"""A plug-in file beside a scenario runs with ``--allow-import`` alone: no ``PYTHONPATH``, no package.

Each subprocess gets ``PYTHONPATH`` holding recoursesim's source tree only (as an installed
recoursesim would be) and runs in a folder other than the scenario's, so the plug-in module is
found only through the scenario's folder, in the command, in worker processes and on Dask.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import re
import sys
from pathlib import Path

import pytest

from recoursesim.scenario import Scenario, load_scenario
from tests.hostile.conftest import ROOT, one_line_error
from tests.hostile.test_plugins import plugin_scenario, readme_plugin_code
from tests.subprocesses import run_python

DOCS = ROOT / "docs" / "plugins.md"


def recoursesim(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """``python -m recoursesim ARGS`` in ``cwd``, with recoursesim (and nothing else) on ``PYTHONPATH``."""
    done = run_python(["-m", "recoursesim", *args], cwd, {**os.environ, "PYTHONPATH": str(ROOT)})
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def folders(tmp_path) -> tuple[Path, Path]:
    """``project/`` (``newcomers_sel.py`` beside ``s.toml``, which names it) and an empty ``elsewhere/``."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "newcomers_sel.py").write_text(readme_plugin_code())
    (project / "s.toml").write_text(plugin_scenario("newcomers_sel:NewcomersFirstSelector"))
    return project, elsewhere


def test_the_docs_path_from_a_new_file_to_a_two_worker_sweep(tmp_path):
    """docs/plugins.md's steps, as written, run from another folder: the file, the scenario, run, sweep."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## From a new file to a two-worker sweep") :]
    toml = re.search(r"```toml\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]
    commands = re.search(r"```bash\n(.*?)```", section, re.S).group(1).split("\n")  # type: ignore[union-attr]
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "my_selectors.py").write_text(readme_plugin_code())
    (project / "my-scenario.toml").write_text("\n".join(line.strip() for line in toml.splitlines()) + "\n")
    run, sweep = (line.strip().split() for line in commands if line.strip())
    assert run[:2] == ["recoursesim", "run"] and sweep[:2] == ["recoursesim", "sweep"]
    for words in (run, sweep):
        status, _, err = recoursesim([words[1], "../project/my-scenario.toml", *words[3:]], elsewhere)
        assert status == 0, err
    assert len(list((elsewhere / "results" / "sweep-my-scenario" / "runs").glob("*.parquet"))) == 4


def test_run_and_show_check_find_the_file_beside_the_scenario(folders):
    project, elsewhere = folders
    run = ["run", "../project/s.toml", "--no-write", "--allow-import", "newcomers_sel"]
    status, out, err = recoursesim(run, elsewhere)
    assert status == 0, err
    assert "advantaged" in out
    status, _, err = recoursesim(["show", "../project/s.toml", "--check", "--allow-import", "newcomers_sel"], elsewhere)
    assert status == 0, err
    (elsewhere / "newcomers_sel.py").write_text(readme_plugin_code())  # and in the working directory
    (project / "newcomers_sel.py").unlink()
    status, _, err = recoursesim(run, elsewhere)
    assert status == 0, err


@pytest.mark.parametrize("parallel", [["--workers", "2"], ["--dask-local", "2"]])
def test_a_sweep_finds_it_in_worker_processes_and_on_dask(folders, parallel):
    if parallel[0] == "--dask-local":
        pytest.importorskip("distributed")
    _, elsewhere = folders
    args = ["sweep", "../project/s.toml", "--seeds", "2", *parallel, "--out", "o", "--quiet"]
    status, _, err = recoursesim([*args, "--allow-import", "newcomers_sel"], elsewhere)
    assert status == 0, err
    assert len(list((elsewhere / "o" / "runs").glob("*.parquet"))) == 2
    assert not (elsewhere / "o" / "errors").exists() or not any((elsewhere / "o" / "errors").iterdir())


def test_a_module_in_neither_place_is_one_line_naming_where_it_looked(folders):
    project, elsewhere = folders
    (project / "newcomers_sel.py").unlink()
    line = one_line_error(
        *recoursesim(["run", "../project/s.toml", "--no-write", "--allow-import", "newcomers_sel"], elsewhere)[::2]
    )
    assert "selection.name: cannot import 'newcomers_sel' (allowed by --allow-import)" in line
    assert f"{project.resolve()} or {elsewhere.resolve()}" in line
    assert "put newcomers_sel.py beside the scenario file or in the working directory" in line


@pytest.mark.parametrize("module", ["json", "tabnanny"])  # imported by recoursesim already; not imported
def test_a_file_named_like_an_installed_module_is_refused_never_imported(tmp_path, module):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / f"{module}.py").write_text("open('PWNED', 'w').write('ran')\n" + readme_plugin_code())
    (project / "s.toml").write_text(plugin_scenario(f"{module}:NewcomersFirstSelector"))
    line = one_line_error(
        *recoursesim(["run", "../project/s.toml", "--no-write", "--allow-import", module], elsewhere)[::2]
    )
    assert f"'{module}' is both an installed module" in line and str((project / f"{module}.py").resolve()) in line
    assert "an installed module is never shadowed" in line and f"rename {module}.py" in line
    assert not (elsewhere / "PWNED").exists()


def test_only_the_allowed_name_is_looked_up_and_sys_path_is_untouched(folders, monkeypatch):
    project, elsewhere = folders
    (project / "bystander_mod.py").write_text("open('PWNED', 'w').write('ran')\n")
    monkeypatch.chdir(elsewhere)
    path_before = list(sys.path)
    monkeypatch.delitem(sys.modules, "newcomers_sel", raising=False)
    scenario = load_scenario(project / "s.toml", allow_imports=["newcomers_sel"])
    assert scenario.import_folders == (str(project.resolve()), str(elsewhere.resolve()))
    model = scenario.build_model(0).run(until=1)
    assert type(model.selector).__module__ == "newcomers_sel"
    assert sys.path == path_before and importlib.util.find_spec("bystander_mod") is None
    assert not (elsewhere / "PWNED").exists()
    copy = pickle.loads(pickle.dumps(scenario))  # what a worker receives
    assert copy.import_folders == scenario.import_folders and copy.allow_imports == ("newcomers_sel",)
    assert scenario.with_overrides({"selection.k": 3}).import_folders == scenario.import_folders
    sys.modules.pop("newcomers_sel", None)


def test_a_scenario_without_a_folder_looks_in_the_working_directory_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = Scenario.bundled("default").spec
    assert Scenario.from_dict(spec).import_folders == (str(tmp_path.resolve()),)
    assert Scenario(spec).import_folders == ()  # built directly: installed modules only
