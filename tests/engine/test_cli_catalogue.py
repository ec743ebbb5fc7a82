"""``recoursesim list`` and ``recoursesim show``."""

import ast
import inspect
import subprocess
import sys
import tomllib

import pytest

from recoursesim import registry
from recoursesim.cli import main
from recoursesim.component_index import builtin_components
from recoursesim.scenario import PRESETS, Scenario, bundled_names


def test_show_then_run_prints_the_same_summary(tmp_path, capsys):
    assert main(["show", "german-credit-lending"]) == 0
    path = tmp_path / "s.toml"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["run", str(path), "--no-write", "--steps", "2"]) == 0
    from_file = capsys.readouterr().out
    assert main(["run", "german-credit-lending", "--no-write", "--steps", "2"]) == 0
    bundled = capsys.readouterr().out
    assert from_file == bundled
    assert "scenario german-credit-lending" in bundled and "female" in bundled


@pytest.mark.parametrize("name", [*bundled_names(), *PRESETS])
def test_show_prints_the_resolved_table_of_every_bundled_scenario_and_preset(name, capsys):
    assert main(["show", name, "--check"]) == 0
    shown = tomllib.loads(capsys.readouterr().out)
    expected = Scenario.from_dict({"base": name}).spec if name in PRESETS and name not in bundled_names() else None
    expected = expected or Scenario.bundled(name).spec
    assert shown == expected


def test_show_resolves_a_file_with_a_base(tmp_path, capsys):
    path = tmp_path / "mine.toml"
    path.write_text('base = "german-credit-lending"\nname = "mine"\n[selection]\nk = 12\n', encoding="utf-8")
    assert main(["show", str(path)]) == 0
    shown = tomllib.loads(capsys.readouterr().out)
    assert shown["name"] == "mine" and shown["selection"] == {"name": "top_k", "k": 12}
    assert shown["population"]["dataset"] == "german" and "base" not in shown


def test_show_unknown_scenario_is_one_line(capsys):
    assert main(["show", "nonesuch.toml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: scenario: file nonesuch.toml not found") and err.count("\n") == 1


def test_list_components_shows_every_registered_name_with_parameters(capsys):
    assert main(["list", "components"]) == 0
    out = capsys.readouterr().out
    for kind in registry.KINDS:
        assert f"{kind} components" in out
        for name in registry.names(kind):
            assert f"  {name}" in out or f"also {name}" in out or f", {name}" in out, (kind, name)
    assert "  top_k (also topk): " in out
    assert "      k: int (required)" in out
    assert '      budget: str = "flexible"' in out
    assert "      tolerance: float = 1e-06" in out


def test_list_components_of_one_kind(capsys):
    assert main(["list", "components", "--kind", "selector"]) == 0
    out = capsys.readouterr().out
    assert "selector components" in out and "recourse components" not in out
    assert main(["list", "components", "--kind", "selectors"]) == 2
    assert "unknown component kind 'selectors'" in capsys.readouterr().err


def test_list_scenarios_and_datasets(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in [*bundled_names(), *PRESETS]:
        assert f"  {name} " in out
    assert "German credit, sex as group" in out
    for name in ("adult", "german", "compas"):
        assert f"  {name} " in out
    assert "UCI Statlog German Credit" in out


def test_the_static_index_agrees_with_the_imported_registry():
    """``list components`` reads the source; every name, class and parameter must match the live classes."""
    index = {(info.kind, info.name): info for info in builtin_components()}
    live_names = {(kind, name) for kind in registry.KINDS for name in registry.names(kind)}
    listed = {(info.kind, name) for info in index.values() for name in (info.name, *info.aliases)}
    assert listed == live_names
    for (kind, name), info in index.items():
        cls = registry.lookup(kind, name)
        assert info.target == f"{cls.__module__}:{cls.__qualname__}"
        for alias in info.aliases:
            assert registry.lookup(kind, alias) is cls
        live = {p.name: p for p in inspect.signature(cls).parameters.values()}
        assert [p.name for p in info.parameters] == registry.accepted_parameters(cls), (kind, name)
        for parameter in info.parameters:
            default = live[parameter.name].default
            if parameter.default is None:
                assert default is inspect.Parameter.empty, (name, parameter.name)
            else:
                assert ast.literal_eval(parameter.default) == default, (name, parameter.name)


def test_list_imports_no_modelling_library():
    code = (
        "import sys; from recoursesim.cli import main; main(['list']); main(['show', 'german-credit-lending']); "
        "heavy = [m for m in ('sklearn', 'scipy', 'pandas', 'mesa', 'matplotlib') if m in sys.modules]; "
        "print('HEAVY', heavy)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in proc.stdout


def test_parameters_are_read_through_dataclass_bases(tmp_path, monkeypatch):
    """A plain subclass of a dataclass component lists its base's fields; its own ``__init__`` wins."""
    import ast

    from recoursesim import component_index

    package = tmp_path / "recoursesim"
    package.mkdir()
    (package / "base.py").write_text(
        "import dataclasses\n\n@dataclasses.dataclass(kw_only=True)\nclass Base:\n    width: int = 3\n"
    )
    (package / "child.py").write_text(
        "from recoursesim.base import Base\n\n"
        "class Plain(Base):\n    pass\n\n"
        "class Own(Base):\n    def __init__(self, depth: float = 0.5):\n        pass\n"
    )
    monkeypatch.setattr(component_index, "_ROOT", package)
    classes = {n.name: n for n in ast.parse((package / "child.py").read_text()).body if isinstance(n, ast.ClassDef)}
    names = {
        name: [p[0] for p in component_index._declared_signature("recoursesim.child", node) or []]
        for name, node in classes.items()
    }
    assert names == {"Plain": ["width"], "Own": ["depth"]}
