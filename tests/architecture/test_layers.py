"""The import graph is a DAG of named layers: a module imports only from its own layer or lower ones.

Every import counts, including those inside functions (they run too); only imports under
``if TYPE_CHECKING:`` are left out. A new top-level module or sub-package must be placed in a layer.
"""

from __future__ import annotations

import graphlib
from collections import defaultdict

import pytest

from tests.architecture.imports import Import, all_imports, unit_of

#: The layers, lowest first, and the top-level modules and sub-packages of each.
LAYERS: dict[str, tuple[str, ...]] = {
    "base": (
        "_version",
        "_categories",
        "errors",
        "ledger",
        "rng",
        "threads",
        "_files",
        "plugin_files",
        "_atomic",
        "_validate",
        "_rows",
        "component",
        "ownership",
        "plugins",
        "resources",
        "stats",
        "trust",
        "metrics",
        "datasets",
        "registry",
        "component_index",
    ),
    "features": ("features",),
    "scoring": ("scoring",),
    "components": (
        "populations",
        "selection",
        "recourse",
        "behaviour",
        "refit_order",
        "training",
        "observers",
        "choice",
    ),
    "engine": ("agent_table", "agents", "durability", "market", "market_step", "model", "recoursesim"),
    "scenario": ("scenario", "simulate", "checks", "mesa_native"),
    "sweeps": ("sweep", "compare", "policy", "gym"),
    "auditors": ("auditors",),
    "report": ("report",),
    "studies": ("shift", "groundtruth", "calibration"),
    "interfaces": ("reproductions", "cli", "dashboard", "__main__"),
}

LEVEL: dict[str, int] = {unit: level for level, units in enumerate(LAYERS.values()) for unit in units}
LAYER_NAME: dict[str, str] = {unit: name for name, units in LAYERS.items() for unit in units}


def layer_violations(imports: list[Import]) -> list[str]:
    """Imports from a higher layer, one readable line each."""
    return [
        f"{item.source}:{item.line} imports {item.target} "
        f"({LAYER_NAME[unit_of(item.source)]} -> {LAYER_NAME[unit_of(item.target)]})"
        for item in imports
        if LEVEL[unit_of(item.source)] < LEVEL[unit_of(item.target)]
    ]


def cycle_of(edges: dict[str, set[str]]) -> list[str]:
    """One cycle of a directed graph, or ``[]`` when it is acyclic."""
    try:
        tuple(graphlib.TopologicalSorter(edges).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return []


def unit_graph(imports: list[Import]) -> dict[str, set[str]]:
    """Top-level module or sub-package -> those it imports."""
    edges: dict[str, set[str]] = defaultdict(set)
    for item in imports:
        if unit_of(item.source) != unit_of(item.target):
            edges[unit_of(item.source)].add(unit_of(item.target))
    return edges


def module_graph(imports: list[Import]) -> dict[str, set[str]]:
    """Module -> modules it imports (a module reading its own package's public names is left out)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for item in imports:
        if item.source != item.target and not item.source.startswith(f"{item.target}."):
            edges[item.source].add(item.target)
    return edges


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return all_imports()


def test_every_unit_has_a_layer(imports: list[Import]) -> None:
    units = {unit_of(item.source) for item in imports} | {unit_of(item.target) for item in imports}
    assert sorted(units - set(LEVEL)) == []


def test_no_module_imports_from_a_higher_layer(imports: list[Import]) -> None:
    assert layer_violations(imports) == []


def test_the_packages_import_graph_is_acyclic(imports: list[Import]) -> None:
    assert cycle_of(unit_graph(imports)) == []


def test_the_modules_import_graph_is_acyclic(imports: list[Import]) -> None:
    assert cycle_of(module_graph(imports)) == []


def test_the_checks_find_a_violation_and_a_cycle() -> None:
    upward = Import("recoursesim.features.cost", "recoursesim.model", 7)
    assert layer_violations([upward]) == ["recoursesim.features.cost:7 imports recoursesim.model (features -> engine)"]
    back = Import("recoursesim.model", "recoursesim.features.cost", 3)
    assert set(cycle_of(unit_graph([upward, back]))) == {"features", "model"}
    within = [Import("recoursesim.scoring.base", "recoursesim.scoring.classifier", 1)]
    within.append(Import("recoursesim.scoring.classifier", "recoursesim.scoring.base", 2))
    assert cycle_of(unit_graph(within)) == []
    assert set(cycle_of(module_graph(within))) == {"recoursesim.scoring.base", "recoursesim.scoring.classifier"}


def test_imports_inside_functions_count_and_type_checking_ones_do_not(tmp_path, monkeypatch) -> None:
    from tests.architecture import imports as reader

    package = tmp_path / "recoursesim"
    (package / "features").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text("")
    (package / "features" / "__init__.py").write_text("")
    (package / "features" / "box.py").write_text("")
    (package / "features" / "cost.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from recoursesim.model import Hidden\n"
        "def late():\n    from recoursesim import model\n"
        "from . import box, NAME\n"
    )
    monkeypatch.setattr(reader, "PACKAGE_DIR", package)
    found = sorted((item.target, item.line) for item in reader.imports_of(package / "features" / "cost.py"))
    # the function's import counts, the TYPE_CHECKING one does not; a relative import names a
    # module when there is one, else its package
    assert found == [("recoursesim.features", 6), ("recoursesim.features.box", 6), ("recoursesim.model", 5)]
