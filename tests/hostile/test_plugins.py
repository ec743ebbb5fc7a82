"""Plug-ins: the README's example passes the checks and works in worker processes, on Dask and installed."""

from __future__ import annotations

import copy
import importlib
import os
import pickle
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from recoursesim import registry
from recoursesim.checks import check_selector
from recoursesim.errors import ConfigError, DataError
from recoursesim.scenario import Scenario
from recoursesim.scenario.scenario import ScenarioError
from tests.hostile.conftest import ROOT, one_line_error, small_text
from tests.subprocesses import run_python

README = ROOT / "docs" / "plugins.md"
PLUGIN_TOML = '\n[selection]\nname = "{name}"\nk = 4\n'


def readme_plugin_code() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    return next(block for block in blocks if '@register("selector", "newcomers_first")' in block)


def plugin_scenario(name: str) -> str:
    """A small scenario whose selector is ``name`` (the [selection] table replaced)."""
    text = small_text()
    start = text.index("[selection]")
    end = text.index("[recourse]")
    return text[:start] + PLUGIN_TOML.format(name=name).strip() + "\n\n" + text[end:]


@pytest.fixture
def clean_registry():
    """Restore the registry's tables after a test that registers plug-ins.

    Built-in components imported during the test (the registry imports some only when first named)
    stay registered: their modules are imported once per process, so dropping them would lose them.
    """
    saved = copy.deepcopy({kind: dict(table) for kind, table in registry._REGISTRY.items()})
    for table in registry._REGISTRY.values():  # start with the built-ins only: another test's plug-ins are gone
        for name in [name for name, cls in table.items() if not cls.__module__.startswith("recoursesim.")]:
            del table[name]
    yield registry._REGISTRY
    for kind, table in registry._REGISTRY.items():
        builtins = {name: cls for name, cls in table.items() if cls.__module__.startswith("recoursesim.")}
        table.clear()
        table.update({**builtins, **saved.get(kind, {})})


@pytest.fixture
def site(tmp_path) -> Path:
    """A folder holding the README's plug-in as the package ``newcomers_plugin``, installed with an entry point.

    The ``.dist-info`` folder is what ``pip install --target`` writes; ``importlib.metadata`` finds
    the entry point in it like in any installed package.
    """
    folder = tmp_path / "site"
    package = folder / "newcomers_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(readme_plugin_code(), encoding="utf-8")
    info = folder / "newcomers_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: newcomers-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[recoursesim.plugins]\nnewcomers = newcomers_plugin\n")
    (info / "RECORD").write_text("")
    return folder


def run_cli(args: list[str], cwd: Path, site: Path | None = None) -> subprocess.CompletedProcess:
    path = [str(ROOT)] + ([str(site)] if site else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return run_python(["-m", "recoursesim.cli", *args], cwd, env)


def test_readme_plugin_passes_check_selector(site, monkeypatch, clean_registry):
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "newcomers_plugin", raising=False)
    module = importlib.import_module("newcomers_plugin")
    check_selector(module.NewcomersFirstSelector(k=20))
    assert registry.lookup("selector", "newcomers_first") is module.NewcomersFirstSelector
    sys.modules.pop("newcomers_plugin", None)


def test_errors_pickle_and_unpickle():
    for error in (
        ConfigError("selection.k", "must be >= 1", "set k"),
        DataError("--csv", "is empty", "give rows"),
        ScenarioError("s.toml", ConfigError("run.steps", "bad", "fix it")),
    ):
        copy_ = pickle.loads(pickle.dumps(error))
        assert type(copy_) is type(error) and str(copy_) == str(error) and copy_.field == error.field


DRIVER = """
import sys
from pathlib import Path
from recoursesim.scenario import Scenario
from recoursesim.sweep import SweepPlan, run_sweep
from recoursesim.sweep.executors import DaskExecutor, JoblibExecutor

if __name__ == "__main__":  # inside the guard: worker processes that import this module do not register it
    exec(compile(Path(sys.argv[1]).read_text(), "plugin", "exec"))  # registers newcomers_first here only
    plan = SweepPlan.from_grid(Scenario.from_file(sys.argv[2]), {}, n_seeds=3)
    executor = JoblibExecutor(2) if sys.argv[4] == "joblib" else DaskExecutor(local_workers=1)
    with executor:
        report = run_sweep(plan, sys.argv[3], executor=executor, progress=False)
    print(report.succeeded, report.n_runs, [f["error"] for f in report.failures])
"""


