"""The options by which the person running grants trust: ``--allow-import MODULE`` and ``--trust TYPE``.

Every command that loads a scenario (and so may import a plug-in module or load a model file)
takes both (see :mod:`recoursesim.trust` and :mod:`recoursesim.scoring.model_trust`); a
scenario file never grants either.

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


def add_trust_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-import MODULE`` and ``--trust TYPE`` (both repeatable) to a command that loads scenarios."""
    add_allow_import_argument(parser)
    parser.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="TYPE",
        dest="trusted",
        help=(
            "let a model file (scorer model_file) hold TYPE (package.module.Class) beyond the allow-list of "
            "scikit-learn, NumPy and SciPy classes; repeat for several; only for a file whose author you trust "
            "(see the security page)"
        ),
    )
