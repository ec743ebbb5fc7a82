"""Scenarios: validated, self-describing run configurations loaded from TOML."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from recoursesim.errors import ConfigError
from recoursesim.plugin_files import search_folders, searching
from recoursesim.registry import check_names, install, plugin_classes
from recoursesim.scenario.checks import check_table, key_fix
from recoursesim.scenario.config import RunConfig
from recoursesim.scenario.market import LENDER_SECTIONS, lender_table
from recoursesim.scenario.tables import (
    bundled_names,
    bundled_text,
    dump_toml,
    read_scenario_text,
    read_toml,
    resolve_bases,
    scorer_shorthand,
)

if TYPE_CHECKING:
    from recoursesim.metrics.outcomes import EffortMeasure
from recoursesim.trust import allowance, trust_list


class ScenarioError(ConfigError):
    """A problem in a scenario, reported with the file it came from."""

    def __init__(self, source: str, error: ConfigError) -> None:
        self.source = source
        super().__init__(error.field, error.problem, error.fix)
        self.args = (f"{source}: {error.field}: {error.problem}; fix: {error.fix}",)

    def __str__(self) -> str:
        return self.args[0]

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.source, ConfigError(self.field, self.problem, self.fix)))


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the resolved configuration of a run, minus the seed.

    Build with :meth:`from_file`, :meth:`from_dict` or :meth:`bundled`; every problem raises a
    :class:`ScenarioError` naming the field and the fix. ``spec`` is the full resolved table
    (preset applied), so a saved scenario reproduces the run without the preset.

    A component named by import path (``"package.module:Class"``) is imported only if its module
    is in ``allow_imports`` (see :mod:`recoursesim.trust`); the structure of the whole table and
    every component name are checked before any such import. The allowance is part of the
    scenario: it travels with it to worker processes and Dask workers.

    Likewise ``trusted``: the types beyond the allow-list that a model file the scenario names
    may hold (:mod:`recoursesim.scoring.model_trust`). Only the person running grants either;
    a scenario table never does.

    Attributes:
        spec: The resolved configuration.
        source: Where it came from (a path or ``"<dict>"``).
        inputs: Python objects the scenario runs with beside its table: ``model`` (a fitted
            classifier) and ``data`` (a DataFrame); see :meth:`with_inputs`.
        allow_imports: Modules an import-path component name may import.
        trusted: Types a model file may hold beyond the allow-list (``--trust TYPE``).
        import_folders: Where an allowed module that is not installed is looked up: the
            scenario file's folder, then the working directory it was loaded from
            (:mod:`recoursesim.plugin_files`).
    """

    spec: dict[str, Any]
    source: str = "<dict>"
    inputs: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    allow_imports: tuple[str, ...] = ()
    trusted: tuple[str, ...] = ()
    import_folders: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        source: str = "<dict>",
        inputs: Mapping[str, Any] | None = None,
        *,
        origin: str | Path | None = None,
        allow_imports: Sequence[str] | None = None,
        trusted: Sequence[str] | None = None,
    ) -> Scenario:
        """Validate a configuration table (as parsed from TOML).

        Args:
            data: The table; ``base`` (or ``preset``) names a scenario it overrides.
            source: Where it came from, for error messages.
            inputs: Your own ``model`` and/or ``data`` (see :meth:`with_inputs`).
            origin: The folder a relative ``base`` path is read from (default: the working directory).
            allow_imports: Modules an import-path component name may import (default: none).
            trusted: Types a model file the scenario names may hold beyond the allow-list
                (default: none; see :mod:`recoursesim.scoring.model_trust`).
        """
        from recoursesim.scenario.inputs import attach_inputs

        given = {key: value for key, value in dict(inputs or {}).items() if value is not None}
        table = scorer_shorthand(data)
        if given.get("model") is not None and "scorer" not in table:
            table["scorer"] = {"name": "fitted"}  # the model given is the scorer: the table needs none
        try:
            allowed = allowance(allow_imports)
            trusted_types = trust_list(trusted)
            spec = check_table(resolve_table(table, source, origin))
            check_names(spec, allowed)
            spec, attached = attach_inputs(spec, given.get("model"), given.get("data"))
            scenario = cls(spec, source, attached, allowed, trusted_types, search_folders(origin))
            scenario.build_model(seed=0, dry_run=True)
        except ScenarioError:
            raise
        except ConfigError as error:
            raise ScenarioError(source, error) from None
        return scenario

    @classmethod
    def from_file(
        cls,
        path: str | Path,
        inputs: Mapping[str, Any] | None = None,
        *,
        allow_imports: Sequence[str] | None = None,
        trusted: Sequence[str] | None = None,
    ) -> Scenario:
        """Load and validate a TOML scenario file (a relative ``base`` path starts at its folder).

        ``inputs``, ``allow_imports`` and ``trusted``: see :meth:`from_dict`.
        """
        path = Path(path)
        if not path.exists():
            bundled = ", ".join(bundled_names())
            raise ConfigError("scenario", f"file {path} not found", f"check the path (bundled scenarios: {bundled})")
        data, source, origin = load_table(path)
        return cls.from_dict(
            data, source=source, inputs=inputs, origin=origin, allow_imports=allow_imports, trusted=trusted
        )

    @classmethod
    def bundled(cls, name: str = "default", inputs: Mapping[str, Any] | None = None) -> Scenario:
        """Load a scenario shipped with the package (``default``, ``bell2024-baseline``, ...).

        ``inputs``: see :meth:`from_dict`.
        """
        if name not in bundled_names():
            raise ConfigError("scenario", f"no bundled scenario {name!r}", f"use one of {', '.join(bundled_names())}")
        return cls.from_dict(parse_toml(bundled_text(name), f"{name}.toml"), source=f"{name}.toml", inputs=inputs)

    @property
    def name(self) -> str:
        """The scenario's name (its ``name`` key, else the file stem)."""
        if "name" in self.spec:
            return str(self.spec["name"])
        return Path(self.source).stem if self.source != "<dict>" else "scenario"

    @property
    def config(self) -> RunConfig:
        """The run-wide values (sizes, seed, patience, metrics options), typed: see :class:`RunConfig`."""
        return RunConfig.of(self.spec)

    @property
    def steps(self) -> int:
        """``T``: the run covers steps ``0 … T``."""
        return self.config.steps

    @property
    def seed(self) -> int:
        """The scenario's default seed."""
        return self.config.seed

    @property
    def reapplies(self) -> bool:
        """Whether the selected agents stay and apply again (the scenario has an ``[outcome]``)."""
        return self.config.reapplies

    @property
    def reference_group(self) -> str | None:
        """Group the disparities compare against (``None``: the first group)."""
        return self.config.reference_group

    @property
    def effort_measure(self) -> EffortMeasure:
        """``"cost"`` or ``"score_gain"``."""
        return self.config.effort

    def with_inputs(self, model: Any = None, data: Any = None) -> Scenario:
        """Return this scenario run with your own fitted ``model`` and/or ``data``, validated.

        ``model`` is any fitted binary classifier with ``predict_proba`` or ``decision_function``
        (a ``Pipeline`` taking the data's DataFrame included); it becomes the decision model and is
        checked against the data (classes, feature columns, output). ``data`` is a DataFrame that
        replaces the rows of a dataset population. See :mod:`recoursesim.scenario.inputs`.

        Raises:
            ScenarioError: the model or the data does not fit the scenario (one line naming why).
        """
        inputs = {**self.inputs, **{k: v for k, v in (("model", model), ("data", data)) if v is not None}}
        scenario = Scenario.from_dict(
            self.spec, source=self.source, inputs=inputs, allow_imports=self.allow_imports, trusted=self.trusted
        )
        return replace(scenario, import_folders=self.import_folders)

    def with_overrides(self, overrides: Mapping[str, Any], *, validate: bool = True) -> Scenario:
        """Return a new validated scenario with dotted keys replaced (``{"selection.k": 50}``).

        A market's lender is named by position or name: ``lenders.0.selection.k`` or
        ``lenders.bank-a.selection.k``; a section the lender inherits from the top level is copied
        into the lender first, so only that lender changes.

        Args:
            overrides: Dotted key -> value.
            validate: Validate the new table, building every component once (a dry run). A caller
                that sets the same keys many times to values it has validated at their bounds (a
                calibration's particles) may skip it: the scenario is then the same one, only not
                checked again.
        """
        spec = copy.deepcopy(self.spec)
        for dotted, value in overrides.items():
            parts = dotted.split(".")
            table = spec
            for i, part in enumerate(parts[:-1]):
                if i == 0 and part == "lenders" and len(parts) > 2:
                    continue
                if i == 1 and parts[0] == "lenders":
                    try:
                        table = lender_table(spec, part)
                    except ConfigError as error:
                        raise ScenarioError(self.source, error) from None
                    continue
                if i == 2 and parts[0] == "lenders" and part in LENDER_SECTIONS and part not in table and part in spec:
                    table[part] = copy.deepcopy(spec[part])
                if part not in table or not isinstance(table[part], dict):
                    raise ScenarioError(self.source, ConfigError(dotted, "is not a scenario key", key_fix(part, table)))
                table = table[part]
            table[parts[-1]] = value
        if not validate:
            return replace(self, spec=spec)
        scenario = Scenario.from_dict(
            spec, source=self.source, inputs=self.inputs, allow_imports=self.allow_imports, trusted=self.trusted
        )
        return replace(scenario, import_folders=self.import_folders)

    def to_toml(self) -> str:
        """The resolved configuration as TOML: a scenario file that runs as this scenario does."""
        try:
            return dump_toml(self.spec)
        except ConfigError as error:
            raise ScenarioError(self.source, error) from None

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the plug-in classes the scenario names, registered again where it is unpickled.

        The import allowance, the trusted types and the folders an allowed plug-in module is
        looked up in travel with it: a worker process or a Dask worker builds the scenario with
        exactly the trust the person running gave.
        """
        plugins = plugin_classes(self.spec)
        state = (
            self.spec, self.source, plugins, dict(self.inputs), self.allow_imports, self.trusted, self.import_folders
        )  # fmt: skip
        return (_unpickle_scenario, state)

    def build_model(self, seed: int | np.random.SeedSequence | None = None, *, dry_run: bool = False) -> Any:
        """Construct a fresh :class:`~recoursesim.engine.model.RecourseModel` for ``seed``.

        Args:
            seed: The run seed (default: the scenario's ``run.seed``).
            dry_run: Only build and check the components (no population is drawn).

        Returns:
            The model, or ``None`` with ``dry_run``.
        """
        arguments = self.model_arguments(dry_run=dry_run)
        if dry_run:
            return None
        from recoursesim.engine.model import RecourseModel

        return RecourseModel(**arguments, seed=self.seed if seed is None else seed)

    def model_arguments(self, *, dry_run: bool = False) -> dict[str, Any]:
        """Fresh components and sizes of a run: the keyword arguments of the engine's ``RecourseModel``.

        Every call builds new components, so two models never share state. Subclasses of the
        model (:class:`~recoursesim.mesa_native.ScenarioModel`) are built from these too.

        Args:
            dry_run: Only build and check the components; return ``{}`` (no population is drawn).
        """
        from recoursesim.scenario.assemble import BuildInputs, model_arguments

        inputs = BuildInputs(
            spec=self.spec,
            config=self.config,
            inputs=self.inputs,
            allow_imports=self.allow_imports,
            trusted=self.trusted,
        )
        with searching(self.import_folders):
            return model_arguments(inputs, dry_run=dry_run)


def _unpickle_scenario(
    spec: dict[str, Any],
    source: str,
    plugins: dict[str, dict[str, type]],
    inputs: dict[str, Any] | None = None,
    allow_imports: tuple[str, ...] = (),
    trusted: tuple[str, ...] = (),
    import_folders: tuple[str, ...] = (),
) -> Scenario:
    install(plugins)
    return Scenario(spec, source, inputs or {}, tuple(allow_imports), tuple(trusted), tuple(import_folders))


def resolve_table(data: Mapping[str, Any], source: str = "<dict>", origin: str | Path | None = None) -> dict[str, Any]:
    """Return a scenario table with its ``base`` chain merged in (no component is built or checked).

    Args:
        data: The table as parsed from TOML.
        source: Where it came from: a file path, ``"NAME.toml"`` for a bundled scenario, or ``"<dict>"``.
        origin: The folder a relative ``base`` path is read from (default: the working directory).

    Raises:
        ScenarioError: an unknown or unreadable base, or an inheritance cycle.
    """
    if source.endswith(".toml") and source.removesuffix(".toml") in bundled_names() and not Path(source).exists():
        identity = f"bundled:{source.removesuffix('.toml')}"
    elif source.startswith("<"):
        identity = None
    else:
        identity = f"file:{Path(source).resolve()}"
    try:
        return resolve_bases(data, origin=Path(origin) if origin is not None else None, label=source, identity=identity)
    except ConfigError as error:
        raise ScenarioError(source, error) from None


def load_table(path_or_name: str | Path) -> tuple[dict[str, Any], str, Path | None]:
    """Read a scenario file or bundled name without validating it: ``(table, source, origin)``."""
    text = str(path_or_name)
    if not text.endswith(".toml") and text in bundled_names() and not Path(text).exists():
        return parse_toml(bundled_text(text), f"{text}.toml"), f"{text}.toml", None
    path = Path(path_or_name)
    if not path.exists():
        bundled = ", ".join(bundled_names())
        raise ConfigError("scenario", f"file {path} not found", f"check the path (bundled scenarios: {bundled})")
    return parse_toml(read_scenario_text(path, "scenario"), str(path)), str(path), path.parent


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse a scenario's TOML text (see :func:`~recoursesim.scenario.tables.read_toml`), naming ``source``."""
    try:
        return read_toml(text)
    except ConfigError as error:
        raise ScenarioError(source, error) from None


def load_scenario(
    path_or_name: str | Path | Mapping[str, Any] | None = None,
    *,
    model: Any = None,
    data: Any = None,
    allow_imports: Sequence[str] | None = None,
    trusted: Sequence[str] | None = None,
) -> Scenario:
    """Load a scenario file, a bundled scenario by name (default: ``default``) or a table.

    Args:
        path_or_name: A TOML file, a bundled name, a scenario table (a dict as parsed from TOML),
            or ``None`` for ``default``.
        model: Your own fitted classifier as the decision model (:meth:`Scenario.with_inputs`).
        data: Your own DataFrame of applicants (:meth:`Scenario.with_inputs`).
        allow_imports: Modules an import-path component name may import (default: none; see
            :mod:`recoursesim.trust`).
        trusted: Types a model file the scenario names may hold beyond the allow-list (default:
            none; see :mod:`recoursesim.scoring.model_trust`).
    """
    inputs = {"model": model, "data": data}
    if isinstance(path_or_name, Mapping):
        return Scenario.from_dict(path_or_name, inputs=inputs, allow_imports=allow_imports, trusted=trusted)
    if path_or_name is None:
        return Scenario.bundled("default", inputs=inputs)
    text = str(path_or_name)
    if not text.endswith(".toml") and text in bundled_names() and not Path(text).exists():
        return Scenario.bundled(text, inputs=inputs)
    return Scenario.from_file(path_or_name, inputs=inputs, allow_imports=allow_imports, trusted=trusted)
