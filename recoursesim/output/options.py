"""The ``--out`` and ``--overwrite`` options of a command that writes a results folder, and what it records.

A command adds them with :func:`add_out_arguments`; :func:`command_record` is what it records
with its results (:func:`recoursesim.output.atomic_output_dir`'s ``command``), so the same
command run again replaces its earlier results.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from recoursesim.errors import describe_os_error
from recoursesim.output.folder import MAX_OUT_NAME


def out_path(text: str) -> Path:
    """Argparse type of ``--out``: a non-empty path without NUL bytes."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty (give a directory path; '.' is the current directory)")
    if "\x00" in text:
        raise argparse.ArgumentTypeError("must not contain a NUL byte")
    length = len(os.fsencode(Path(text).name))
    if length > MAX_OUT_NAME:
        raise argparse.ArgumentTypeError(
            f"its last part is {length} bytes long; give a name of at most {MAX_OUT_NAME} bytes (file systems "
            "allow 255, and results are written next to it under a longer hidden name first)"
        )
    try:
        linked = Path(text).is_symlink()  # checked first: a study's --resume and a sweep never reach check_out
    except OSError as error:
        raise argparse.ArgumentTypeError(describe_os_error(error)) from None
    if linked:
        raise argparse.ArgumentTypeError(f"{text} is a symbolic link (give the directory it points to)")
    return Path(text)


def add_out_arguments(parser: argparse.ArgumentParser, help: str, default: Path | None = None) -> None:
    """Add ``--out`` (a results directory) and ``--overwrite`` to a command."""
    parser.add_argument("--out", type=out_path, default=default, help=help)
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help=(
            "replace the --out directory if it holds only files recoursesim wrote there "
            "(default: refuse, unless this same command wrote them; anything else in it is never deleted)"
        ),
    )


#: Options that say where or how a command writes or runs, not what it computes.
_NOT_WHAT = frozenset({"func", "out", "overwrite", "quiet", "workers", "force", "debug"})


def command_record(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """What a command computes, as recorded with its results: its name and its options but ``--out`` and the like.

    Running it again with the same options replaces its earlier results (:func:`~recoursesim.output.folder.rerun`).
    """
    return {
        "command": name,
        **{key: _plain(value) for key, value in sorted(vars(args).items()) if key not in _NOT_WHAT},
    }


def _plain(value: Any) -> Any:
    """``value`` as JSON keeps it (lists for tuples, text for paths and other objects)."""
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value if value is None or isinstance(value, bool | int | float | str) else str(value)
