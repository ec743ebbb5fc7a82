"""Laying one scenario table over another (the deep merge of a scenario over its base)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from recoursesim.registry import KINDS

#: Sections holding one component table: a changed ``name`` replaces the base's table.
COMPONENT_SECTIONS: frozenset[str] = frozenset(
    section for section in KINDS.values() if section != "observers" and "." not in section
)
#: Component tables inside a section (``market.choice``): replaced whole, too, when their name changes.
NESTED_COMPONENTS: dict[str, frozenset[str]] = {
    section.partition(".")[0]: frozenset({section.partition(".")[2]}) for section in KINDS.values() if "." in section
}
#: Keys of a section that are one choice (where the data comes from): the one a scenario gives
#: replaces whichever of them its base gave.
ONE_CHOICE: dict[str, tuple[str, ...]] = {"population": ("dataset", "path")}


def merge_scenarios(base: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``own`` laid over ``base`` (deep merge; a component section of another ``name`` replaces).

    Neither argument is changed. Base keys (``base``/``preset``) are not interpreted here.
    """
    merged = copy.deepcopy(dict(base))
    for key, value in own.items():
        inherited, choice = merged.get(key), ONE_CHOICE.get(key, ())
        if isinstance(inherited, dict) and isinstance(value, Mapping) and any(k in value for k in choice):
            inherited = {k: v for k, v in inherited.items() if k not in choice}  # the child's source wins
        merged[key] = _merge_value(
            inherited, value, component=key in COMPONENT_SECTIONS, nested=NESTED_COMPONENTS.get(key, frozenset())
        )
    return merged


def _merge_value(old: Any, new: Any, *, component: bool = False, nested: frozenset[str] = frozenset()) -> Any:
    if not (isinstance(old, Mapping) and isinstance(new, Mapping)):
        return copy.deepcopy(new)
    if component and new.get("name", old.get("name")) != old.get("name"):
        return copy.deepcopy(dict(new))
    merged = copy.deepcopy(dict(old))
    for key, value in new.items():
        merged[key] = _merge_value(merged.get(key), value, component=key in nested)
    return merged
