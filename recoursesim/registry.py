"""Name → class registries for the pluggable parts, so scenarios can name them.

A plug-in is registered with a decorator::

    from recoursesim.registry import register

    @register("selector", "lottery")
    class LotterySelector:
        ...

and a scenario then says ``[selection] name = "lottery"``. The table's other keys are passed
to the class's ``__init__`` as keyword arguments; the built component is then bound to the run
(``bind(context)``, see :class:`~recoursesim.component.RunContext`). A plug-in class that
subclasses :class:`~recoursesim.component.Component` has ``bind``; a class without one is given
one that learns nothing when it is registered (or imported by path), so every component has the
lifecycle step and nobody asks whether it has. A constructor that still declares ``schema``,
``action_defaults``, ``feature_names`` or ``population``
(:data:`~recoursesim.lifecycle.LEGACY_PARAMETERS_BY_KIND`) is
passed them from the context, as before, with a :class:`FutureWarning` naming the class (this keeps
working for one release). Installed packages register through the
``recoursesim.plugins`` entry point (:mod:`recoursesim.plugins`). A scenario may also name a class
by its import path, ``name = "my_package.selectors:LotterySelector"``, without registering it, but
that module is imported only when the person running allows it (:mod:`recoursesim.trust`).

Registrations live in the process that made them. So that worker processes and Dask workers know
the plug-ins a scenario uses, :func:`plugin_classes` lists them and :func:`install` registers them
again on the other side (a pickled :class:`~recoursesim.scenario.Scenario` carries them).
"""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
import inspect
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recoursesim.errors import ConfigError, first_line
from recoursesim.lifecycle import LEGACY_PARAMETERS_BY_KIND, adopt, bind, deprecated
from recoursesim.plugin_files import import_plugin
from recoursesim.trust import check_import_allowed

if TYPE_CHECKING:
    from recoursesim.component import RunContext

#: The kinds of pluggable part, with the scenario section that configures each.
KINDS: dict[str, str] = {
    "population": "population",
    "scorer": "scorer",
    "selector": "selection",
    "recourse": "recourse",
    "behaviour": "behaviour",
    "trainer": "training",
    "observer": "observers",
    "outcome": "outcome",
    "choice": "market.choice",
}

_REGISTRY: dict[str, dict[str, type]] = {kind: {} for kind in KINDS}

#: The method every component of a kind has; a class named by import path must define it.
PROTOCOL_METHODS: dict[str, str] = {
    "population": "sample",
    "scorer": "score",
    "selector": "select",
    "recourse": "recommend",
    "behaviour": "act",
    "trainer": "update",
    "observer": "observe",
    "outcome": "resolve",
    "choice": "choose",
}

#: Packages holding built-in components whose modules are imported only when a scenario names one
#: (the auditors pull in heavier dependencies than a plain run needs). Their classes carry the same
#: ``@register`` decorator as every other component; the registry reads the decorators from the
#: source (:func:`lazy_builtins`) so that listing or checking names imports nothing.
LAZY_PACKAGES: tuple[str, ...] = ("recoursesim.auditors", "recoursesim.groundtruth", "recoursesim.shift")


#: The packages whose modules define the built-in components (imported on first use).
BUILTIN_PACKAGES: tuple[str, ...] = (
    "recoursesim.behaviour",
    "recoursesim.choice",
    "recoursesim.populations",
    "recoursesim.recourse",
    "recoursesim.scoring",
    "recoursesim.selection",
    "recoursesim.training",
)


#: The name ``@register`` gave each class first (its primary name; aliases are other names).
_PRIMARY: dict[type, str] = {}


def register[T: type](kind: str, name: str, *aliases: str) -> Callable[[T], T]:
    """Class decorator registering a component under ``name`` (and ``aliases``).

    Args:
        kind: One of :data:`KINDS`.
        name: The name scenarios use.
        *aliases: Other accepted names (for example the paper's abbreviation).

    Returns:
        The decorator, which returns the class unchanged.
    """
    if kind not in _REGISTRY:
        raise ValueError(f"unknown component kind {kind!r}; expected one of {sorted(_REGISTRY)}")

    def decorate(cls: T) -> T:
        adopt(kind, cls)
        for key in (name, *aliases):
            existing = _REGISTRY[kind].get(key)
            if existing is not None and existing is not cls:
                raise ValueError(f"{kind} name {key!r} is already registered to {existing.__name__}")
            _REGISTRY[kind][key] = cls
        cls.registered_name = name  # type: ignore[attr-defined]
        _PRIMARY[cls] = name
        return cls

    return decorate


