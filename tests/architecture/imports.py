"""Read recoursesim's import graph from the source (every import, including those inside functions)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import recoursesim

PACKAGE_DIR = Path(recoursesim.__file__).parent


@dataclass(frozen=True)
class Import:
    """One import statement's target, seen from the module that runs it."""

    source: str
    target: str
    line: int


def module_name(path: Path) -> str:
    """``recoursesim/features/cost.py`` -> ``recoursesim.features.cost`` (a package's ``__init__`` -> the package)."""
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    """True when ``name`` is a module or package of recoursesim."""
    relative = Path(*name.split(".")[1:]) if "." in name else Path()
    base = PACKAGE_DIR / relative
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """Ids of the nodes under ``if TYPE_CHECKING:`` (imports that never run)."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return hidden


def imports_of(path: Path) -> Iterator[Import]:
    """Every recoursesim import a module runs, at module level or inside a function."""
    source = module_name(path)
    package = source if path.name == "__init__.py" else source.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            # ``from recoursesim import registry`` imports the module recoursesim.registry
            targets = [
                f"{module}.{alias.name}" if is_module(f"{module}.{alias.name}") else module for alias in node.names
            ]
        else:
            continue
        for target in dict.fromkeys(targets):
            if target == "recoursesim" or target.startswith("recoursesim."):
                yield Import(source, target, node.lineno)


def all_imports() -> list[Import]:
    """The imports of every module of the package."""
    return [item for path in sorted(PACKAGE_DIR.rglob("*.py")) for item in imports_of(path)]


def unit_of(module: str) -> str:
    """The layer unit of a module: its top-level module or sub-package.

    The package itself is ``recoursesim`` (its lazy public names); every ``__main__`` module is
    ``__main__`` (the entry points ``python -m recoursesim`` and ``python -m recoursesim.cli``).
    """
    parts = module.split(".")
    if parts[-1] == "__main__":
        return "__main__"
    return parts[1] if len(parts) > 1 else "recoursesim"
