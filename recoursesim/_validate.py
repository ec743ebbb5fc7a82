"""Small parameter checks shared by the pluggable components (raise :class:`ConfigError`)."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from recoursesim.errors import ConfigError


def check_int(name: str, value: object, *, minimum: int | None = None) -> int:
    """Return ``value`` as an int, or raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ConfigError(name, f"must be an integer, got {value!r}", f"set {name} to a whole number")
    if minimum is not None and value < minimum:
        raise ConfigError(name, f"must be >= {minimum}, got {value}", f"set {name} to {minimum} or more")
    return int(value)


def check_entrants(entrants: Any, n_steps: int, name: str = "entrants") -> int | tuple[int, ...]:
    """Entrants after each step: one whole number, or a list of ``T`` (steps ``0 … T-1``); no array is made.

    Raises:
        ConfigError: naming ``name``: a negative count, a list of another length, anything else.
    """
    if isinstance(entrants, int | np.integer) and not isinstance(entrants, bool):
        return check_int(name, entrants, minimum=0)
    if isinstance(entrants, Sequence) and not isinstance(entrants, str):
        values = tuple(check_int(f"{name}[{i}]", v, minimum=0) for i, v in enumerate(entrants))
        if len(values) != n_steps:
            raise ConfigError(
                name,
                f"lists {len(values)} steps but the run has T={n_steps} (entrants join after steps 0..T-1)",
                f"give exactly {n_steps} numbers, or one number for every step",
            )
        return values
    raise ConfigError(name, f"must be a whole number or a list, got {entrants!r}", "write entrants = 100")


def check_float(
    name: str,
    value: object,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    strict_minimum: bool = False,
) -> float:
    """Return ``value`` as a finite float within bounds, or raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ConfigError(name, f"must be a number, got {value!r}", f"set {name} to a number")
    value = float(value)
    if not math.isfinite(value):
        raise ConfigError(name, f"must be finite, got {value}", f"set {name} to a finite number")
    if minimum is not None and (value <= minimum if strict_minimum else value < minimum):
        relation = ">" if strict_minimum else ">="
        raise ConfigError(name, f"must be {relation} {minimum}, got {value}", f"use a value {relation} {minimum}")
    if maximum is not None and value > maximum:
        raise ConfigError(name, f"must be <= {maximum}, got {value}", f"use a value <= {maximum}")
    return value


def check_interval(lower: object, upper: object, names: tuple[str, str] = ("lower", "upper")) -> tuple[float, float]:
    """Return the bounds ``lower <= upper`` of a clip interval as floats, or raise naming the bad one.

    Args:
        lower: The lower bound.
        upper: The upper bound.
        names: The two parameters' names.
    """
    low, high = check_float(names[0], lower), check_float(names[1], upper)
    if high < low:
        raise ConfigError(names[1], f"is below {names[0]}", f"make {names[1]} >= {names[0]}")
    return low, high


def check_vector(name: str, value: object, *, length: int | None = None) -> np.ndarray:
    """Return ``value`` as a finite 1-D float array (optionally of a given length)."""
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray):
        raise ConfigError(name, f"must be a list of numbers, got {value!r}", f"write {name} = [ ... ]")
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(name, f"must be a list of numbers, got {value!r}", f"write {name} = [ ... ]") from None
    if array.ndim != 1:
        raise ConfigError(name, "must be a flat list of numbers", f"write {name} = [a, b, ...]")
    if not np.all(np.isfinite(array)):
        raise ConfigError(name, "contains NaN or infinite values", f"give {name} finite numbers only")
    if length is not None and array.size != length:
        raise ConfigError(
            name, f"must have {length} entries (one per feature), got {array.size}", f"give {length} values"
        )
    return array


def check_choice[C: str](name: str, value: object, choices: Sequence[C]) -> C:
    """Return the entry of ``choices`` equal to ``value``, or raise listing them.

    The result has the choices' type, so a ``Literal`` annotation on the target is checked by mypy.
    """
    for choice in choices:
        if value == choice:
            return choice
    listed = ", ".join(repr(c) for c in choices)
    raise ConfigError(name, f"unknown value {value!r}", f"use one of {listed}")


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is ``True`` or ``False``, or raise naming ``name``."""
    if not isinstance(value, bool | np.bool_):
        raise ConfigError(name, f"must be true or false, got {value!r}", f"write {name} = true or false")
    return bool(value)


def check_str(name: str, value: object) -> str:
    """Return ``value`` if it is a string, or raise naming ``name``."""
    if not isinstance(value, str):
        raise ConfigError(name, f"must be a string, got {value!r}", f'write {name} = "..."')
    return value


def check_list(name: str, value: object) -> list[Any]:
    """Return ``value`` as a list: any iterable (a list, tuple or array) but a string or a table.

    Raises:
        ConfigError: naming ``name``, for a string, a table or a value that is not iterable.
    """
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ConfigError(name, f"must be a list, got {value!r}", f"write {name} = [...]")
    return list(value)


def check_table(name: str, value: object) -> Mapping[str, Any]:
    """Return ``value`` if it is a table (a mapping), or raise naming ``name``."""
    if not isinstance(value, Mapping):
        raise ConfigError(name, f"must be a table, got {value!r}", f"write {name} = {{ name = value, ... }}")
    return value


def check_keys(section: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    """Refuse a key of ``[section]`` that is not in ``allowed`` (suggesting the closest)."""
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{section}.{key}", "unknown key", key_fix(key, allowed))


def key_fix(key: str, allowed: Any) -> str:
    """The fix for an unknown key: the closest allowed key, and all of them."""
    close = difflib.get_close_matches(key, list(allowed), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{hint}allowed keys: {', '.join(allowed)}"