def primary_name(cls: type) -> str | None:
    """The name ``@register`` gave ``cls`` (not an alias), or ``None`` for a class registered another way."""
    return _PRIMARY.get(cls)


def names(kind: str) -> list[str]:
    """Return the sorted registered names of one kind."""
    _load_builtins()
    return sorted(set(_REGISTRY[kind]) | set(lazy_builtins().get(kind, {})))


def lookup(kind: str, name: object, *, field: str | None = None, allow_imports: tuple[str, ...] = ()) -> type:
    """Return the class registered as ``name`` (or at the import path ``"package.module:Class"``).

    Args:
        kind: One of :data:`KINDS`.
        name: A registered name or an import path.
        field: Dotted scenario path used in error messages.
        allow_imports: Modules an import path may import (:func:`recoursesim.trust.allowance`).

    Raises:
        ConfigError: unknown name (with suggestions), an import path whose module is not allowed
            (nothing is imported), or one that cannot be imported.
    """
    _load_builtins()
    field = field or f"{KINDS[kind]}.name"
    if isinstance(name, str) and ":" in name:
        check_import_path(name, field, allow_imports)
        return _import_class(kind, name, field)
    table = _REGISTRY[kind]
    lazy = lazy_builtins().get(kind, {})
    if isinstance(name, str) and name not in table and name in lazy:
        importlib.import_module(lazy[name].partition(":")[0])  # its @register decorator fills the table
    if not isinstance(name, str) or name not in table:
        known = names(kind)
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigError(field, f"unknown {kind} {name!r}", f"{hint}use one of {', '.join(known)}")
    return table[name]


def check_import_path(path: str, field: str, allow_imports: tuple[str, ...]) -> None:
    """Refuse a ``"package.module:Class"`` string that is not an import path, or whose module is not allowed.

    Imports nothing.
    """
    module_name, _, attribute = path.partition(":")
    parts = [*module_name.split("."), *attribute.split(".")]
    if not module_name or not attribute or not all(part.isidentifier() for part in parts):
        raise ConfigError(field, f"{path!r} is not an import path", 'write "package.module:ClassName"')
    check_import_allowed(path, allow_imports, field)


def check_names(spec: Mapping[str, Any], allow_imports: tuple[str, ...] = ()) -> None:
    """Check every component name of a resolved scenario table before anything is imported or built.

    Registered names must exist; import paths must be well formed and their modules allowed. Only
    recoursesim's own (lazily imported) built-in modules are imported here.

    Raises:
        ConfigError: the first bad name, naming its field.
    """
    for kind, field, table in component_tables(spec):
        name = table.get("name")
        if isinstance(name, str) and ":" in name:
            check_import_path(name, field, allow_imports)
        elif isinstance(name, str):
            lookup(kind, name, field=field)


