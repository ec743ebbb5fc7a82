"""The ``--allow-import MODULE`` option of every command that loads scenarios (see :mod:`recoursesim.trust`).

Kept apart from the other command-line helpers so that light commands (``show``) can add it
without importing pandas.
"""

from __future__ import annotations

import argparse


def add_allow_import_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-import MODULE`` (repeatable): modules a scenario may name components from by import path."""
    parser.add_argument(
        "--allow-import",
        action="append",
        default=[],
        metavar="MODULE",
        dest="allow_imports",
        help=(
            "allow the scenario to import MODULE (and its submodules) for a component named "
            '"MODULE:Class"; repeat for several; without it such names are refused (see the security page)'
        ),
    )
