"""Plug-in modules kept as files beside a scenario: found without ``PYTHONPATH``, only when allowed.

A scenario that names ``"my_selectors:NewcomersFirst"`` run with ``--allow-import my_selectors``
imports ``my_selectors``. An installed module of that name (anything Python's own import system
finds) is used as it is; otherwise recoursesim looks for ``my_selectors.py`` (or the package
folder ``my_selectors/``) in the scenario's folder, then in the working directory, and loads it
from that file. Only the modules the person running allowed are looked up there, and nothing is
added to ``sys.path``: another file in those folders never shadows an installed package, in this
process or in a worker.

A name that is both installed and a file in one of those folders is refused (the installed module
is never shadowed, and the file was plainly meant): rename the file. The folders are taken when
the scenario is loaded and travel with it to worker processes and Dask workers, which look in
the same (absolute) folders; workers on another machine need the same paths, or the module
installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from types import ModuleType

from recoursesim.errors import ConfigError

_FOLDERS: ContextVar[tuple[str, ...]] = ContextVar("recoursesim_plugin_folders", default=())


def search_folders(origin: str | Path | None) -> tuple[str, ...]:
    """Where an allowed module that is not installed is looked up: ``origin`` (a scenario's folder), then the cwd."""
    folders = [Path(origin).resolve()] if origin is not None else []
    folders.append(Path.cwd().resolve())
    return tuple(dict.fromkeys(str(folder) for folder in folders))


@contextmanager
def searching(folders: Iterable[str]) -> Iterator[None]:
    """Look allowed plug-in modules up in ``folders`` while building a scenario's components."""
    token = _FOLDERS.set(tuple(folders))
    try:
        yield
    finally:
        _FOLDERS.reset(token)


def import_plugin(module_name: str, field: str) -> ModuleType:
    """Import an allowed module: installed, else from a file in the folders being searched.

    Call only for a module the person running allowed (:func:`recoursesim.trust.check_import_allowed`).

    Raises:
        ConfigError: the module is neither installed nor a file in those folders, or it is both.
        ModuleNotFoundError, Exception: raised by the module's own import (the caller reports them).
    """
    top = module_name.partition(".")[0]
    folders = _FOLDERS.get()
    local = _local_file(top, folders)
    installed = _installed_origin(top)
    if installed is None and local is None:
        where = " or ".join(folders) if folders else "no folder (the scenario is not a file)"
        raise ConfigError(
            field,
            f"cannot import {top!r} (allowed by --allow-import): it is not installed, and there is no "
            f"{top}.py or {top}/__init__.py in {where}",
            f"put {top}.py beside the scenario file or in the working directory, or install the package",
        )
    if installed is not None and local is not None and not _same_file(installed, local):
        raise ConfigError(
            field,
            f"{top!r} is both an installed module ({installed}) and the file {local}; "
            "an installed module is never shadowed",
            f"rename {local.name} (and the module in the scenario and in --allow-import)",
        )
    if installed is None and local is not None:
        _load(top, local)
    return importlib.import_module(module_name)


def _local_file(top: str, folders: Iterable[str]) -> Path | None:
    """The first ``top/__init__.py`` or ``top.py`` in ``folders`` (a package first, as Python does)."""
    for folder in folders:
        for candidate in (Path(folder) / top / "__init__.py", Path(folder) / f"{top}.py"):
            if candidate.is_file():
                return candidate
    return None


def _installed_origin(top: str) -> str | None:
    """Where the module ``top`` that Python's import system finds (or has imported) comes from; ``None``: nowhere."""
    module = sys.modules.get(top)
    if module is not None:
        return str(getattr(module, "__file__", None) or "built-in")
    spec = importlib.util.find_spec(top)
    return None if spec is None else str(spec.origin or "a namespace package")


def _same_file(origin: str, local: Path) -> bool:
    try:
        return Path(origin).resolve() == local.resolve()
    except OSError:
        return False


def _load(top: str, path: Path) -> None:
    """Import ``top`` from ``path`` (a module file, or a package's ``__init__.py``) under its own name."""
    package = path.name == "__init__.py"
    locations = [str(path.parent)] if package else None
    spec = importlib.util.spec_from_file_location(top, path, submodule_search_locations=locations)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[top] = module  # before running it, as import does (its classes then pickle by name)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(top, None)
        raise
