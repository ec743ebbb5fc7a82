"""The base class of every component a scenario can name: scikit-learn's parameter conventions.

A component's hyper-parameters are its ``__init__`` arguments, stored unchanged under the same
names; whatever is computed from them lives in private attributes (``_name``) and what is learned
during a run in attributes ending with ``_``. :class:`Component` then gives, like
:class:`sklearn.base.BaseEstimator`:

* ``get_params(deep=True)``: the hyper-parameters (with ``estimator__C``-style entries for nested
  objects that have parameters themselves);
* ``set_params(**params)``: new values, nested ones included, checked as the constructor checks
  them;
* :func:`sklearn.base.clone` support: a clone is a new, unfitted component with equal parameters;
* a readable ``repr`` listing the parameters that differ from their defaults;
* one lifecycle step, :meth:`Component.bind`: the model hands every component the run's
  :class:`RunContext` (the population, its feature schema and default action set) when it is
  built. Constructors take hyper-parameters only; what a component learns from the context is
  kept in attributes ending with ``_`` (like scikit-learn's ``fit``), so ``bind`` may be called
  again with another context and :func:`sklearn.base.clone` gives an unbound component.

It mirrors ``BaseEstimator`` rather than deriving from it so that importing a component (and
``recoursesim list``) does not import scikit-learn. One difference: a component checks its values
when constructed, so a bad scenario fails before the run starts; ``set_params`` therefore builds
the component anew from the merged parameters (leaving it unchanged if they are refused), which
also drops anything learned.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Self

from recoursesim.errors import ConfigError

if TYPE_CHECKING:
    from recoursesim.features.schema import FeatureSchema

#: The longest parameter value written in full by ``repr``.
_REPR_WIDTH = 80

#: The population the conformance checks fit a component with ``prepare(population, rng)`` on.
CHECK_POPULATION: dict[str, Any] = {"name": "dataset", "dataset": "german", "group": "sex"}


@dataclass(frozen=True, eq=False)
class RunContext:
    """What a run tells its components when the model is built (see :meth:`Component.bind`).

    A model makes it with :meth:`of`; to use a component outside a model, bind it to a context
    made by hand, ``SearchRecourse().bind(RunContext(schema=population.schema))``.

    Attributes:
        population: The run's population generator (``None``: none, e.g. a component used alone).
        schema: Its :class:`~recoursesim.features.FeatureSchema` (mixed-type populations), else ``None``.
        action_defaults: Its data set's default action set (an ``action_set`` table), else ``None``.
        feature_names: The feature names, in column order (default: the schema's, else the paper's
            two features ``x0, x1``).
        group_names: The group names, in code order.
        bound_parts: The parts a scenario's builder bound to this context and has not yet handed
            to a model, by ``id`` (the model does not bind them again; :func:`recoursesim.lifecycle.bind`).
    """

    population: Any = None
    schema: FeatureSchema | None = None
    action_defaults: Mapping[str, Any] | None = None
    feature_names: tuple[str, ...] = ()
    group_names: tuple[str, ...] = ()
    bound_parts: dict[int, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.feature_names:
            names = tuple(self.schema.names) if self.schema is not None else ("x0", "x1")
            object.__setattr__(self, "feature_names", names)

    @classmethod
    def of(cls, population: Any) -> RunContext:
        """The context of a run over ``population``."""
        from recoursesim.features.capabilities import action_defaults_of, schema_of

        return cls(
            population,
            schema_of(population),
            action_defaults_of(population),
            tuple(str(name) for name in population.feature_names),
            tuple(population.group_names),
        )

    @property
    def feature_schema(self) -> FeatureSchema:
        """The schema, or every feature numeric on ``[0, 1]`` when the population states none."""
        from recoursesim.features.schema import FeatureSchema

        return self.schema if self.schema is not None else FeatureSchema.numeric(list(self.feature_names))


class Component:
    """scikit-learn style hyper-parameters (``get_params``, ``set_params``, ``clone``, ``repr``) and ``bind``."""

    #: The constructor arguments the conformance checks build the class with (``None``: its defaults);
    #: a class whose constructor has required arguments declares them.
    check_params: ClassVar[Mapping[str, Any] | None] = None

    if not TYPE_CHECKING:  # hidden from type checkers, which would otherwise accept any attribute

        def __getattr__(self, name: str) -> Any:
            """Called only for a missing attribute: say where a learned one (``name_``) comes from."""
            if name.endswith("_") and not name.startswith("_"):
                raise AttributeError(
                    f"{type(self).__name__} has no {name!r} yet: it is learned when the component is bound to "
                    "a run or fitted; bind it first (component.bind(RunContext.of(population)); a model binds "
                    "its parts when it is built)",
                    name=name,
                    obj=self,
                )
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self)

    def bind(self, context: RunContext) -> Self:
        """Learn what the component needs from the run's context (default: nothing).

        The model calls it once when it is built, before the first step. A component that needs
        the population's schema, default action set or rows overrides it, stores what it learns in
        attributes ending with ``_`` and returns itself; it may be bound again to another context.

        Args:
            context: The run's context.

        Returns:
            The component itself.
        """
        return self

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The names of the constructor's parameters, in signature order."""
        init = cls.__init__
        if init is object.__init__:
            return []
        names = []
        for parameter in inspect.signature(init).parameters.values():
            if parameter.name == "self" or parameter.kind is parameter.VAR_KEYWORD:
                continue
            if parameter.kind is parameter.VAR_POSITIONAL:
                raise TypeError(f"{cls.__name__}.__init__ takes *args; components name every parameter")
            names.append(parameter.name)
        return names

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the hyper-parameters.

        Args:
            deep: Also return the parameters of nested objects that have ``get_params`` (a
                trainer's scikit-learn estimator), as ``"estimator__C"``.

        Returns:
            Parameter name -> value, as given to the constructor.
        """
        params: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", item) for key, item in value.get_params().items())
            params[name] = value
        return params

    def set_params(self, **params: Any) -> Self:
        """Set hyper-parameters (``name=value``, or ``estimator__C=value`` for a nested object).

        The component is built anew from its merged parameters, with the constructor's checks;
        if they refuse a value, a :class:`~recoursesim.errors.ConfigError` is raised and the
        component is left as it was.

        Returns:
            The component itself.
        """
        if not params:
            return self
        merged = self.get_params(deep=False)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, nested_key, rest = key.partition("__")
            if name not in merged:
                raise ConfigError(
                    name, f"is not a parameter of {type(self).__name__}", f"use one of {', '.join(merged) or 'none'}"
                )
            if nested_key:
                nested.setdefault(name, {})[rest] = value
            else:
                merged[name] = value
        for name, values in nested.items():
            if not hasattr(merged[name], "set_params"):
                raise ConfigError(name, f"{merged[name]!r} has no parameters to set", f"set {name} itself")
            merged[name].set_params(**values)
        fresh = type(self)(**merged)
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        return self

    def __repr__(self) -> str:
        signature = inspect.signature(type(self))
        shown = []
        for name, value in self.get_params(deep=False).items():
            parameter = signature.parameters.get(name)
            if parameter is not None and _is_default(value, parameter.default):
                continue
            shown.append(f"{name}={_short_repr(value)}")
        return f"{type(self).__name__}({', '.join(shown)})"


_PLAIN = (bool, int, float, str, bytes, type(None))


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    if default is inspect.Parameter.empty or not _is_plain(value) or not _is_plain(default):
        return False
    return type(value) is type(default) and value == default


def _is_plain(value: Any) -> bool:
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, list | tuple):
        return all(_is_plain(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _is_plain(item) for key, item in value.items())
    return False


def _short_repr(value: Any) -> str:
    if _is_plain(value) or hasattr(value, "get_params") or type(value).__module__ == "numpy":
        text = repr(value)
        return text if len(text) <= _REPR_WIDTH else f"{text[: _REPR_WIDTH - 3]}..."
    return f"<{type(value).__name__}>"
