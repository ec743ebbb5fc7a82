"""Which modules a scenario may make recoursesim import: none, unless the person running allows them.

A scenario file is data. It names registered components (the built-ins, and plug-ins registered
through the ``recoursesim.plugins`` entry point or with :func:`~recoursesim.registry.register`)
and data files. A name of the form ``"package.module:Class"`` would import ``package.module``,
which runs that module's top-level code; recoursesim does so only when the module (or a package
holding it) is in the allowance the person running gave: ``--allow-import package`` on the
command line, ``allow_imports=["package"]`` in Python. recoursesim's own modules are always
allowed. The allowance travels with the :class:`~recoursesim.scenario.Scenario` to worker
processes and Dask workers, which check it again before importing anything.

The same person grants trust to the types a model file holds beyond the allow-list of
:mod:`recoursesim.scoring.model_trust` (``--trust TYPE``, ``trusted=[...]``); :func:`trust_list`
checks that list. A scenario table never grants either.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from recoursesim.errors import ConfigError

#: Packages whose modules a scenario may always name by import path.
ALWAYS_ALLOWED = ("recoursesim",)

#: recoursesim's modules that define no components and act when imported or run (the command line,
#: the dashboard, the reproduction scripts): a scenario never names them, whatever the allowance.
NEVER_IMPORTED = ("recoursesim.__main__", "recoursesim.cli", "recoursesim.dashboard", "recoursesim.reproductions")


def allowance(modules: Iterable[str] | str | None, *, field: str = "allow_imports") -> tuple[str, ...]:
    """Check and normalise an import allowance: module names such as ``"mypkg"`` or ``"mypkg.selectors"``.

    Args:
        modules: Module names (a single string is one name, not a sequence of letters).
        field: The option or parameter that gave them (for error messages).

    Returns:
        The names, deduplicated and sorted.

    Raises:
        ConfigError: a name that is not a dotted Python identifier.
    """
    if modules is None:
        return ()
    names = [modules] if isinstance(modules, str) else list(modules)
    for name in names:
        if not isinstance(name, str) or not name or not all(part.isidentifier() for part in name.split(".")):
            raise ConfigError(field, f"{name!r} is not a module name", "give a module name such as mypkg or mypkg.sub")
    return tuple(sorted(set(names)))


def is_allowed(module: str, allowed: Iterable[str]) -> bool:
    """Whether importing ``module`` is covered by ``allowed`` (a listed module or a package holding it)."""
    return any(module == name or module.startswith(f"{name}.") for name in (*ALWAYS_ALLOWED, *allowed))


def check_import_allowed(path: str, allowed: Iterable[str], field: str) -> None:
    """Refuse, importing nothing, an import path ``"module:Class"`` whose module is not allowed.

    Raises:
        ConfigError: naming ``field`` and saying how to allow the module.
    """
    module = path.partition(":")[0]
    if any(module == name or module.startswith(f"{name}.") for name in NEVER_IMPORTED):
        raise ConfigError(
            field,
            f"{path!r} names {module}, which defines no components (it runs recoursesim's own commands)",
            "use a registered name (recoursesim list), or a module of yours that defines the component",
        )
    if is_allowed(module, allowed):
        return
    raise ConfigError(
        field,
        f"{path!r} would import and run the module {module!r}, which you have not allowed",
        f'if you trust {module}, add --allow-import {module} (Python: allow_imports=["{module}"]), '
        "or use a registered name (see the security page of the documentation)",
    )


def trust_list(value: Any, field: str = "trusted") -> tuple[str, ...]:
    """Check and normalise the types the person running trusts beyond :func:`allowed_types`.

    Args:
        value: Dotted names (``"xgboost.sklearn.XGBClassifier"``), or ``None`` for none.
        field: The option or parameter that gave them (for error messages).

    Returns:
        The names, deduplicated and sorted.

    Raises:
        ConfigError: a single string (which would be read as a list of letters), or a name that
            is not a dotted Python name.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        raise ConfigError(
            field, f"is one string ({value!r}), not a list of type names", f'give a list: {field}=["{value}"]'
        )
    if not isinstance(value, Iterable):
        raise ConfigError(field, f"must be a list of type names, got {type(value).__name__}", f'{field}=["pkg.Class"]')
    names = list(value)
    for name in names:
        if not isinstance(name, str) or "." not in name or not all(p.isidentifier() for p in name.split(".")):
            raise ConfigError(
                field, f"{name!r} is not a type name", "give package.module.Class, as the refusal names it"
            )
    return tuple(sorted(set(names)))
