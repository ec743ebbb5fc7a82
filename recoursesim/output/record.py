"""Output directories own only what recoursesim wrote into them.

Every output directory holds a record, :data:`RECORD` (JSON Lines, one line per file written:
its path relative to the directory, its size, its SHA-256 and, for a table, its row count). A
line is appended right after the file it describes is complete, so the record is current after a
crash too; a later line for the same path replaces an earlier one. The record is what

* ``--overwrite`` consults: it replaces a directory only when every file in it is one
  recoursesim recorded and still has the recorded content, and none is an input of the run
  (:func:`check_replaceable`); otherwise it refuses, naming the file, and removes nothing;
* ``sweep --resume`` verifies each shard against (:func:`verify`).

Records nest: a directory recoursesim fills in place inside another (a sweep inside a sensitivity
analysis or a policy search) keeps its own record, and the outer record lists it as nested
(:func:`record_nested`). Only a nested directory the outer record vouches for counts: a folder of
earlier results, each with its own record, is not thereby one directory recoursesim may replace.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from recoursesim.errors import ConfigError
from recoursesim.output.atomic import left_by_a_dead_write, remove_dead_writes, write_atomic

#: The record of the files recoursesim wrote into a directory.
RECORD = "recoursesim-files.jsonl"
#: The lock file of a directory recoursesim writes into in place (:func:`exclusive`).
LOCK = ".lock"
#: Formats of a file recoursesim keeps changing (a study's database): its signature, and the files
#: the format keeps beside it (name suffix -> their signature). A record can claim no other kind.
MUTABLE_FORMATS: dict[str, tuple[bytes, dict[str, bytes]]] = {
    "sqlite": (b"SQLite format 3\x00", {"-journal": bytes.fromhex("d9d505f920a163d7")}),
}
#: The file that marks a hidden working directory while recoursesim fills it (only a marked one is
#: ever removed as stale); it is removed before the directory becomes the output.
WORKING_MARK = ".recoursesim-working"
#: Open flag that refuses a symbolic link (a record or lock is never written through one); POSIX only.
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def sha256_of(path: Path) -> str:
    """The SHA-256 hex digest of a file's content."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


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
    fd = os.open(root / RECORD, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NO_FOLLOW, 0o644)
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


def record_mutable(root: Path, path: Path, kind: str) -> None:
    """Record a file recoursesim created in ``root`` and keeps changing (a study's database).

    Its content changes, so it is not hashed: it is recoursesim's while it is a regular file with
    the signature of its format ``kind`` (:data:`MUTABLE_FORMATS`); so are the files that format
    keeps beside it (SQLite's ``<name>-journal``) while they carry theirs.
    """
    if kind not in MUTABLE_FORMATS:
        raise ValueError(f"unknown mutable format {kind!r}")
    append(root, [{"path": path.relative_to(root).as_posix(), "mutable": kind}])


