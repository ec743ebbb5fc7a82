"""The registered components and their parameters, for ``recoursesim list components``.

Built-in components are read from their source files (the ``@register`` decorators, the registry's
lazily imported observers and each class's ``__init__`` signature, or a dataclass's fields) without
importing them, so listing does not pay for scikit-learn, SciPy, pandas or Mesa. The source is the registry's own: a
test checks that this reading agrees with the imported classes. Plug-ins from installed packages,
which only exist once imported, are described from the live registry.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from recoursesim import registry

_ROOT = Path(__file__).resolve().parent


def registered_classes(kind: str) -> dict[str, type]:
    """Every class registered for ``kind`` once, keyed by its primary name, in the order of the sorted names.

    A class registered under aliases appears once; its primary name is the one its ``@register``
    gave it (``registered_name``), or, for a class registered by hand, the first name it is under.
    """
    found: dict[str, type] = {}
    for name in registry.names(kind):
        cls = registry.lookup(kind, name)
        if cls not in found.values():
            found[registry.primary_name(cls) or name] = cls
    return found


@dataclass(frozen=True)
class Parameter:
    """One constructor parameter a scenario may set.

    Attributes:
        name: The key in the scenario table.
        annotation: The type annotation as written (``""`` when there is none).
        default: The default as written in the source (``None``: required).
    """

    name: str
    annotation: str
    default: str | None


@dataclass(frozen=True)
class ComponentInfo:
    """A registered component.

    Attributes:
        kind: One of :data:`recoursesim.registry.KINDS`.
        name: The name a scenario uses.
        aliases: Other accepted names.
        target: The class as ``"module:Class"``.
        summary: The first line of the class docstring.
        parameters: The parameters a scenario may set, in signature order.
    """

    kind: str
    name: str
    aliases: tuple[str, ...]
    target: str
    summary: str
    parameters: tuple[Parameter, ...]


def components(kind: str | None = None) -> list[ComponentInfo]:
    """Return every registered component (of one kind), built-ins first, sorted by kind and name."""
    found = [*builtin_components(), *plugin_components()]
    return [info for info in found if kind is None or info.kind == kind]


@cache
def builtin_components() -> tuple[ComponentInfo, ...]:
    """Read the built-in components from the package's source files."""
    found = [
        _describe(kind, name, aliases, module, node)
        for package in (*registry.BUILTIN_PACKAGES, *registry.LAZY_PACKAGES)
        for module, node, kind, name, aliases in registry.source_registrations(package)
    ]
    kinds = list(registry.KINDS)
    return tuple(sorted(found, key=lambda info: (kinds.index(info.kind), info.name)))


def plugin_components() -> list[ComponentInfo]:
    """Describe the components registered by code outside recoursesim (plug-ins), from the live classes."""
    found = []
    for kind, table in registry.registered().items():
        by_class: dict[type, list[str]] = {}
        for name, cls in table.items():
            if not cls.__module__.startswith("recoursesim."):
                by_class.setdefault(cls, []).append(name)
        for cls, names in by_class.items():
            primary = registry.primary_name(cls) or names[0]
            primary = primary if primary in names else names[0]
            signature = inspect.signature(cls)
            parameters = tuple(
                Parameter(
                    p.name,
                    p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", ""),
                    None if p.default is inspect.Parameter.empty else repr(p.default),
                )
                for p in signature.parameters.values()
                if p.name in registry.accepted_parameters(cls)
            )
            summary = (inspect.getdoc(cls) or "").strip().split("\n", 1)[0]
            aliases = tuple(sorted(name for name in names if name != primary))
            found.append(
                ComponentInfo(kind, primary, aliases, f"{cls.__module__}:{cls.__qualname__}", summary, parameters)
            )
    return sorted(found, key=lambda info: (info.kind, info.name))


def _describe(kind: str, name: str, aliases: tuple[str, ...], module: str, node: ast.ClassDef) -> ComponentInfo:
    summary = (ast.get_docstring(node) or "").strip().split("\n", 1)[0]
    return ComponentInfo(kind, name, aliases, f"{module}:{node.name}", summary, _parameters(module, node))


def _parameters(module: str, node: ast.ClassDef) -> tuple[Parameter, ...]:
    supplied = registry.SUPPLIED_PARAMETERS
    return tuple(
        Parameter(
            name,
            ast.unparse(annotation) if annotation is not None else "",
            ast.unparse(default) if default is not None else None,
        )
        for name, annotation, default in _declared_signature(module, node) or []
        if name not in supplied
    )


#: A constructor parameter as written in the source: its name, annotation and default (``None``: none).
_Argument = tuple[str, ast.expr | None, ast.expr | None]


def _declared_signature(module: str, node: ast.ClassDef) -> list[_Argument] | None:
    """The parameters the class or its nearest base in recoursesim declares, or ``None``.

    A dataclass declares its fields; another class its ``__init__``'s arguments; a class with
    neither inherits its bases' (the first that declares one, as Python's method order does for a
    single line of bases).
    """
    if _is_dataclass(node):
        return _fields(module, node)
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return _arguments(item.args)
    for home, parent in _bases(module, node):
        inherited = _declared_signature(home, parent)
        if inherited is not None:
            return inherited
    return None


def _arguments(arguments: ast.arguments) -> list[_Argument]:
    """A method's parameters but the first (``self``), with their annotations and defaults."""
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += list(arguments.defaults)
    keywords = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    pairs = [*zip(positional, defaults, strict=True), *keywords]
    return [(arg.arg, arg.annotation, default) for arg, default in pairs[1:]]


def _is_dataclass(node: ast.ClassDef) -> bool:
    """Whether the class is decorated with ``@dataclass`` (or ``@dataclasses.dataclass``), called or not."""
    targets = (d.func if isinstance(d, ast.Call) else d for d in node.decorator_list)
    return any(
        (isinstance(t, ast.Name) and t.id == "dataclass") or (isinstance(t, ast.Attribute) and t.attr == "dataclass")
        for t in targets
    )


def _fields(module: str, node: ast.ClassDef) -> list[_Argument]:
    """A dataclass's fields in the order of its ``__init__``: its dataclass bases' first, then its own."""
    fields: dict[str, _Argument] = {}
    for home, parent in reversed(_bases(module, node)):
        if _is_dataclass(parent):
            fields.update((field[0], field) for field in _fields(home, parent))
    for item in node.body:
        if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
            continue
        if "ClassVar" not in ast.unparse(item.annotation):
            fields[item.target.id] = (item.target.id, item.annotation, item.value)
    return list(fields.values())


def _bases(module: str, node: ast.ClassDef) -> list[tuple[str, ast.ClassDef]]:
    """The class's bases defined in recoursesim, in order, each with the module that defines it."""
    tree = registry.parsed_source(_module_path(module))
    imported = {
        alias.asname or alias.name: statement.module
        for statement in tree.body
        if isinstance(statement, ast.ImportFrom) and statement.module
        for alias in statement.names
    }
    found = []
    for base in node.bases:
        if not isinstance(base, ast.Name):
            continue
        home = module if _find_class(module, base.id) is not None else imported.get(base.id)
        if home is None or not home.startswith("recoursesim"):
            continue
        parent = _find_class(home, base.id)
        if parent is not None:
            found.append((home, parent))
    return found


def _find_class(module: str, name: str) -> ast.ClassDef | None:
    path = _module_path(module)
    if not path.is_file():
        return None
    for node in registry.parsed_source(path).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    return None


def _module_path(module: str) -> Path:
    """The source file of a recoursesim module, found without importing it."""
    parts = module.split(".")[1:]
    folder = _ROOT.joinpath(*parts)
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")
