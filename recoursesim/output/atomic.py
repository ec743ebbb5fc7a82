"""Replacing a file atomically: write beside it under a unique hidden name, then rename over it.

A reader never sees a half-written file, an interrupted write leaves at most a temporary file
(named ``.<name>.recoursesim-<pid>-<random>.tmp``, see :data:`TEMPORARY` and :func:`left_by_a_dead_write`),
and a file that is a hard link elsewhere is replaced, not written through.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

from recoursesim.resources import process_alive

#: Names of the temporary files :func:`replacing` makes (and only those); group 1 is the writer's pid.
TEMPORARY = re.compile(r"^\..+\.recoursesim-(\d+)-[0-9a-f]{8}\.tmp$")


def left_by_a_dead_write(path: Path) -> bool:
    """Whether ``path`` is a temporary file of :func:`replacing` whose process is gone (so it can go too)."""
    match = TEMPORARY.match(path.name)
    return match is not None and path.is_file() and not path.is_symlink() and not process_alive(int(match.group(1)))


def remove_dead_writes(folder: Path) -> int:
    """Delete the temporary files of :func:`replacing` in ``folder`` whose process is gone; return how many."""
    removed = 0
    for path in folder.glob(".*.tmp") if folder.is_dir() else ():
        if left_by_a_dead_write(path):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A fresh temporary path beside ``path``; renamed over ``path`` when the block succeeds.

    The temporary file is removed if the block fails (a full disk, Ctrl-C). A new file gets the
    usual permissions (the umask applies), as if written in place.

    Yields:
        The path to write to.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.recoursesim-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through :func:`replacing`."""
    with replacing(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
