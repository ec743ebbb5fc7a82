"""Third-party plug-ins: installed packages that register components through an entry point.

A package makes its components available to every recoursesim process (the command line, sweep
workers, Dask workers) by declaring an entry point in the ``recoursesim.plugins`` group whose
value is a module (importing it runs its ``@register`` decorators) or a function of no arguments
(called once)::

    [project.entry-points."recoursesim.plugins"]
    lottery = "lottery_plugin.selectors"

:func:`load_plugins` loads every such entry point once per process; the registry calls it before
its first look-up, so worker processes load the plug-ins as soon as they build a component.
"""

from __future__ import annotations

import warnings
from importlib.metadata import entry_points
from types import ModuleType

from recoursesim.errors import ConfigError

#: The entry-point group plug-in packages declare.
GROUP = "recoursesim.plugins"

_loaded: set[str] = set()


def load_plugins(*, strict: bool = True) -> None:
    """Load every not-yet-loaded entry point of the :data:`GROUP` group.

    Args:
        strict: Raise on a plug-in that fails to load (the command line); otherwise warn and go on.

    Raises:
        ConfigError: a plug-in failed to load and ``strict`` is set.
    """
    for point in entry_points(group=GROUP):
        key = f"{point.name}={point.value}"
        if key in _loaded:
            continue
        try:
            target = point.load()
            if callable(target) and not isinstance(target, type | ModuleType):
                target()
        except Exception as error:  # a broken third-party package must not look like a recoursesim bug
            problem = f"failed to load ({type(error).__name__}: {error})"
            fix = "fix or uninstall the package that provides it"
            if strict:
                raise ConfigError(f"plug-in {point.name!r} ({point.value})", problem, fix) from None
            warnings.warn(f"plug-in {point.name!r} ({point.value}) {problem}; {fix}", RuntimeWarning, stacklevel=2)
            continue
        _loaded.add(key)