@pytest.mark.parametrize("executor", ["joblib", "dask"])
def test_plugin_registered_in_a_driver_script_runs_in_workers(tmp_path, executor):
    pytest.importorskip("distributed") if executor == "dask" else None
    (tmp_path / "plugin.py").write_text(readme_plugin_code())
    (tmp_path / "s.toml").write_text(plugin_scenario("newcomers_first"))
    (tmp_path / "driver.py").write_text(DRIVER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = run_python(["driver.py", "plugin.py", "s.toml", "out", executor], tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "3 3 []"


def test_installed_entry_point_package_runs_with_two_workers(tmp_path, site):
    (tmp_path / "s.toml").write_text(plugin_scenario("newcomers_first"))
    done = run_cli(["sweep", "s.toml", "--seeds", "2", "--workers", "2", "--out", "o", "--quiet"], tmp_path, site)
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "o" / "runs").glob("*.parquet"))) == 2
    (tmp_path / "t.toml").write_text(small_text("other"))
    compared = run_cli(["compare", "s.toml", "t.toml", "--seeds", "2", "--workers", "2"], tmp_path, site)
    assert compared.returncode == 0, compared.stderr


def test_a_fresh_process_finds_entry_point_plugins_on_first_lookup(tmp_path, site):
    code = "from recoursesim.registry import lookup; print(lookup('selector', 'newcomers_first').__module__)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "newcomers_plugin", done.stderr


def test_import_path_names_a_class_without_registering(tmp_path, site, monkeypatch, clean_registry):
    monkeypatch.syspath_prepend(str(site))
    selection = {"name": "newcomers_plugin:NewcomersFirstSelector", "k": 5}
    table = {**Scenario.bundled("default").spec, "selection": selection}
    scenario = Scenario.from_dict(table, allow_imports=["newcomers_plugin"])
    model = scenario.build_model(0).run(until=1)
    assert type(model.selector).__name__ == "NewcomersFirstSelector"
    (tmp_path / "s.toml").write_text(plugin_scenario("newcomers_plugin:NewcomersFirstSelector"))
    sweep = ["sweep", "s.toml", "--seeds", "2", "--workers", "2", "--out", "o", "--quiet"]
    done = run_cli([*sweep, "--allow-import", "newcomers_plugin"], tmp_path, site)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("no_such_module_xyz:Thing", "which you have not allowed"),
        ("recoursesim.selection:NoSuchClass", "has no class"),
        ("recoursesim.selection:top_k_mask", "has no class"),
        ("not a path:x y", "is not an import path"),
    ],
)
def test_bad_import_paths_are_one_line_errors(cli, tmp_path, name, message):
    (tmp_path / "s.toml").write_text(plugin_scenario(name))
    line = one_line_error(*cli("run", str(tmp_path / "s.toml"))[::2])
    assert "selection.name" in line and message in line


def test_an_allowed_module_that_is_not_installed_is_one_line(cli, tmp_path):
    (tmp_path / "s.toml").write_text(plugin_scenario("no_such_module_xyz:Thing"))
    line = one_line_error(*cli("run", str(tmp_path / "s.toml"), "--allow-import", "no_such_module_xyz")[::2])
    assert "selection.name" in line and "cannot import 'no_such_module_xyz'" in line


def test_a_broken_installed_plugin_is_one_line(tmp_path, site):
    (site / "newcomers_plugin" / "__init__.py").write_text("raise RuntimeError('broken on purpose')\n")
    done = run_cli(["run", "--no-write", "--steps", "1"], tmp_path, site)
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith("error: plug-in 'newcomers' (newcomers_plugin)"), done.stderr


class _BrokenSelector:
    """A plug-in selector whose ``select`` returns what its ``answer`` makes of the top-k selection."""

    answer: staticmethod

    def __init__(self, k: int = 4) -> None:
        self.k = k

    def select(self, scores, context):
        from recoursesim.selection.top_k import TopKSelector

        return type(self).answer(TopKSelector(self.k).select(scores, context))


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (lambda right: None, "the selector's select() returned NoneType, not a Selection"),
        (lambda right: replace(right, threshold=float("nan")), "the selector's threshold is NaN or not a number (nan)"),
        (
            lambda right: replace(right, threshold=np.full(right.selected.size, np.nan)),
            "the selector's threshold is NaN for 40 of 40 agents",
        ),
    ],
    ids=["none", "nan", "nan-per-agent"],
)
def test_a_selector_returning_none_or_a_nan_threshold_is_one_line(cli, tmp_path, clean_registry, answer, problem):
    """Before: ``None`` was an AttributeError traceback, and a NaN threshold ran on into NaN metrics, exit 0."""
    from recoursesim.registry import register

    register("selector", "broken_selector")(type("Broken", (_BrokenSelector,), {"answer": staticmethod(answer)}))
    (tmp_path / "s.toml").write_text(plugin_scenario("broken_selector"))
    line = one_line_error(*cli("run", str(tmp_path / "s.toml"), "--out", "o")[::2])
    assert line.startswith(f"error: selection: {problem}; fix: make select() return"), line
    assert not (tmp_path / "work" / "o").exists()
