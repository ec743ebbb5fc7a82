"""``recoursesim audit``: static fairness auditors on a dataset and a model."""

from __future__ import annotations

import argparse
import importlib

from recoursesim.cli._common import Parser

#: Auditor commands: each is the module ``recoursesim.cli.audit_<name>`` with ``add_parser(subparsers)``.
AUDITS: tuple[str, ...] = ("ccm", "effort", "facts")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add ``audit`` and its sub-commands."""
    parser = commands.add_parser(
        "audit",
        help="audit a model on a dataset for recourse fairness",
        description="Static fairness auditors: each audits a model trained on a dataset.",
    )
    audits = parser.add_subparsers(dest="auditor", metavar="AUDITOR", parser_class=Parser)
    audits.required = True
    for name in AUDITS:
        importlib.import_module(f"recoursesim.cli.audit_{name}").add_parser(audits)
