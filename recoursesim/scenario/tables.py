"""Scenario tables as files: the bundled ones, inheritance (``base = ...``), and writing TOML back.

``base = "NAME or PATH"`` lays a scenario's own keys over another scenario.

A base is a preset (``bell2024`` ...), a bundled scenario (``german-credit-lending`` ...) or a TOML
file; a base may itself have a base. ``preset`` is another spelling of ``base``. Merging is deep:
tables merge key by key at every level, every other value (numbers, strings, lists, the
``[[observers]]`` list) replaces the base's; a component section (``[population]``, ``[scorer]``
...) whose ``name`` differs from the base's replaces the base's section whole, since its parameters
belong to another class. ``name`` and ``description`` are never inherited: they describe the file
that states them. Where the population's data come from is one choice: a ``dataset`` or ``path``
a scenario gives replaces whichever of the two its base gave. ``unset = ["population.features",
...]`` removes inherited keys (dotted, section then key) before the scenario's own are laid over.

This module reads and writes TOML only (no component is imported), so resolving is fast;
validating the result is :class:`~recoursesim.scenario.Scenario`'s job.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from recoursesim._files import check_input_file
from recoursesim.errors import ConfigError
from recoursesim.resources import MAX_BASE_CHAIN, MAX_SCENARIO_BYTES, format_bytes
from recoursesim.scenario.merge import merge_scenarios
from recoursesim.scenario.presets import PRESETS

#: The keys naming a scenario's base (``preset`` is the older spelling).
BASE_KEYS: tuple[str, ...] = ("base", "preset")

#: The key listing inherited keys to remove (``unset = ["population.features"]``).
UNSET_KEY = "unset"

#: Keys that describe one file and are not inherited from its base.
OWN_KEYS: tuple[str, ...] = ("name", "description")

#: ``(section, key)`` of the fields that name an input file: a user's data file, a fitted model.
FILE_FIELDS: tuple[tuple[str, str], ...] = (("population", "path"), ("scorer", "model_file"))


def scorer_shorthand(table: Mapping[str, Any]) -> dict[str, Any]:
    """``[scorer] model_file = "..."`` without a name means the ``fitted`` scorer (and replaces a base's scorer)."""
    resolved = dict(table)
    scorer = resolved.get("scorer")
    if isinstance(scorer, Mapping) and "model_file" in scorer and "name" not in scorer:
        resolved["scorer"] = {"name": "fitted", **scorer}
    return resolved


def absolute_paths(table: Mapping[str, Any], origin: Path | None) -> dict[str, Any]:
    """Return ``table`` with the relative paths of :data:`FILE_FIELDS` made absolute.

    A relative path starts at ``origin``, the folder of the file that states it (``None``, a
    table from Python or a bundled scenario: the working directory), as a relative ``base`` does.
    Done once, when the scenario is read, so that the worker processes of a sweep (which may run
    in another working directory, or be reused from an earlier sweep) find the same file.
    """
    resolved = dict(table)
    for section, key in FILE_FIELDS:
        part = resolved.get(section)
        if not isinstance(part, Mapping) or not isinstance(part.get(key), str) or not part[key]:
            continue
        path = Path(part[key]).expanduser()
        if not path.is_absolute():
            resolved[section] = {**part, key: str(((origin or Path.cwd()) / path).resolve())}
    return resolved


def bundled_names() -> list[str]:
    """Names of the scenarios shipped with the package."""
    folder = resources.files("recoursesim.scenarios")
    return sorted(item.name.removesuffix(".toml") for item in folder.iterdir() if item.name.endswith(".toml"))


def bundled_text(name: str) -> str:
    """The TOML text of the bundled scenario ``name``."""
    return resources.files("recoursesim.scenarios").joinpath(f"{name}.toml").read_text(encoding="utf-8")


def dump_toml(table: Mapping[str, Any], header: str = "") -> str:
    """Write a resolved scenario table as TOML that loads back to the same table.

    Args:
        table: The table (NumPy scalars are written as the numbers they hold).
        header: Comment lines put first (each prefixed with ``# ``).

    Raises:
        ConfigError: a value TOML cannot hold (``None``, an object), naming its key.
    """
    import tomli_w

    comment = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    return comment + tomli_w.dumps(_plain(table, ""))


def _plain(value: Any, where: str) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _plain(item, f"{where}.{key}" if where else str(key)) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if hasattr(value, "item") and callable(value.item) and type(value).__module__ == "numpy":
        return value.item()
    if isinstance(value, bool | int | float | str):
        return value
    raise ConfigError(where, f"cannot be written as TOML ({type(value).__name__} {value!r})", "give a TOML value")


def resolve_bases(
    data: Mapping[str, Any], *, origin: Path | None = None, label: str = "<dict>", identity: str | None = None
) -> dict[str, Any]:
    """Return ``data`` with its chain of bases merged in and the base keys removed.

    Args:
        data: A scenario table as parsed from TOML.
        origin: The folder a relative base path is read from (the declaring file's folder;
            ``None``: the working directory).
        label: How to call ``data`` in a cycle message (its file name).
        identity: What ``data`` is, to recognise a base pointing back at it: ``"file:<absolute
            path>"`` or ``"bundled:<name>"`` (``None``: a table from nowhere, which no base can name).

    Raises:
        ConfigError: an unknown base, an unreadable base file, ``base`` and ``preset`` both given,
            or a cycle (``a.toml -> b.toml -> a.toml``).
    """
    return _resolve(data, origin, [(identity or f"<{id(data)}>", label)])


def _resolve(data: Mapping[str, Any], origin: Path | None, chain: list[tuple[str, str]]) -> dict[str, Any]:
    given = [key for key in BASE_KEYS if key in data]
    ignored = (*BASE_KEYS, UNSET_KEY)
    own = absolute_paths(scorer_shorthand({key: value for key, value in data.items() if key not in ignored}), origin)
    unset = _unset_keys(data)
    if not given:
        if unset:
            raise ConfigError(UNSET_KEY, "removes keys inherited from a base, but there is no base", "remove unset")
        return copy.deepcopy(own)
    if len(given) > 1:
        raise ConfigError("preset", "is another spelling of base; both are given", "keep only base = ...")
    field = given[0]
    reference = data[field]
    if not isinstance(reference, str) or not reference.strip():
        raise ConfigError(field, f"must name a scenario, got {reference!r}", _names_fix())
    if len(chain) > MAX_BASE_CHAIN:
        raise ConfigError(
            field,
            f"the chain of bases from {chain[0][1]} is more than {MAX_BASE_CHAIN} files deep",
            "merge the scenario files into fewer (recoursesim show prints a scenario with its bases merged in)",
        )
    identity, label, parent, parent_origin = _load_base(field, reference, origin)
    if any(identity == seen for seen, _ in chain):
        cycle = " -> ".join([*(name for _, name in chain), label])
        raise ConfigError(field, f"inheritance cycle {cycle}", "remove the base that points back")
    resolved = _resolve(parent, parent_origin, [*chain, (identity, label)])
    for key in OWN_KEYS:
        resolved.pop(key, None)
    for dotted in unset:
        _remove(resolved, dotted, label)
    return merge_scenarios(resolved, own)


def _unset_keys(data: Mapping[str, Any]) -> list[str]:
    """The dotted keys of ``unset`` (checked: a list of ``"section.key"`` strings)."""
    keys = data.get(UNSET_KEY, [])
    fix = 'write unset = ["population.features"] (dotted: section, then key)'
    if not isinstance(keys, list) or not all(isinstance(k, str) and k.strip(".") and "." in k for k in keys):
        raise ConfigError(UNSET_KEY, f"must be a list of dotted keys, got {keys!r}", fix)
    return keys


def _remove(table: dict[str, Any], dotted: str, label: str) -> None:
    """Delete ``dotted`` (``"population.features"``) from the resolved base ``label``; it must be there."""
    *sections, key = dotted.split(".")
    part: Any = table
    for section in sections:
        part = part.get(section) if isinstance(part, dict) else None
    if not isinstance(part, dict) or key not in part:
        where = ".".join(sections)
        have = ", ".join(f"{where}.{k}" for k in part) if isinstance(part, dict) and part else "none"
        raise ConfigError(UNSET_KEY, f"{dotted!r} is not a key of the base {label}", f"unset one of its keys ({have})")
    if key == "name" and len(sections) == 1:
        raise ConfigError(UNSET_KEY, f"{dotted!r} is the component's name", f"give another name in [{sections[0]}]")
    del part[key]


def _load_base(field: str, reference: str, origin: Path | None) -> tuple[str, str, Mapping[str, Any], Path | None]:
    """Return ``(identity, label, table, origin of its own base)`` for one base reference."""
    is_path = reference.endswith(".toml") or "/" in reference or "\\" in reference
    if not is_path:
        if reference in PRESETS:
            return f"preset:{reference}", reference, PRESETS[reference], None
        if reference in bundled_names():
            return f"bundled:{reference}", reference, _parse(field, reference, bundled_text(reference)), None
        raise ConfigError(field, f"no preset or bundled scenario {reference!r}", _names_fix())
    path = Path(reference).expanduser()
    if not path.is_absolute():
        path = (origin or Path.cwd()) / path
    if not path.exists():
        raise ConfigError(field, f"base file {path} not found", "check the path (relative paths start at this file)")
    text = read_scenario_text(path, field)
    return f"file:{path.resolve()}", str(reference), _parse(field, str(path), text), path.resolve().parent


def read_scenario_text(path: Path, field: str) -> str:
    """The text of a scenario (or base) file, refused before reading if it is not a regular file or too large.

    Args:
        path: The file.
        field: What named it (``scenario``, ``base``), for the message.

    Raises:
        ConfigError: a missing or special file, one over :data:`~recoursesim.resources.MAX_SCENARIO_BYTES`
            (checked from its size on disk, so a 2 GB file costs nothing), or one that is not UTF-8.
    """
    size = check_input_file(path, field, "TOML scenario file").stat().st_size
    if size > MAX_SCENARIO_BYTES:
        raise ConfigError(
            field,
            f"{path} has {format_bytes(size)}; a scenario file has at most {format_bytes(MAX_SCENARIO_BYTES)}",
            "give a TOML scenario file (data goes in a CSV or Parquet file named by population.path)",
        )
    try:  # a byte-order mark some editors write is skipped
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(field, f"{path} is not a UTF-8 text file", "give a TOML scenario file") from None


def _parse(field: str, where: str, text: str) -> dict[str, Any]:
    try:
        return read_toml(text)
    except ConfigError as error:
        raise ConfigError(
            field, f"{where} is not valid TOML ({error.problem})", f"in the base file, {error.fix}"
        ) from None


#: Deepest nesting of arrays and inline tables a scenario may use (the bundled ones use at most 4).
MAX_NESTING = 32


def read_toml(text: str) -> dict[str, Any]:
    """Parse scenario TOML; a syntax error or absurd nesting raises :class:`ConfigError` (field ``toml``).

    Nesting deeper than :data:`MAX_NESTING` is refused before parsing: the standard parser
    recurses once per level and a few thousand brackets end in a ``RecursionError``.
    """
    depth = _nesting(text)
    if depth > MAX_NESTING:
        problem = f"nests arrays or inline tables {depth} levels deep (at most {MAX_NESTING} are allowed)"
        raise ConfigError("toml", problem, "write the scenario with flat tables and lists")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        repeated = _repeated_key(text) if str(error).startswith("Cannot overwrite a value") else None
        if repeated is not None:
            table, key, first, again = repeated
            where = f"in [{table}]" if table else "at the top of the file"
            raise ConfigError(
                ".".join(filter(None, (table, key))),
                f"is given twice (lines {first} and {again})",
                f"keep one {key} = ... {where}",
            ) from None
        fix = "correct the TOML at that line and column (strings in double quotes, one key = value per line)"
        raise ConfigError("toml", str(error), fix) from None


_TABLE_LINE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY_LINE = re.compile(
    r"^\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*="
)


def _repeated_key(text: str) -> tuple[str, str, int, int] | None:
    """The first ``key = value`` line that repeats a key of its table: ``(table, key, first line, line)``.

    The standard parser says only "Cannot overwrite a value"; this names the key for the message.
    Keys on their own lines are found (not keys inside inline tables); ``None`` if none repeats.
    """
    seen: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE_LINE.match(line)
        if header:
            table = _dotted(header.group(1))
            if line.lstrip().startswith("[["):  # each [[x]] is a new table: its keys start afresh
                seen = {k: v for k, v in seen.items() if not k.startswith(f"{table}.")}
            continue
        found = _KEY_LINE.match(line)
        if found:
            key = _dotted(found.group(1))
            full = f"{table}.{key}" if table else key
            if full in seen:
                return table, key, seen[full], number
            seen[full] = number
    return None


def _dotted(key: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in key.split("."))


def _nesting(text: str) -> int:
    """An upper bound on the nesting depth of brackets and braces outside strings and comments."""
    depth = deepest = 0
    quote = ""
    comment = escaped = False
    for char in text:
        if comment:
            comment = char != "\n"
        elif quote:
            quote, escaped = _inside_string(char, quote, escaped)
        elif char in "\"'":
            quote = char
        elif char == "#":
            comment = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(depth - 1, 0)
    return deepest


def _inside_string(char: str, quote: str, escaped: bool) -> tuple[str, bool]:
    """The string state after ``char`` inside a ``quote``-delimited string: ``(quote or "", escaped)``."""
    if escaped:
        return quote, False
    if char == "\\" and quote == '"':
        return quote, True
    return ("" if char == quote else quote), False


def _names_fix() -> str:
    return f"name a preset ({', '.join(PRESETS)}), a bundled scenario ({', '.join(bundled_names())}) or a .toml path"
