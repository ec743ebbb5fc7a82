"""One source per concept: a second copy of a concept fails here when it reappears."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from recoursesim import registry

PACKAGE = Path(registry.__file__).resolve().parent


def _string_constants(path: Path) -> list[str]:
    return [
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def test_the_registry_holds_no_hand_written_table_of_component_classes() -> None:
    """Lazily imported built-ins come from their ``@register`` decorators, not from a list in the registry."""
    listed = [
        text for text in _string_constants(PACKAGE / "registry.py") if re.fullmatch(r"recoursesim[\w.]*:\w+", text)
    ]
    assert listed == []


def test_every_lazily_imported_builtin_registers_itself_under_the_listed_name() -> None:
    lazy = registry.lazy_builtins()
    assert set(lazy["observer"]) >= {"facts", "ccm", "ground_truth", "domain_shift"}
    for kind, table in lazy.items():
        for name, target in table.items():
            cls = registry.lookup(kind, name)
            assert f"{cls.__module__}:{cls.__qualname__}" == target
            assert registry.registered()[kind][name] is cls


def _module_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return names


def test_one_registry_of_decision_models() -> None:
    """``scoring.tabular`` alone names the built-in models; others build on its ``make_model``."""
    defining = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if _module_level_names(path) & {"MODELS", "make_model"}
    }
    assert defining == {"scoring/tabular.py"}


def test_one_action_set_class() -> None:
    """``MixedActionSet`` is the only action-set class; the linear generators use its numeric form."""
    defining = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name.endswith("ActionSet")
    }
    assert defining == {"features/actions.py"}
    from recoursesim.component import RunContext
    from recoursesim.features import MixedActionSet
    from recoursesim.recourse import LinearRecourse

    assert isinstance(LinearRecourse(action_set={"lower": [0.0, 0.0]}).bind(RunContext()).actions_, MixedActionSet)
