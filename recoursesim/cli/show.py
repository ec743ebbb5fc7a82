"""``recoursesim show``: a scenario with its bases merged in, printed as a TOML scenario file.

Quick: it reads TOML only and imports no modelling library, unless ``--check`` builds the components.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from recoursesim.cli._common import add_trust_arguments


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``show`` command."""
    show = commands.add_parser(
        "show",
        help="print a scenario fully resolved (bases merged in) as a TOML scenario",
        description=(
            "Print a bundled scenario or a scenario file with its chain of bases merged in, as a TOML "
            "scenario that runs as it is: recoursesim show NAME > s.toml && recoursesim run s.toml."
        ),
    )
    show.add_argument("scenario", help="a bundled scenario name, a preset name or a scenario TOML file")
    show.add_argument("--check", action="store_true", help="also build and check every component (slower)")
    add_trust_arguments(show)
    show.set_defaults(func=run_show)


def run_show(args: argparse.Namespace) -> int:
    """Execute ``recoursesim show``."""
    from recoursesim.scenario import Scenario, bundled_names, load_table, resolve_table
    from recoursesim.scenario.presets import PRESETS
    from recoursesim.scenario.tables import dump_toml

    name = str(args.scenario)
    if name in PRESETS and name not in bundled_names() and not Path(name).exists():
        data, source, origin = {"base": name}, f"{name} (preset)", None
    else:
        data, source, origin = load_table(name)
    resolved = resolve_table(data, source, origin)
    if args.check:
        resolved = Scenario.from_dict(
            resolved, source=source, origin=origin, allow_imports=args.allow_imports, trusted=args.trusted
        ).spec
    header = f"{Path(source).name if origin else source} resolved by recoursesim show (bases merged in); runs as it is."
    print(dump_toml(resolved, header=header), end="")
    return 0
