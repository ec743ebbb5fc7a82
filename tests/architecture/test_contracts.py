"""The import contracts of ``pyproject.toml`` hold, and they catch what they are meant to catch.

``lint-imports`` (import-linter) checks them in ``.ci/run``; these tests run the same contracts in
the suite, and show on a changed import graph that each contract fails when it should. Imports
under ``if TYPE_CHECKING:`` never run and are left out of the contracts; the import circles among
a package's modules are checked with them too (a helper that names its owner in a type hint takes
its owner back).
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter import configuration
from importlinter.application.use_cases import FAILURE, SUCCESS, lint_imports
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
from importlinter.contracts.independence import IndependenceContract
from importlinter.contracts.layers import LayersContract

configuration.configure()  # what the lint-imports command sets up first (its readers of the configuration)

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
SESSION = {
    **{key: value for key, value in CONFIG.items() if key != "contracts"},
    "root_packages": [CONFIG["root_package"]],
}


def contract(contract_id: str) -> dict[str, Any]:
    """The options of the contract ``contract_id`` of ``pyproject.toml``."""
    return next(c for c in CONFIG["contracts"] if c["id"] == contract_id)


def layers() -> list[list[str]]:
    """The layers of the layers contract, lowest first, each as its modules (``recoursesim.<name>``)."""
    return [[name.strip() for name in layer.split(":")] for layer in reversed(contract("layers")["layers"])]


def check(kind: type, contract_id: str, graph: grimp.ImportGraph, **changes: Any) -> Any:
    """Check one contract of ``pyproject.toml`` (its options changed by ``changes``) on ``graph``."""
    options = {key: value for key, value in contract(contract_id).items() if key not in ("id", "name", "type")}
    options = {key: value if isinstance(value, list) else str(value) for key, value in options.items()}
    made = kind(name=contract_id, session_options=SESSION, contract_options={**options, **changes})
    return made.check(copy.deepcopy(graph), verbose=False)  # a check removes the imports it ignores


@pytest.fixture
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("recoursesim", exclude_type_checking_imports=True, cache_dir=None)


def test_the_contracts_are_kept(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert lint_imports(str(ROOT / "pyproject.toml"), cache_dir=None, no_logo=True) == SUCCESS


@pytest.mark.parametrize(
    ("kind", "contract_id", "importer", "imported"),
    [
        (LayersContract, "layers", "recoursesim.features.cost", "recoursesim.engine.model"),  # upward
        (IndependenceContract, "components", "recoursesim.selection.top_k", "recoursesim.recourse.base"),
        (AcyclicSiblingsContract, "acyclic", "recoursesim.recourse.spheres", "recoursesim.recourse.search"),  # a circle
    ],
)
def test_one_import_more_breaks_a_contract(graph, kind, contract_id, importer, imported) -> None:
    assert check(kind, contract_id, graph).kept
    graph.add_import(importer=importer, imported=imported, line_number=1, line_contents=f"import {imported}")
    assert not check(kind, contract_id, graph).kept


def test_a_module_outside_every_layer_breaks_the_layers(graph) -> None:
    graph.add_module("recoursesim.newcomer")
    assert not check(LayersContract, "layers", graph).kept


def level(module: str) -> int:
    """The layer of a module of recoursesim, counted from the lowest (0); the package's root is in the engine's."""
    unit = module.split(".")[1] if "." in module else "engine"  # the root hands out RecourseModel (lazily)
    return next(number for number, layer in enumerate(layers()) if unit in layer)


def root_violations(graph: grimp.ImportGraph) -> list[str]:
    """Imports of or by the package's root that cross its layer the wrong way (layers contracts leave the root out)."""
    engine = level("recoursesim")
    down = [f"recoursesim -> {m}" for m in graph.find_modules_directly_imported_by("recoursesim") if level(m) > engine]
    up = [f"{m} -> recoursesim" for m in graph.find_modules_that_directly_import("recoursesim") if level(m) < engine]
    return sorted(down + up)


def test_the_package_root_sits_in_the_engine_layer(graph) -> None:
    assert root_violations(graph) == []
    graph.add_import(importer="recoursesim.features.cost", imported="recoursesim", line_number=1, line_contents="x")
    graph.add_import(importer="recoursesim", imported="recoursesim.cli", line_number=2, line_contents="y")
    assert root_violations(graph) == ["recoursesim -> recoursesim.cli", "recoursesim.features.cost -> recoursesim"]


def test_no_helper_takes_its_owner_back_even_in_a_type_hint() -> None:
    typed = grimp.build_graph("recoursesim", exclude_type_checking_imports=False, cache_dir=None)
    ignored = contract("acyclic").get("ignore_imports", [])
    result = check(AcyclicSiblingsContract, "acyclic", typed, ignore_imports=ignored)
    assert result.metadata["cycle_breakers_by_package"] == {}
    assert result.kept


def test_a_failing_contract_fails_the_command(tmp_path, monkeypatch) -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    broken = text.replace('"scoring",\n    "features : component",', '"features : component",\n    "scoring",', 1)
    assert broken != text
    (tmp_path / "pyproject.toml").write_text(broken, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert lint_imports(str(tmp_path / "pyproject.toml"), cache_dir=None, no_logo=True) == FAILURE
