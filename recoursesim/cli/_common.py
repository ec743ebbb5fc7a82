"""Shared command-line plumbing: one-line errors, atomic output directories."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from recoursesim.errors import ConfigError


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``prog: error: message; see --help`` and exit 2."""
        self.exit(2, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")


def positive_int(text: str) -> int:
    """Argparse type: an integer >= 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """Argparse type: an integer >= 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


@contextlib.contextmanager
def atomic_output_dir(path: str | Path) -> Iterator[Path]:
    """Write into a temporary directory, then move its files into ``path`` only on success.

    If the body raises, nothing is written: neither ``path`` nor any missing parent directory is
    created. On success missing parents are created (like ``mkdir -p``). Existing files in
    ``path`` with the same names are replaced; other files are left alone.

    Args:
        path: The output directory.

    Yields:
        The temporary directory to write into.
    """
    target = Path(path).resolve()
    if target.exists() and not target.is_dir():
        raise ConfigError("--out", f"{target} exists and is not a directory", "choose a directory path")
    anchor = target.parent
    while not anchor.exists():
        anchor = anchor.parent
    if not anchor.is_dir():
        raise ConfigError("--out", f"{anchor} is not a directory", "choose another output path")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=anchor))
    try:
        yield tmp
        target.mkdir(parents=True, exist_ok=True)
        for item in sorted(tmp.iterdir()):
            os.replace(item, target / item.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fail(message: str) -> int:
    """Print a one-line error to stderr and return exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2
