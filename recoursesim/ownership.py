"""Output directories own only what recoursesim wrote into them.

Every output directory holds a record, :data:`RECORD` (JSON Lines, one line per file written:
its path relative to the directory, its size, its SHA-256 and, for a table, its row count). A
line is appended right after the file it describes is complete, so the record is current after a
crash too; a later line for the same path replaces an earlier one. The record is what

* ``--overwrite`` consults: it replaces a directory only when every file in it is one
  recoursesim recorded and still has the recorded content, and none is an input of the run
  (:func:`check_replaceable`); otherwise it refuses, naming the file, and removes nothing;
* ``sweep --resume`` verifies each shard against (:func:`verify`).

Records nest: a directory recoursesim fills in place (a sweep inside a sensitivity analysis or a
policy search, say) keeps its own record, and a file below ``root`` is recoursesim's when the
nearest record above it lists it (:func:`read_tree`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recoursesim.errors import ConfigError

#: The record of the files recoursesim wrote into a directory.
RECORD = "recoursesim-files.jsonl"
#: Bytes read at a time when hashing a file.
_CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    """The SHA-256 hex digest of a file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def entry_for(root: Path, path: Path, data: bytes | None = None, rows: int | None = None) -> dict[str, Any]:
    """The record line of ``path`` (inside ``root``), from ``data`` when given, else from the file."""
    relative = path.relative_to(root).as_posix()
    if data is not None:
        entry: dict[str, Any] = {"path": relative, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    else:
        entry = {"path": relative, "bytes": path.stat().st_size, "sha256": sha256_of(path)}
    if rows is not None:
        entry["rows"] = int(rows)
    return entry


def append(root: Path, entries: Iterable[dict[str, Any]]) -> None:
    """Append record lines to ``root``'s record with one write (no partial line on a normal error)."""
    text = "".join(json.dumps(entry, sort_keys=True, separators=(",", ":")) + "\n" for entry in entries)
    if not text:
        return
    fd = os.open(root / RECORD, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        data = text.encode("utf-8")
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(f"short write to {root / RECORD}")
    finally:
        os.close(fd)


def record_file(root: Path, path: Path, data: bytes | None = None, rows: int | None = None) -> None:
    """Record one file recoursesim has just written into ``root``."""
    append(root, [entry_for(root, path, data, rows)])


def record_tree(root: Path) -> None:
    """Record every file under ``root`` not yet recorded (``root`` is a directory recoursesim filled)."""
    known = read_tree(root)
    entries = [
        entry_for(root, path)
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != RECORD and path.relative_to(root).as_posix() not in known
    ]
    append(root, entries)


def read(root: Path) -> dict[str, dict[str, Any]]:
    """The record of ``root`` as ``relative path -> entry`` (a torn last line is ignored)."""
    try:
        text = (root / RECORD).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return {}
    entries: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            entries[entry["path"]] = entry
    return entries


def read_tree(root: Path) -> dict[str, dict[str, Any]]:
    """The records of ``root`` and of the directories below it, as ``path relative to root -> entry``.

    Where two records list one file, the nearer one (the deeper directory's) describes it: that
    record belongs to what wrote the file into its own directory. Symbolic links to directories
    are not followed.
    """
    entries: dict[str, dict[str, Any]] = {}
    walked = sorted(os.walk(root), key=lambda item: len(Path(item[0]).parts))  # outer records first
    for directory, _, files in walked:
        here = Path(directory)
        if RECORD not in files or (here / RECORD).is_symlink():
            continue
        prefix = here.relative_to(root).as_posix()
        for relative, entry in read(here).items():
            entries[relative if prefix == "." else f"{prefix}/{relative}"] = entry
    return entries


def verify(root: Path, path: Path, entry: dict[str, Any] | None) -> bool:
    """Whether ``path`` has the size and content its record ``entry`` says."""
    if entry is None:
        return False
    try:
        return path.stat().st_size == entry.get("bytes") and sha256_of(path) == entry.get("sha256")
    except OSError:
        return False


def foreign_file(root: Path, protected: Iterable[str | Path] = ()) -> tuple[Path, str] | None:
    """The first entry of ``root`` recoursesim may not remove, with why; ``None`` if it owns them all.

    Args:
        root: An existing directory.
        protected: The run's input files: refused even if recorded.
    """
    resolved = root.resolve()
    for item in protected:
        path = Path(item).resolve()
        if path.is_relative_to(resolved) and path.exists():
            return path, "is an input of this run"
    known = read_tree(root)
    unrecorded = "is not listed in its " + RECORD if known else f"is in a directory without a {RECORD}"
    for directory, subdirectories, files in os.walk(root):
        here = Path(directory)
        for name in sorted(files) + [d for d in sorted(subdirectories) if (here / d).is_symlink()]:
            path = here / name
            relative = path.relative_to(root).as_posix()
            if name == RECORD and not path.is_symlink():
                continue
            if path.is_symlink() or not path.is_file() or relative not in known:
                return path, f"recoursesim did not write ({unrecorded})"
            if not verify(root, path, known[relative]):
                return path, "was changed after recoursesim wrote it"
    return None


def check_replaceable(root: Path, protected: Iterable[str | Path] = (), field: str = "--out") -> None:
    """Refuse (naming the file) to replace ``root`` unless recoursesim wrote everything in it.

    A directory without a record (written by an older recoursesim, or by something else) is
    refused if it holds any file: recoursesim cannot tell its files from the user's.

    Raises:
        ConfigError: one of the run's inputs is in ``root``, or a file recoursesim did not
            record, or one whose content changed since.
    """
    found = foreign_file(root, protected)
    if found is not None:
        path, why = found
        raise ConfigError(
            field,
            f"--overwrite would delete {path}, which {why}",
            f"move it out of {root} (or remove {root} yourself if nothing in it is needed), or choose another --out",
        )


def check_own_files(root: Path, patterns: Iterable[str], field: str = "--out") -> list[Path]:
    """Refuse (naming the file) to overwrite a file of ``root`` matching ``patterns`` that is not recoursesim's.

    For a directory recoursesim adds to in place (a study that ``--resume`` continues): the files
    it is about to write again must be ones it recorded there and that nobody changed since.

    Args:
        root: The directory.
        patterns: Glob patterns relative to ``root``, e.g. ``"front/trial-*.toml"``.
        field: The option named in the error.

    Returns:
        The existing files that match (all recoursesim's, unchanged).

    Raises:
        ConfigError: a matching file recoursesim did not record, or one whose content changed since.
    """
    known = read_tree(root)
    found = [path for pattern in patterns for path in sorted(root.glob(pattern))]
    for path in found:
        if path.is_symlink() or not verify(root, path, known.get(path.relative_to(root).as_posix())):
            raise ConfigError(
                field,
                f"{path} was not written by recoursesim (or was changed since), so it is not replaced",
                f"move it out of {root}, then rerun with --resume",
            )
    return found


def remove_recorded(root: Path) -> list[Path]:
    """Delete the recorded, unchanged files of ``root``, then its records and empty directories.

    Returns:
        What is left (files recoursesim did not write or that changed); ``root`` itself is removed
        only when nothing is left.
    """
    known = read_tree(root)
    for relative, entry in known.items():
        path = root / relative
        if not path.is_symlink() and path.is_file() and verify(root, path, entry):
            path.unlink()
    for directory, _, files in sorted(os.walk(root), key=lambda item: -len(item[0])):
        if RECORD in files and not (Path(directory) / RECORD).is_symlink():
            (Path(directory) / RECORD).unlink()
        with contextlib.suppress(OSError):
            os.rmdir(directory)
    return sorted(root.rglob("*")) if root.exists() else []
