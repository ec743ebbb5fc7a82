"""``recoursesim list``: the bundled scenarios and presets, the components, the bundled data sets.

Quick: it reads TOML and source files and imports no modelling library, unless ``datasets
--details`` loads the data.
"""

from __future__ import annotations

import argparse
import ast
import tomllib
from pathlib import Path

from recoursesim.errors import ConfigError

#: What ``recoursesim list`` can list.
TOPICS = ("scenarios", "components", "datasets")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``list`` command."""
    listing = commands.add_parser(
        "list",
        help="list the bundled scenarios, the components a scenario can name, or the bundled data sets",
        description=(
            "List what a scenario can use: the bundled scenarios and presets (usable by name and as "
            "base = ...), the registered components of every kind with their parameters and defaults, "
            "or the bundled data sets. Without a topic, lists all three."
        ),
    )
    listing.add_argument("topic", nargs="?", choices=TOPICS, help="what to list (default: all)")
    listing.add_argument("--kind", default=None, help="components: only this kind (selector, recourse, ...)")
    listing.add_argument(
        "--details", action="store_true", help="datasets: load each one and show its rows, target and groups"
    )
    listing.set_defaults(func=run_list)


def run_list(args: argparse.Namespace) -> int:
    """Execute ``recoursesim list``."""
    blocks = {
        "scenarios": format_scenarios,
        "components": lambda: format_components(args.kind),
        "datasets": lambda: format_datasets(details=args.details),
    }
    print("\n\n".join(blocks[topic]() for topic in ([args.topic] if args.topic else TOPICS)))
    return 0


def format_scenarios() -> str:
    """The bundled scenarios (with their description) and the presets, usable as ``base``."""
    from recoursesim.scenario.presets import PRESETS
    from recoursesim.scenario.tables import bundled_names, bundled_text

    lines = ['Bundled scenarios (recoursesim run NAME; in a scenario file: base = "NAME"):']
    names = bundled_names()
    width = max(map(len, [*names, *PRESETS]))
    lines += [f"  {name:<{width}}  {_describe_scenario(bundled_text(name))}" for name in names]
    lines += ["", 'Presets (as base = "NAME" in a scenario file; recoursesim show NAME prints one):']
    for name, table in PRESETS.items():
        sections = [section for section in ("selection", "recourse", "training") if section in table]
        parts = [f"{section} {table[section]['name']}" for section in sections]
        lines.append(f"  {name:<{width}}  Bell et al. (2024) setting: {', '.join(parts)}")
    return "\n".join(lines)


def _describe_scenario(text: str) -> str:
    description = tomllib.loads(text).get("description")
    if isinstance(description, str):
        return description
    for line in text.splitlines():  # else the first comment line
        if line.startswith("#") and line.strip("# "):
            return line.strip("# ").strip()
    return ""


def format_components(kind: str | None = None) -> str:
    """The registered components, by kind, with their parameters and defaults."""
    from recoursesim.component_index import components
    from recoursesim.registry import KINDS

    if kind is not None and kind not in KINDS:
        raise ConfigError("--kind", f"unknown component kind {kind!r}", f"use one of {', '.join(KINDS)}")
    lines = []
    for each_kind, section in KINDS.items():
        if kind is not None and each_kind != kind:
            continue
        head, _, key = section.partition(".")
        if key:  # a component table inside a section: [market] choice = { name = ... }
            lines.append(f"{each_kind} components ([{head}] {key} = {{ name = ... }}):")
        else:
            table = f"[[{section}]]" if section == "observers" else f"[{section}]"
            lines.append(f"{each_kind} components ({table} name = ...):")
        for info in components(each_kind):
            aliases = f" (also {', '.join(info.aliases)})" if info.aliases else ""
            lines.append(f"  {info.name}{aliases}: {info.summary}")
            for parameter in info.parameters:
                if parameter.name == "name":  # the table's name picks the class
                    continue
                annotation = f": {parameter.annotation}" if parameter.annotation else ""
                default = " (required)" if parameter.default is None else f" = {_toml_default(parameter.default)}"
                lines.append(f"      {parameter.name}{annotation}{default}")
        lines.append("")
    return "\n".join(lines).rstrip()


def _toml_default(source: str) -> str:
    """A default as a scenario would write it (``None`` is shown as ``unset``)."""
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError):
        return source
    if value is None:
        return "unset"
    import tomli_w

    return tomli_w.dumps({"v": list(value) if isinstance(value, tuple) else value}, multiline_strings=False)[4:].strip()


def format_datasets(*, details: bool = False) -> str:
    """The bundled data sets (``[population] name = "dataset"``, ``dataset = NAME``)."""
    lines = ['Bundled data sets ([population] name = "dataset", dataset = "NAME"):']
    for name, summary in _dataset_summaries().items():
        lines.append(f"  {name:<8}  {summary}")
        if details:
            from recoursesim.datasets import LOADERS

            data = LOADERS[name]()
            lines.append(
                f"            {len(data.frame):,} rows, {len(data.features)} features, target {data.target!r}, "
                f"group columns: {', '.join(data.protected)}"
            )
    return "\n".join(lines)


def _dataset_summaries() -> dict[str, str]:
    """Name -> the loader module's summary line, read from ``recoursesim.datasets`` without importing it."""
    folder = Path(__file__).resolve().parent.parent / "datasets"
    tree = ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))
    loaders: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "LOADERS" for t in node.targets):
            pairs = zip(node.value.keys, node.value.values, strict=True) if isinstance(node.value, ast.Dict) else ()
            for key, value in pairs:
                if isinstance(key, ast.Constant) and isinstance(value, ast.Name):
                    loaders[str(key.value)] = value.id
    modules = {
        alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    summaries = {}
    for name, function in loaders.items():
        module = modules.get(function, "")
        path = folder / f"{module.rsplit('.', 1)[-1]}.py"
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) if path.is_file() else None
        summaries[name] = (doc or "").strip().split("\n", 1)[0]
    return summaries