def write_recorded(root: Path, path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (inside ``root``) atomically, then record it."""
    write_atomic(path, data)
    record_file(root, path, data)


@contextlib.contextmanager
def exclusive(directory: Path, what: str) -> Iterator[None]:
    """Hold the lock of a directory recoursesim writes into in place: one process at a time.

    The lock file (:data:`LOCK`) is recorded when created, never opened through a symbolic link,
    and removed when the lock is released, so a finished sweep or study leaves none behind. A
    process that locked a lock file another one removed meanwhile (it opened the file just before)
    finds the name no longer leads to its file and refuses, as if the lock were held.

    Args:
        directory: An existing directory.
        what: What is being written, for the message (``"sweep"``, ``"study"``).

    Raises:
        ConfigError: Another process holds the lock.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path = directory / LOCK
    fresh = not path.exists()
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _NO_FOLLOW, 0o644)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.EISDIR):
            raise
        raise ConfigError("--out", f"{path} is a symbolic link or not a file", f"remove it from {directory}") from None
    try:
        if fresh:
            record_file(directory, path, b"")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if not _names(path, fd):  # removed by the holder that released it after we opened it
                raise OSError(errno.ESTALE, "lock file replaced")
        except OSError:
            raise ConfigError(
                "--out", f"another {what} is writing into {directory}", "wait for it or choose another --out"
            ) from None
        try:
            yield
        finally:
            if _names(path, fd):
                path.unlink(missing_ok=True)  # while still held: nobody can lock this file after us
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` (not followed if a link) is the file open as ``fd``."""
    try:
        here, held = os.lstat(path), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def record_tree(root: Path) -> None:
    """Record every file under ``root`` not yet recorded (``root`` is a directory recoursesim filled)."""
    known = read_tree(root)
    entries = [
        entry_for(root, path)
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in (RECORD, WORKING_MARK) and path.relative_to(root).as_posix() not in known
    ]
    append(root, entries)


def read(root: Path) -> dict[str, dict[str, Any]]:
    """The record of ``root`` as ``relative path -> entry`` (a torn last line is ignored).

    A record that is a symbolic link counts as none, and an entry whose path is absolute or climbs
    out of ``root`` (``..``) is ignored: a record names only what lies below its own directory.
    """
    entries: dict[str, dict[str, Any]] = {}
    for entry in _lines(root):
        if isinstance(entry.get("path"), str) and _inside(entry["path"]):
            entry.pop("companion", None)  # made below from its owner's entry, never taken from the file
            entries[entry["path"]] = entry
    for path, entry in list(entries.items()):
        if entry.get("mutable") in MUTABLE_FORMATS:
            for suffix in MUTABLE_FORMATS[entry["mutable"]][1]:
                entries[path + suffix] = {"path": path + suffix, "companion": suffix, "of": entry["mutable"]}
    return entries


def _inside(relative: str) -> bool:
    """Whether a record's path stays below the record's directory."""
    path = PurePosixPath(relative)
    return bool(relative) and not path.is_absolute() and ".." not in path.parts and "\x00" not in relative


def record_command(root: Path, command: dict[str, Any]) -> None:
    """Record which command filled ``root`` (``{"command": "run", "scenario": ..., "seed": ...}``).

    The same command run again may replace what it recorded there without ``--overwrite``
    (:func:`recorded_command`).
    """
    append(root, [{"command": command}])


def recorded_command(root: Path) -> dict[str, Any] | None:
    """The command :func:`record_command` recorded in ``root`` (the last one), or ``None``."""
    try:
        commands = [entry["command"] for entry in _lines(root) if isinstance(entry.get("command"), dict)]
    except OSError:
        return None
    return commands[-1] if commands else None


def _lines(root: Path) -> Iterator[dict[str, Any]]:
    """The lines of ``root``'s record that are JSON objects (none if it is missing or a symbolic link)."""
    if (root / RECORD).is_symlink():
        return
    try:
        text = (root / RECORD).read_bytes().decode("utf-8", errors="replace")  # a mangled line matches no path
    except (FileNotFoundError, NotADirectoryError):
        return
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict):
                yield entry


def record_nested(root: Path, directory: Path) -> None:
    """Record (once) that ``directory`` (below ``root``) is recoursesim's and keeps its own record of its files."""
    relative = directory.relative_to(root).as_posix() + "/"
    if read(root).get(relative, {}).get("nested") is not True:
        append(root, [{"path": relative, "nested": True}])


def below(root: Path, path: Path) -> bool:
    """Whether ``path`` lies inside ``root`` with no symbolic link on the way (``path`` itself included)."""
    base = root.resolve()
    return path.resolve() == base / path.relative_to(root) and path.resolve() != base


def vouched_records(root: Path) -> dict[Path, dict[str, dict[str, Any]]]:
    """The record of ``root`` and of each nested directory it vouches for (and they in turn), read once.

    No symbolic link is followed; each directory is read once however often it is vouched for.
    """
    found = {root: read(root)}
    pending = [root]
    while pending:
        directory = pending.pop()
        for relative, entry in found[directory].items():
            inner = directory / relative
            if entry.get("nested") is True and inner not in found and inner.is_dir() and below(directory, inner):
                found[inner] = read(inner)
                pending.append(inner)
    return found


def read_tree(root: Path, records: dict[Path, dict[str, dict[str, Any]]] | None = None) -> dict[str, dict[str, Any]]:
    """The records of :func:`vouched_records` (or those given) as one: ``path relative to root -> entry``.

    A nested directory's record describes its files (it belongs to what wrote them there).
    """
    entries: dict[str, dict[str, Any]] = {}
    records = vouched_records(root) if records is None else records
    for directory in sorted(records, key=lambda d: len(d.parts)):  # outer records first
        prefix = directory.relative_to(root).as_posix()
        for relative, entry in records[directory].items():
            entries[relative if prefix == "." else f"{prefix}/{relative}"] = entry
    return entries


def verify(root: Path, path: Path, entry: dict[str, Any] | None) -> bool:
    """Whether ``path`` has the size and content its record ``entry`` says (a mutable one: its format's signature)."""
    if entry is None:
        return False
    if entry.get("mutable") in MUTABLE_FORMATS:
        return _regular(path) and _starts_with(path, MUTABLE_FORMATS[entry["mutable"]][0])
    if entry.get("of") in MUTABLE_FORMATS and entry.get("companion") in MUTABLE_FORMATS[entry["of"]][1]:
        signature, companions = MUTABLE_FORMATS[entry["of"]]
        owner = path.with_name(path.name.removesuffix(entry["companion"]))
        return (
            _regular(owner)
            and _starts_with(owner, signature)
            and _regular(path)
            and (_starts_with(path, companions[entry["companion"]]) or path.stat().st_size == 0)
        )
    try:
        return path.stat().st_size == entry.get("bytes") and sha256_of(path) == entry.get("sha256")
    except OSError:
        return False


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _starts_with(path: Path, signature: bytes) -> bool:
    """Whether the file starts with ``signature``."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(signature)) == signature
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
    vouched = vouched_records(root)
    known = read_tree(root, vouched)
    records = {directory / RECORD for directory in vouched}
    mark = root / WORKING_MARK  # left in an output by a kill just after it was swapped in
    unrecorded = "is not listed in its " + RECORD if known else f"is in a directory without a {RECORD}"
    for directory, subdirectories, files in os.walk(root):
        here = Path(directory)
        for name in sorted(files) + [d for d in sorted(subdirectories) if (here / d).is_symlink()]:
            path = here / name
            relative = path.relative_to(root).as_posix()
            if (path in records and not path.is_symlink()) or left_by_a_dead_write(path) or path == mark:
                continue
            if path.is_symlink() or not path.is_file() or relative not in known:
                return path, f"recoursesim did not write ({unrecorded})"
            if not verify(root, path, known[relative]):
                return path, "was changed after recoursesim wrote it"
    return None


def check_replaceable(root: Path, protected: Iterable[str | Path] = ()) -> None:
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
            "--out",
            f"--overwrite would delete {path}, which {why}",
            f"move it out of {root} (or remove {root} yourself if nothing in it is needed), or choose another --out",
        )


def check_folder(root: Path, folder: Path) -> None:
    """Refuse a ``folder`` below ``root`` that recoursesim would write into but is a link or a file.

    Raises:
        ConfigError: ``folder`` exists and is a symbolic link, not a directory, or reached through a link.
    """
    if folder.is_symlink() or (folder.exists() and not (folder.is_dir() and below(root, folder))):
        raise ConfigError(
            "--out", f"{folder} is a symbolic link or a file, so nothing is written into it", f"remove it from {root}"
        )


def check_own_files(root: Path, patterns: Iterable[str], folders: Iterable[str] = ()) -> list[Path]:
    """Refuse (naming the file) to overwrite a file of ``root`` matching ``patterns`` that is not recoursesim's.

    For a directory recoursesim adds to in place (a study that ``--resume`` continues): the files
    it is about to write again must be ones it recorded there and that nobody changed since.

    Args:
        root: The directory.
        patterns: Glob patterns relative to ``root``, e.g. ``"front/trial-*.toml"``.
        folders: Folders below ``root`` recoursesim writes into besides those of ``patterns``.

    Returns:
        The existing files that match (all recoursesim's, unchanged).

    Raises:
        ConfigError: a matching file recoursesim did not record, or one whose content changed since,
            or a folder they go into that is a symbolic link or not a folder.
    """
    patterns = list(patterns)
    for folder in {root / name for name in folders} | {(root / pattern).parent for pattern in patterns} - {root}:
        check_folder(root, folder)
    known = read_tree(root)
    found = [path for pattern in patterns for path in sorted(root.glob(pattern))]
    for path in found:
        if path.is_symlink() or not verify(root, path, known.get(path.relative_to(root).as_posix())):
            raise ConfigError(
                "--out",
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
    vouched = vouched_records(root)
    known = read_tree(root, vouched)
    records = [directory / RECORD for directory in vouched]
    for relative, entry in sorted(known.items(), key=lambda item: "companion" not in item[1]):  # journals first
        path = root / relative
        if not path.is_symlink() and path.is_file() and below(root, path) and verify(root, path, entry):
            path.unlink()
    (root / WORKING_MARK).unlink(missing_ok=True)
    for record in records:
        remove_dead_writes(record.parent)
        if not record.is_symlink():
            record.unlink(missing_ok=True)
    for directory, _, _ in sorted(os.walk(root), key=lambda item: -len(item[0])):
        with contextlib.suppress(OSError):
            os.rmdir(directory)
    return sorted(root.rglob("*")) if root.exists() else []
