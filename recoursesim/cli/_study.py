"""Options and the output directory shared by the study commands, ``sensitivity`` and ``optimise``.

Both run many sweeps into one ``--out`` directory that ``--resume`` continues and ``--overwrite``
replaces once the new study is complete (the scenario file given is never replaced).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from recoursesim import output
from recoursesim.cli import COMMANDS
from recoursesim.cli._common import (
    FilesHelpFormatter,
    add_scenario_argument,
    add_trust_arguments,
    non_negative_int,
    with_files,
)
from recoursesim.cli._executor_options import add_executor_arguments
from recoursesim.errors import ConfigError
from recoursesim.output import atomic_output_dir, check_out, input_files, out_path, slug
from recoursesim.policy._deps import POLICY_INSTALL


def add_study_parser(
    commands: argparse._SubParsersAction,
    name: str,
    doc: str | None,
    *,
    files: Mapping[str, str],
    extra: tuple[str, str] = ("policy", POLICY_INSTALL),
) -> argparse.ArgumentParser:
    """Add a study command taking a scenario; its ``--help`` lists the files it writes into ``--out``.

    Args:
        commands: The subcommands to add it to.
        name: The command's name; its one-line help is the one :data:`recoursesim.cli.COMMANDS` lists.
        doc: The command module's docstring: a summary line, then what the command does (its
            ``--help`` description, followed by how to install the extra it needs).
        files: File (or folder) name in ``--out`` -> what it holds.
        extra: The optional extra the command needs and how to install it.

    Returns:
        The command's parser, for its own options (then :func:`add_study_arguments`).
    """
    description = inspect.cleandoc(doc or "").partition("\n\n")[2]
    description = f"{description} Needs the {extra[0]} extra: {extra[1]}.".strip()
    parser = commands.add_parser(
        name,
        help=COMMANDS[name],
        description=with_files(description, files, "Files written into --out"),
        formatter_class=FilesHelpFormatter,
    )
    add_scenario_argument(parser)
    return parser


def add_study_arguments(parser: argparse.ArgumentParser, *, command: str, seeded: str, study: str) -> None:
    """Add the options every study takes: seed, output directory, resume or overwrite, executor, quiet, imports.

    Args:
        parser: The command's parser.
        command: The command's name (the default output is ``results/<command>-<scenario name>``).
        seeded: What the root seed seeds besides the runs (for the help text), e.g. ``"the sampler"``.
        study: What ``--resume`` continues (for the help text), e.g. ``"study"``.
    """
    parser.add_argument(
        "--root-seed",
        type=non_negative_int,
        default=None,
        help=f"seed of the runs and {seeded} (default run.seed)",
    )
    parser.add_argument(
        "--out", type=out_path, default=None, help=f"output directory (default: results/{command}-<scenario name>)"
    )
    parser.add_argument("--resume", action="store_true", help=f"continue the {study} in --out")
    parser.add_argument("--overwrite", action="store_true", help="replace a --out that holds files, once done")
    add_executor_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress and no table, only errors")
    add_trust_arguments(parser)


def study_out(args: argparse.Namespace, command: str, scenario_name: str, study: str) -> Path:
    """The study's directory, checked before any run: ``--out``, else ``results/<command>-<scenario name>``.

    Refuses ``--resume`` with ``--overwrite``, and a directory that holds files unless the call
    resumes or replaces it.

    Args:
        args: The command's options.
        command: The command's name.
        scenario_name: The scenario's name.
        study: What ``--resume`` continues (for the messages), e.g. ``"search"``.
    """
    check_resume_or_overwrite(args, study)
    out = args.out or Path("results") / f"{command}-{slug(scenario_name)}"
    if not args.resume and not replaces(args, out):
        check_out(out)
    return out


def check_resume_or_overwrite(args: argparse.Namespace, study: str) -> None:
    """Refuse ``--resume`` together with ``--overwrite`` (one line naming both)."""
    if args.overwrite and args.resume:
        raise ConfigError("--overwrite", "cannot be combined with --resume", f"continue the {study}, or replace it")


def replaces(args: argparse.Namespace, out: Path) -> bool:
    """Whether this call replaces a study already in ``out`` (``--overwrite`` and ``out`` holds files)."""
    return bool(args.overwrite) and out.is_dir() and any(out.iterdir())


@contextlib.contextmanager
def study_directory(args: argparse.Namespace, out: Path, spec: Any) -> Iterator[Path]:
    """The directory to write the study into.

    With ``--overwrite`` over a directory that holds files, a fresh directory that replaces ``out``
    only when the block completes (the scenario file given and the data files its ``spec`` names
    are protected); otherwise ``out`` itself. An ``out`` recoursesim wrote is locked meanwhile, so a second
    ``--resume`` or ``--overwrite`` of the same study is refused while this one runs.
    """
    ours = (out / output.RECORD).is_file()  # nothing is added to a directory recoursesim did not write
    with output.exclusive(out, "study") if ours else contextlib.nullcontext():
        if replaces(args, out):
            with atomic_output_dir(out, overwrite=True, protected=input_files(args.scenario, spec=spec)) as directory:
                yield directory
        else:
            yield out
