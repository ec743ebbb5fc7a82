"""A scenario file is data: a ``"module:Class"`` name imports its module only when the person running allows it.

Each test puts ``evil.py`` (whose top-level code writes the file ``PWNED``) beside a scenario that
names it, and checks that nothing ran, nothing was written and the one-line error says how to
allow the import; with the allowance the same scenario runs as before, in this process, in
worker processes and on Dask.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.sweep import SweepPlan
from recoursesim.sweep.executors import JoblibExecutor
from recoursesim.sweep.worker import execute
from recoursesim.trust import allowance, is_allowed
from tests.hostile.conftest import ROOT, one_line_error, small_text, tree

#: A selector module whose import leaves a trace (the file PWNED in the working directory).
EVIL = (
    "open('PWNED', 'w').write('ran')\n"
    "from recoursesim.selection.top_k import TopKSelector\n\n\n"
    "class X(TopKSelector):\n"
    "    pass\n"
)


def with_selector(name: str) -> str:
    """The small scenario with its selector named ``name``."""
    text = small_text()
    start, end = text.index("[selection]"), text.index("[recourse]")
    return text[:start] + f'[selection]\nname = "{name}"\nk = 4\n\n' + text[end:]


@pytest.fixture
def evil_folder(tmp_path) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "evil.py").write_text(EVIL)
    (folder / "ev.toml").write_text(with_selector("evil:X"))
    return folder


def python_m(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m recoursesim ARGS`` in ``cwd`` (whose modules are importable, as for a user there)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(cwd)])}
    return subprocess.run(
        [sys.executable, "-m", "recoursesim", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_run_imports_nothing_without_the_allowance_and_runs_with_it(evil_folder):
    before = tree(evil_folder)
    done = python_m(["run", "ev.toml", "--no-write"], evil_folder)
    line = one_line_error(done.returncode, done.stderr)
    assert "selection.name" in line and "--allow-import evil" in line and 'allow_imports=["evil"]' in line
    assert tree(evil_folder) == before  # evil.py did not run (no PWNED, no __pycache__)
    done = python_m(["run", "ev.toml", "--no-write", "--allow-import", "evil"], evil_folder)
    assert done.returncode == 0, done.stderr
    assert (evil_folder / "PWNED").is_file() and "advantaged" in done.stdout


def test_a_standard_library_class_is_not_imported(tmp_path):
    (tmp_path / "sh.toml").write_text(with_selector("shelve:DbfilenameShelf"))
    code = (
        "import sys\nfrom recoursesim.cli import main\nstatus = main(['run', 'sh.toml', '--no-write'])\n"
        "print(status, 'shelve' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.stdout.split() == ["2", "False"], done.stderr
    assert "--allow-import shelve" in done.stderr


def test_other_commands_refuse_too(evil_folder, cli):
    os.chdir(evil_folder)
    sys.path.insert(0, str(evil_folder))
    try:
        before = tree(evil_folder)
        for argv in (
            ["sweep", "ev.toml", "--seeds", "2", "--workers", "2", "--out", "o"],
            ["compare", "ev.toml", str(ROOT / "scenarios" / "default.toml"), "--seeds", "2"],
        ):
            assert "--allow-import evil" in one_line_error(*cli(*argv)[::2])
        assert tree(evil_folder) == before and "evil" not in sys.modules
        assert cli("run", "ev.toml", "--out", "r", "--allow-import", "evil")[0] == 0
        (evil_folder / "PWNED").unlink()
        sys.modules.pop("evil")
        # A report reads the saved tables; it never imports the module the saved scenario names.
        assert cli("report", "r", "--html", "rep.html")[0] == 0
        assert not (evil_folder / "PWNED").exists() and "evil" not in sys.modules
    finally:
        sys.path.remove(str(evil_folder))
        sys.modules.pop("evil", None)


def test_observers_and_the_rest_of_the_file_are_checked_before_any_import(evil_folder, cli):
    os.chdir(evil_folder)
    (evil_folder / "ob.toml").write_text(small_text() + '\n[[observers]]\nname = "evil:X"\n')
    assert "observers[0].name" in one_line_error(*cli("run", "ob.toml", "--no-write")[::2])
    # Allowed, but another field is wrong: the file is refused before the module is imported.
    (evil_folder / "bad.toml").write_text(with_selector("evil:X").replace("[run]", "[run]\nbogus = 1", 1))
    assert "run.bogus" in one_line_error(*cli("run", "bad.toml", "--no-write", "--allow-import", "evil")[::2])
    assert not (evil_folder / "PWNED").exists()


def test_python_api_takes_the_allowance_and_keeps_it_when_pickled(evil_folder, monkeypatch):
    monkeypatch.chdir(evil_folder)
    monkeypatch.syspath_prepend(str(evil_folder))
    table = tomllib.loads((evil_folder / "ev.toml").read_text())
    with pytest.raises(ConfigError, match=r"allow_imports=\[\"evil\"\]"):
        Scenario.from_dict(table)
    assert not (evil_folder / "PWNED").exists()
    scenario = Scenario.from_dict(table, allow_imports=["evil"])
    assert scenario.allow_imports == ("evil",)
    assert pickle.loads(pickle.dumps(scenario)).allow_imports == ("evil",)
    assert scenario.with_overrides({"selection.k": 3}).allow_imports == ("evil",)
    assert type(scenario.build_model(0).selector).__name__ == "X"
    sys.modules.pop("evil", None)


def test_a_worker_never_imports_a_module_the_task_does_not_allow(evil_folder, monkeypatch):
    """A task whose scenario lacks the allowance (validation bypassed) fails in the worker, importing nothing."""
    monkeypatch.chdir(evil_folder)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(evil_folder)]))
    monkeypatch.syspath_prepend(str(evil_folder))
    table = tomllib.loads((evil_folder / "ev.toml").read_text())
    allowed = SweepPlan.from_grid(Scenario.from_dict(table, allow_imports=["evil"]), n_seeds=2)
    (evil_folder / "PWNED").unlink()
    sys.modules.pop("evil", None)
    smuggled = SweepPlan((type(allowed.points[0])({}, Scenario(allowed.points[0].scenario.spec)),), n_seeds=2)
    # loky reuses worker processes across tests; workers started before PYTHONPATH named evil_folder cannot find it
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    with JoblibExecutor(2) as executor:
        outcomes = list(executor.map_unordered(execute, smuggled.tasks()))
    assert [o.ok for o in outcomes] == [False, False]
    assert all("which you have not allowed" in (o.error or "") for o in outcomes)
    assert not (evil_folder / "PWNED").exists()
    with JoblibExecutor(2) as executor:
        assert all(o.ok for o in executor.map_unordered(execute, allowed.tasks()))
    assert (evil_folder / "PWNED").exists()  # written by a worker that was allowed to import evil


def test_dask_workers_get_the_allowance_with_the_task(evil_folder, monkeypatch):
    pytest.importorskip("distributed")
    from recoursesim.sweep.executors import DaskExecutor

    monkeypatch.chdir(evil_folder)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(evil_folder)]))
    monkeypatch.syspath_prepend(str(evil_folder))
    table = tomllib.loads((evil_folder / "ev.toml").read_text())
    allowed = Scenario.from_dict(table, allow_imports=["evil"])
    (evil_folder / "PWNED").unlink()
    sys.modules.pop("evil", None)
    smuggled = SweepPlan.from_grid(Scenario(allowed.spec), n_seeds=1)
    plan = SweepPlan.from_grid(allowed, n_seeds=1)
    with DaskExecutor(local_workers=1) as executor:
        refused = list(executor.map_unordered(execute, smuggled.tasks()))
        assert not refused[0].ok and "which you have not allowed" in (refused[0].error or "")
        assert not (evil_folder / "PWNED").exists()
        assert all(o.ok for o in executor.map_unordered(execute, plan.tasks()))
    assert (evil_folder / "PWNED").exists()


def test_allowance_names_are_checked(cli, scenario_file):
    assert allowance(["b", "a", "b"]) == ("a", "b") and allowance("mypkg") == ("mypkg",)
    assert is_allowed("mypkg.sub", ("mypkg",)) and not is_allowed("mypkgx", ("mypkg",))
    assert not is_allowed("mypkg", ("mypkg.sub",)) and is_allowed("recoursesim.selection", ())
    line = one_line_error(*cli("run", str(scenario_file()), "--no-write", "--allow-import", "a b")[::2])
    assert "allow_imports: 'a b' is not a module name" in line


def test_a_received_results_folder_is_read_never_executed(evil_folder, cli):
    """A results folder whose scenario.json names a booby-trapped model file and a module that writes a marker."""
    import json

    import numpy as np
    import skops.io as sio
    from sklearn.linear_model import LogisticRegression

    from tests.own_model import skops_files

    os.chdir(evil_folder)
    sys.path.insert(0, str(evil_folder))
    try:
        assert cli("run", "ev.toml", "--out", "r", "--allow-import", "evil")[0] == 0
        assert cli("sweep", "ev.toml", "--seeds", "2", "--out", "w", "--allow-import", "evil")[0] == 0
        (evil_folder / "PWNED").unlink()
        sys.modules.pop("evil")
        genuine = evil_folder / "genuine.skops"
        sio.dump(LogisticRegression().fit(np.eye(4)[:, :2], [0, 1, 0, 1]), genuine)
        trap = skops_files.plant(
            genuine, evil_folder / "trap.skops", skops_files.makedirs_exploit(evil_folder / "PWNED")
        )
        assert sio.get_untrusted_types(file=trap) == [skops_files.MAKEDIRS]  # the trap is real: see test_model_trust
        recorded = json.loads((evil_folder / "r" / "scenario.json").read_text())
        recorded["scenario"]["scorer"] = {"name": "fitted", "model_file": str(trap)}
        (evil_folder / "r" / "scenario.json").write_text(json.dumps(recorded))
        manifest = json.loads((evil_folder / "w" / "manifest.json").read_text())
        manifest["points"][0]["scenario"]["scorer"] = {"name": "fitted", "model_file": str(trap)}
        (evil_folder / "w" / "manifest.json").write_text(json.dumps(manifest))
        for argv in (
            ["report", "r", "--html", "rep.html"],
            ["report", "w", "--html", "sweep.html"],
            ["summarise", "w"],
        ):
            status, _, err = cli(*argv)
            assert status == 0, err
        assert not (evil_folder / "PWNED").exists() and "evil" not in sys.modules
        text = (evil_folder / "rep.html").read_text()
        assert "names the model file trap.skops, which a report never loads or imports" in text
        # The report takes no grant of trust at all: there is nothing in a results folder to grant it to.
        assert cli("report", "r", "--html", "x.html", "--allow-import", "evil")[0] == 2
        assert not (evil_folder / "PWNED").exists() and "evil" not in sys.modules
    finally:
        sys.path.remove(str(evil_folder))
        sys.modules.pop("evil", None)


@pytest.mark.parametrize(
    "name",
    ["recoursesim.cli.__main__:TopK", "recoursesim.__main__:X", "recoursesim.cli:main", "recoursesim.dashboard.app:X"],
)
def test_recoursesims_own_command_modules_are_never_imported_from_a_scenario(tmp_path, name):
    (tmp_path / "cli.toml").write_text(with_selector(name))
    module = name.partition(":")[0]
    code = (
        "import sys\nfrom recoursesim.cli import main\n"
        "status = main(['run', 'cli.toml', '--no-write', '--allow-import', 'recoursesim'])\n"
        f"print(status, {module!r} in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    status, imported = done.stdout.split()[-2:]
    assert status == "2" and (imported == "False" or module == "recoursesim.cli"), done.stderr
    assert f"names {module}, which defines no components" in one_line_error(2, done.stderr)
