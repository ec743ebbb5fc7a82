"""The component lifecycle as data: what each kind is given, how a part is bound once, the deprecation path.

Every component kind has one lifecycle step, ``bind(context)`` (see
:class:`~recoursesim.component.RunContext`). A plug-in class without the members of its kind is
given the base classes' defaults (:func:`adopt`); a constructor that still declares a context
argument (:data:`LEGACY_PARAMETERS_BY_KIND`) is passed it by the registry, with a
:class:`FutureWarning` naming the class (:func:`deprecated`); and :func:`bind` binds a part to a
run once: a part a scenario's builder bound is not bound again by the model it is handed to.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, cast

from recoursesim.errors import ConfigError

if TYPE_CHECKING:
    from recoursesim.component import RunContext

#: Constructor arguments each kind of component once took from the builder; now it reads them in
#: ``bind``. A plug-in whose constructor still declares them is passed them, with a warning.
LEGACY_PARAMETERS_BY_KIND: dict[str, tuple[str, ...]] = {
    "scorer": ("schema", "action_defaults", "population"),
    "recourse": ("schema", "action_defaults", "feature_names", "population"),
    "behaviour": ("schema", "action_defaults"),
    "trainer": ("schema", "action_defaults"),
    "observer": ("schema", "action_defaults", "population"),
}
#: Every name of :data:`LEGACY_PARAMETERS_BY_KIND`.
LEGACY_PARAMETERS: tuple[str, ...] = tuple(
    dict.fromkeys(name for names in LEGACY_PARAMETERS_BY_KIND.values() for name in names)
)

_warned: set[tuple[type, str]] = set()


def deprecated(cls: type, what: str, fix: str) -> None:
    """Warn once per class and kind of deprecation.

    A ``FutureWarning``, which Python shows by default: a ``DeprecationWarning`` raised here would be
    attributed to recoursesim's own module and hidden from the plug-in's author.
    """
    if (cls, what) in _warned:
        return
    _warned.add((cls, what))
    warnings.warn(
        f"{cls.__module__}.{cls.__qualname__} {what}; this keeps working for one release: {fix}",
        FutureWarning,
        stacklevel=3,
    )


def _as_is(self: Any, *args: Any) -> Any:
    """A lifecycle step a plug-in class without it is given: the component as it is."""
    return self


def _scorer_as_is(self: Any, features: Any, group: Any, scorer: Any, rng: Any) -> Any:
    """The ``start`` a plug-in trainer without one is given: the run starts with the scenario's scorer."""
    return scorer


#: The lifecycle members :func:`adopt` gave each plug-in class.
_GIVEN: dict[type, set[str]] = {}


def adopt(kind: str, cls: type) -> None:
    """Give a plug-in class the lifecycle members of its kind it lacks (the base classes' defaults).

    Every class gets ``bind`` (learns nothing) and ``check_params`` (``None``: the conformance checks
    build it with its defaults); a scorer ``prepare`` (itself) and
    ``fits_on_population`` (whether it has a ``prepare`` of its own); a trainer ``start`` (the
    scorer as it is). So the model calls them on every component without asking whether they exist.
    A member a parent class was given is given again, so a subclass with its own ``prepare`` fits.
    """
    members: dict[str, Any] = {"bind": _as_is, "check_params": None}
    if kind == "scorer":
        own = next((vars(c)["prepare"] for c in cls.__mro__ if "prepare" in vars(c)), None)
        method = callable(own) or isinstance(own, classmethod | staticmethod)
        members["fits_on_population"] = method and own is not _as_is
        members["prepare"] = _as_is
    elif kind == "trainer":
        members["start"] = _scorer_as_is
    for name, default in members.items():
        owner = next((c for c in cls.__mro__ if name in vars(c)), None)
        if owner is None or name in _GIVEN.get(owner, ()):
            setattr(cls, name, default)
            _GIVEN.setdefault(cls, set()).add(name)


def bind[P](kind: str, part: P, context: RunContext, field: str | None = None, *, keep: bool = False) -> P:
    """``part.bind(context)``, once per run, a refusal named under the scenario section the part stands for.

    A part whose class was never registered (built by hand in Python) is first given its kind's
    default lifecycle members (:func:`adopt`). A part the scenario's builder bound to ``context``
    (``keep=True``, listed in ``context.bound_parts``) is taken as it is by the model it is handed to.

    Args:
        kind: The part's kind (a key of :data:`recoursesim.registry.KINDS`).
        part: The component.
        context: The run's context.
        field: The scenario section an error of ``bind`` is named under (``None``: as raised).
        keep: List the bound part in ``context.bound_parts`` (the builder; the model takes it from there).

    Returns:
        The bound part (what its ``bind`` returned).
    """
    adopt(kind, type(part))
    if context.bound_parts.pop(id(part), None) is part:
        return part
    try:
        bound: P = cast(Any, part).bind(context)
    except ConfigError as error:
        raise (error if field is None else error.under(field)) from None
    if keep:
        context.bound_parts[id(bound)] = bound
    return bound
