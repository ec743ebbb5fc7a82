"""A scenario's market: the ``[market]`` table and the ``[[lenders]]`` it declares.

::

    [market]
    choice = { name = "all" }      # a registered choice policy and its parameters (default: all)
    culture = "polyculture"        # or "monoculture": every lender scores with lender 0's model
    copies = 3                     # optional: N lenders from one [[lenders]] template

    [[lenders]]
    name = "bank-a"                # required, unique
    selection = { name = "top_k", k = 30 }   # scorer, selection, recourse, training: optional

Each lender's missing sections are the scenario's top-level ones. With ``copies = N`` the one
``[[lenders]]`` table is a template for ``N`` lenders named ``<name>-1 … <name>-N``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from recoursesim._validate import check_choice, check_int, check_keys
from recoursesim.engine.market import CULTURES, MAX_LENDERS, MAX_NAME_LENGTH
from recoursesim.errors import ConfigError

#: The keys of ``[market]``.
MARKET_KEYS: tuple[str, ...] = ("choice", "culture", "copies")
#: A lender's own sections: each defaults to the scenario's top-level section of the same name.
LENDER_SECTIONS: tuple[str, ...] = ("scorer", "selection", "recourse", "training")
#: The keys of a ``[[lenders]]`` table.
LENDER_KEYS: tuple[str, ...] = ("name", *LENDER_SECTIONS)
#: The choice policy of a ``[market]`` that names none.
DEFAULT_CHOICE: dict[str, Any] = {"name": "all"}


def check_market(data: Mapping[str, Any]) -> None:
    """Check ``[market]`` and ``[[lenders]]`` (if either is given): keys, names, counts.

    Raises:
        ConfigError: the first problem, naming its field.
    """
    if "market" not in data:
        if "lenders" in data:
            raise ConfigError(
                "lenders", "declares lenders without a [market]", 'add [market] with choice = { name = "all" }'
            )
        return
    market = data["market"]
    if not isinstance(market, Mapping):
        raise ConfigError("market", "must be a table", "write it as [market]")
    check_keys("market", market, MARKET_KEYS)
    choice = market.get("choice", DEFAULT_CHOICE)
    if not isinstance(choice, Mapping) or not isinstance(choice.get("name"), str):
        raise ConfigError(
            "market.choice", f"must be a table with a name, got {choice!r}", 'write choice = { name = "all" }'
        )
    check_choice("market.culture", market.get("culture", "polyculture"), CULTURES)
    lenders = data.get("lenders")
    if not isinstance(lenders, list) or not lenders:
        raise ConfigError(
            "lenders", "a market has no lenders", 'add a [[lenders]] table per lender, each with name = "..."'
        )
    _check_size(market, lenders)
    _check_lenders(lenders)
    if market.get("culture") == "monoculture":
        own = next((i for i, lender in enumerate(lenders) if i > 0 and "scorer" in lender), None)
        if own is not None:
            raise ConfigError(
                f"lenders[{own}].scorer",
                "is ignored: in a monoculture every lender scores with lender 0's model",
                'remove it, or set culture = "polyculture"',
            )


def _check_size(market: Mapping[str, Any], lenders: list[Any]) -> None:
    """At most :data:`MAX_LENDERS` lenders, declared or made by ``copies`` (from one template)."""
    if len(lenders) > MAX_LENDERS:
        raise ConfigError(
            "lenders", f"declares {len(lenders)} lenders, more than {MAX_LENDERS}", f"declare at most {MAX_LENDERS}"
        )
    if "copies" in market:
        copies = check_int("market.copies", market["copies"], minimum=1)
        if copies > MAX_LENDERS:
            raise ConfigError(
                "market.copies",
                f"makes {copies} lenders, more than a market may have ({MAX_LENDERS})",
                f"set copies to at most {MAX_LENDERS}",
            )
        if len(lenders) != 1:
            raise ConfigError(
                "market.copies",
                f"makes copies of one [[lenders]] table, but there are {len(lenders)}",
                "keep one [[lenders]] table as the template, or remove copies",
            )


def _check_lenders(lenders: list[Any]) -> None:
    """Each ``[[lenders]]`` table: its keys, a unique non-empty name, its sections as component tables."""
    seen: dict[str, int] = {}
    for i, lender in enumerate(lenders):
        where = f"lenders[{i}]"
        if not isinstance(lender, Mapping):
            raise ConfigError(where, "must be a table", 'write [[lenders]] tables with name = "..."')
        check_keys(where, lender, LENDER_KEYS)
        name = lender.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{where}.name", f"must be a non-empty string, got {name!r}", f'add name = "lender-{i}"')
        problem = _name_problem(name)
        if problem:
            shown = name[:MAX_NAME_LENGTH]
            raise ConfigError(f"{where}.name", f"{problem}, got {shown!r}", f'write e.g. name = "lender-{i}"')
        if name in seen:
            raise ConfigError(
                f"{where}.name",
                f"lenders[{seen[name]}] is also named {name!r}",
                f'give each lender its own name, e.g. name = "{name}-{i}"',
            )
        seen[name] = i
        for section in LENDER_SECTIONS:
            part = lender.get(section)
            if part is not None and (not isinstance(part, Mapping) or "name" not in part):
                raise ConfigError(
                    f"{where}.{section}", "must be a table with a name", f"write {section} = {{ name = ... }}"
                )


def _name_problem(name: str) -> str:
    """What makes a non-empty lender name unusable ("" if nothing).

    A name labels the ledger's ``lender`` category, tables and legends, and addresses the lender in
    a sweep key (``lenders.<name>.selection.k``, split at dots, where a number is a position).
    """
    if len(name) > MAX_NAME_LENGTH:
        return f"is {len(name)} characters long, more than {MAX_NAME_LENGTH}"
    if not name.isprintable():
        return "contains a control character (a newline, tab or NUL)"
    if name != name.strip():
        return "starts or ends with a space"
    if "." in name:
        return "contains a dot (a sweep key lenders.<name>.… could not address it)"
    if name.isdigit():
        return "is a number (a sweep key lenders.<number>.… addresses a lender by position)"
    from recoursesim.metrics.market_ledger import MARKET  # pandas: only once a market is declared

    if name == MARKET:
        return f"is {MARKET!r}, the name of the whole market's rows in the market table"
    return ""


def lender_tables(spec: Mapping[str, Any]) -> list[tuple[int, str, dict[str, Any]]]:
    """The market's lenders as ``(index of their [[lenders]] table, name, sections)``, copies expanded.

    Each lender's sections are its own, else the scenario's top-level ones (``training`` only if
    one of them gives it). ``[]`` for a scenario without a market.
    """
    if "market" not in spec:
        return []
    tables = spec["lenders"]
    copies = spec["market"].get("copies")
    expanded: list[tuple[int, str, Mapping[str, Any]]]
    if copies is None:
        expanded = [(i, table["name"], table) for i, table in enumerate(tables)]
    else:
        expanded = [(0, f"{tables[0]['name']}-{c}", tables[0]) for c in range(1, int(copies) + 1)]
    lenders = []
    for index, name, table in expanded:
        sections = {
            section: copy.deepcopy(dict(table.get(section, spec.get(section))))
            for section in LENDER_SECTIONS
            if section in table or section in spec
        }
        lenders.append((index, name, sections))
    return lenders


def lender_table(spec: dict[str, Any], key: str) -> dict[str, Any]:
    """The ``[[lenders]]`` table a sweep key names: by position (``"0"``) or by name (``"bank-a"``).

    Raises:
        ConfigError: no such lender (naming the lenders there are).
    """
    tables = spec.get("lenders")
    if not isinstance(tables, list):
        raise ConfigError("lenders", "the scenario declares no lenders", "add [market] and [[lenders]] tables")
    for i, table in enumerate(tables):
        if isinstance(table, dict) and (key == str(i) or table.get("name") == key):
            return table
    names = ", ".join(str(t.get("name")) for t in tables if isinstance(t, dict))
    raise ConfigError(f"lenders.{key}", "names no lender", f"use a lender's position (0, 1, …) or name ({names})")