def component_tables(spec: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """``(kind, field of its name, table)`` of every component table in a scenario table.

    Besides the top-level sections: a market's choice (``market.choice``) and each lender's own
    sections (``lenders[i].scorer`` ...).
    """
    found: list[tuple[str, str, Mapping[str, Any]]] = []
    lenders = spec.get("lenders")
    lender_tables = [t for t in lenders if isinstance(t, Mapping)] if isinstance(lenders, list) else []
    for kind, section in KINDS.items():
        head, _, rest = section.partition(".")
        tables = spec.get(head)
        if rest:
            tables = tables.get(rest) if isinstance(tables, Mapping) else None
        for index, table in enumerate(tables if isinstance(tables, list) else [tables]):
            if isinstance(table, Mapping):
                found.append(
                    (kind, f"{section}[{index}].name" if isinstance(tables, list) else f"{section}.name", table)
                )
        for index, lender in enumerate(lender_tables):
            if isinstance(lender.get(section), Mapping):
                found.append((kind, f"lenders[{index}].{section}.name", lender[section]))
    return found


def _import_class(kind: str, path: str, field: str) -> type:
    """Import a component class named ``"package.module:Class"`` (already checked and allowed).

    Only a class defined in that module (not one it imports) with the kind's protocol method is
    accepted, so a scenario cannot instantiate an arbitrary class such as ``subprocess.Popen``.
    """
    module_name, _, attribute = path.partition(":")
    try:
        target: Any = import_plugin(module_name, field)
    except ConfigError:
        raise
    except ModuleNotFoundError as error:
        raise ConfigError(
            field,
            f"cannot import {module_name!r} ({error})",
            "install the package that provides it (or the missing module it imports)",
        ) from None
    except Exception as error:  # the plug-in's own import failed
        raise ConfigError(
            field,
            f"importing {module_name!r} failed ({type(error).__name__}: {error})",
            f"correct the error in {module_name} (python -c 'import {module_name}' shows it with its traceback)",
        ) from None
    for part in attribute.split("."):
        target = getattr(target, part, None)
    if not isinstance(target, type):
        raise ConfigError(field, f"{module_name} has no class {attribute!r}", "check the class name after the colon")
    if target.__module__ != module_name:
        raise ConfigError(
            field, f"{path!r} is defined in {target.__module__}, not in {module_name}", "name the defining module"
        )
    method = PROTOCOL_METHODS[kind]
    if not callable(getattr(target, method, None)):
        raise ConfigError(field, f"{path!r} is not a {kind} (it has no {method} method)", f"name a {kind} class")
    adopt(kind, target)
    return target


def components_of(spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Return ``(kind, name)`` for every component a resolved scenario table names."""
    return [(kind, table["name"]) for kind, _, table in component_tables(spec) if isinstance(table.get("name"), str)]


def plugin_classes(spec: Mapping[str, Any]) -> dict[str, dict[str, type]]:
    """Return the registered non-built-in classes a scenario table names, as ``kind -> name -> class``.

    Built-in components and import paths (``"module:Class"``) resolve by themselves in any process
    and are left out; unknown names are left out too (building the scenario reports them).
    """
    _load_builtins()
    found: dict[str, dict[str, type]] = {}
    for kind, name in components_of(spec):
        cls = _REGISTRY[kind].get(name)
        if cls is not None and ":" not in name and not cls.__module__.startswith("recoursesim."):
            found.setdefault(kind, {})[name] = cls
    return found


def install(classes: Mapping[str, Mapping[str, type]]) -> None:
    """Register classes listed by :func:`plugin_classes` (in a worker process); the given classes win."""
    _load_builtins()
    for kind, table in classes.items():
        for name, cls in table.items():
            adopt(kind, cls)  # a class unpickled here was not given its defaults in this process
            _REGISTRY[kind][name] = cls


def build(
    kind: str,
    spec: Mapping[str, Any],
    *,
    section: str | None = None,
    allow_imports: tuple[str, ...] = (),
    context: RunContext | None = None,
    keep: bool = False,
    **extra: Any,
) -> Any:
    """Instantiate a component from a scenario table ``{"name": ..., **params}`` and bind it.

    Args:
        kind: One of :data:`KINDS`.
        spec: The table; ``name`` picks the class, the other keys are its parameters.
        section: Dotted scenario path used in error messages (defaults to the kind's section).
        allow_imports: Modules an import-path ``name`` may import (:mod:`recoursesim.trust`).
        context: The run's context: the component is bound to it (``None``: left unbound).
        keep: List the bound component in ``context.bound_parts``, for the model it is handed to
            (a scenario's builder; :func:`recoursesim.lifecycle.bind`).
        **extra: Objects the builder supplies that are not scenario keys.

    Returns:
        The constructed (and bound) component.

    Raises:
        ConfigError: unknown name, unknown or missing parameter, or a value the class rejects.
    """
    section = section or KINDS[kind]
    if "name" not in spec:
        raise ConfigError(f"{section}.name", "is missing", f"name the {kind}: one of {', '.join(names(kind))}")
    cls = lookup(kind, spec["name"], field=f"{section}.name", allow_imports=allow_imports)
    params = {key: value for key, value in spec.items() if key != "name"}
    accepted = accepted_parameters(cls)
    for key in params:
        if key not in accepted:
            close = difflib.get_close_matches(key, accepted, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            listed = ", ".join(accepted) or "none"
            raise ConfigError(
                f"{section}.{key}",
                f"unknown parameter for {kind} {spec['name']!r}",
                f"{hint}accepted parameters: {listed}",
            )
    signature = constructor_signature(cls)
    legacy = [name for name in LEGACY_PARAMETERS_BY_KIND.get(kind, ()) if name in signature.parameters]
    supplied = {*extra, *legacy} if context is not None else set(extra)
    missing = [
        p.name
        for p in signature.parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in params
        and p.name not in supplied
    ]
    if missing:
        raise ConfigError(f"{section}.{missing[0]}", "is required", f"add {missing[0]} = ... to [{section}]")
    # The values are checked by the constructor, the one place each parameter's rules are written.
    kwargs = {**params, **{k: v for k, v in extra.items() if k in signature.parameters}}
    if legacy and context is not None:
        deprecated(cls, f"takes {', '.join(legacy)} in its constructor", "read them in bind(context) instead")
        kwargs.update((name, getattr(context, name)) for name in legacy)
    try:
        component = cls(**kwargs)
    except ConfigError as error:
        raise error.under(section) from None
    except (TypeError, ValueError, KeyError) as error:  # a value of the wrong shape the class did not check
        detail = first_line(error)
        raise ConfigError(
            section,
            f"{kind} {spec['name']!r} cannot use these parameters ({type(error).__name__}: {detail})",
            f"give {section} parameters of the types {spec['name']!r} documents (see its docstring: "
            f"help(recoursesim.registry.lookup({kind!r}, {spec['name']!r})))",
        ) from None
    # An error of bind's own is the component's, not the scenario's parameters'.
    return component if context is None else bind(kind, component, context, section, keep=keep)


def accepted_parameters(cls: type) -> list[str]:
    """Return the keyword parameters of ``cls.__init__`` a scenario may set."""
    return [
        p.name
        for p in constructor_signature(cls).parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in SUPPLIED_PARAMETERS
    ]


@cache
def constructor_signature(cls: type) -> inspect.Signature:
    """``inspect.signature(cls)``, read once per class.

    A scenario built thousands of times (a calibration's particles) would read it again for every
    component of every run; a class's constructor does not change while it is registered.
    """
    return inspect.signature(cls)


#: Constructor arguments the builder supplies, never a scenario (a model given from Python, the
#: legacy context arguments).
SUPPLIED_PARAMETERS = frozenset({"fitted_estimator", "data", "trusted", "schema", "action_defaults", "population"})


def lazy_builtins() -> dict[str, dict[str, str]]:
    """Built-in components imported only when named, as ``kind -> name -> "module:Class"``.

    Read from the ``@register`` decorators in the source of :data:`LAZY_PACKAGES` (nothing is imported).
    """
    return {kind: dict(table) for kind, table in _lazy_table().items()}


@cache
def _lazy_table() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for package in LAZY_PACKAGES:
        for module, node, kind, name, aliases in source_registrations(package):
            for key in (name, *aliases):
                found.setdefault(kind, {})[key] = f"{module}:{node.name}"
    return found


@cache
def parsed_source(path: Path) -> ast.Module:
    """The syntax tree of a source file, parsed once per process (the catalogue reads each module's twice)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def source_registrations(package: str) -> Iterator[tuple[str, ast.ClassDef, str, str, tuple[str, ...]]]:
    """``(module, class, kind, name, aliases)`` of every ``@register`` in a package's source, sub-packages too.

    Nothing is imported.
    """
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return
    folder = Path(spec.origin).parent
    for path in sorted(folder.rglob("*.py")):
        if "@register(" not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(folder).with_suffix("").parts
        module = ".".join((package, *(parts[:-1] if parts[-1] == "__init__" else parts)))
        for node in parsed_source(path).body:
            if isinstance(node, ast.ClassDef):
                for registration in decorator_registrations(node):
                    yield (module, node, *registration)


def decorator_registrations(node: ast.ClassDef) -> list[tuple[str, str, tuple[str, ...]]]:
    """The ``@register("kind", "name", *aliases)`` decorators of a class, read from its source."""
    found = []
    for decorator in node.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Name)
            and decorator.func.id == "register"
            and all(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in decorator.args)
            and len(decorator.args) >= 2
        ):
            kind, name, *aliases = (arg.value for arg in decorator.args)  # type: ignore[attr-defined]
            found.append((kind, name, tuple(aliases)))
    return found


def registered() -> dict[str, dict[str, type]]:
    """The classes registered so far in this process (built-ins are imported by :func:`names` and :func:`lookup`)."""
    return {kind: dict(table) for kind, table in _REGISTRY.items()}


_loaded = False


def _load_builtins() -> None:
    """Import the built-in component modules so their decorators run."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package in BUILTIN_PACKAGES:
        importlib.import_module(package)
    from recoursesim.plugins import load_plugins

    load_plugins(strict=False)
