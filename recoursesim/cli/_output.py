"""Where the command line writes: safe default paths, checked ``--out`` directories, atomic replacement.

Every command that writes a results directory goes through :func:`atomic_output_dir`:

* the default path is built from a *slug* of the scenario name (letters, digits, ``.``, ``_``,
  ``-``), so a scenario file cannot direct output outside ``results/``; only an explicit ``--out``
  writes elsewhere;
* ``--out`` is checked before any work: it must not be empty, contain a NUL byte, name a file,
  lie where nothing can be created, or name a directory that already holds files (unless
  ``--overwrite``, or the same command wrote them: see below);
* running the same command again replaces its earlier results: the record names the command
  that filled the directory (:func:`~recoursesim.ownership.record_command`), and when it is this
  one the directory is replaced as with ``--overwrite`` (only files recoursesim recorded there);
* when the directory holds a file recoursesim did not write, the refusal says so and suggests
  another ``--out`` (``--overwrite`` would refuse too);
* ``--overwrite`` replaces a directory only if every file in it is one recoursesim wrote there
  (listed, unchanged, in its :data:`~recoursesim.ownership.RECORD`) and none is an input of the
  run; otherwise it refuses, naming the file (:func:`~recoursesim.ownership.check_replaceable`);
* results are written into a hidden temporary directory ``.<name>.tmp-<pid>-*`` next to the
  target, recorded, and moved into place only when complete; with ``--overwrite`` the old
  directory's recorded files are then removed, so no stale file of an earlier run survives;
* temporary directories left by a killed process (its pid no longer running) are removed the next
  time a command writes into the same parent directory.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from recoursesim import ownership
from recoursesim.cli._common import describe_os_error, os_cause, quote_path
from recoursesim.errors import ConfigError
from recoursesim.resources import process_alive

#: Longest slug :func:`slug` returns (file systems allow 255 bytes per name).
MAX_SLUG = 64
#: Longest last part of ``--out``, in bytes: 255 less the hidden working names' additions
#: (``.<name>.tmp-<pid>-<8 random>``, ``.<name>.recoursesim-<pid>-<random>.tmp``).
MAX_OUT_NAME = 200

#: Hidden working directories of :func:`atomic_output_dir`: ``.<name>.tmp-<pid>-<random>`` while
#: writing, ``.<name>.old-<pid>-<random>`` while replacing.
_WORKING = re.compile(r"^\..*\.(?:tmp|old)-(\d+)-[a-z0-9_]{8}$")  # tempfile.mkdtemp's 8 random characters


def slug(name: str) -> str:
    """Return a file-name-safe version of ``name``: no separators, no leading dots, at most :data:`MAX_SLUG` chars.

    The name is split at every run of characters other than letters, digits, ``.``, ``_`` and
    ``-``; parts made only of dots are dropped and the rest joined with ``-``: ``"../../x"`` gives
    ``"x"``, ``"/tmp/pwned"`` gives ``"tmp-pwned"``, and a name with nothing usable gives
    ``"scenario"``.
    """
    parts = [part for part in re.split(r"[^A-Za-z0-9._-]+", name) if part.strip(".")]
    text = "-".join(parts).lstrip(".-")[:MAX_SLUG].rstrip(".-")
    return text or "scenario"


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

    Running it again with the same options replaces its earlier results (:func:`rerun`).
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


def rerun(path: str | Path, command: dict[str, Any] | None) -> bool:
    """Whether ``path`` is a directory that ``command`` filled (recorded): running it again replaces it."""
    target = Path(path)
    return command is not None and target.is_dir() and ownership.recorded_command(target) == command


def check_out(
    path: str | Path,
    *,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    command: dict[str, Any] | None = None,
) -> Path:
    """Check an output directory before any work is done; return it as an absolute path.

    Args:
        path: The directory.
        overwrite: Whether an existing directory holding only files recoursesim wrote may be replaced.
        protected: The run's input files (never removed, even if recoursesim wrote them).
        command: What the command writing there is (recorded with the results); a directory this
            same command filled is replaced as with ``overwrite``.

    Raises:
        ConfigError: the path is empty or contains a NUL byte, names a file, holds files and
            ``overwrite`` is not set, holds anything recoursesim did not write (with
            ``overwrite``), or nothing can be created where it would go.
    """
    text = os.fspath(path)
    if not str(text).strip():
        raise ConfigError("--out", "is empty", "give a directory path ('.' is the current directory)")
    if "\x00" in str(text):
        raise ConfigError("--out", "contains a NUL byte", "give a plain directory path")
    target = Path(text).absolute()
    if target.is_symlink():
        raise ConfigError("--out", f"{target} is a symbolic link", "give the directory it points to, or a new path")
    if target.exists() and not target.is_dir():
        raise ConfigError("--out", f"{target} exists and is not a directory", "choose a directory path")
    overwrite = overwrite or rerun(target, command)
    if target.is_dir() and not overwrite and any(True for _ in target.iterdir()):
        raise _held(target, protected)
    if overwrite and target.is_dir() and (target == Path.home() or Path.cwd().is_relative_to(target)):
        raise ConfigError(
            "--out", f"{target} is the working or home directory (or holds it)", "give a dedicated results directory"
        )
    if overwrite and target.is_dir():
        ownership.check_replaceable(target, protected)
    anchor = existing_ancestor(target.parent)
    if not anchor.is_dir():
        raise ConfigError("--out", f"{anchor} is not a directory", "choose another output path")
    try:  # the results are first written next to the target: check now that this is possible
        os.rmdir(tempfile.mkdtemp(prefix=_working_prefix(target, "tmp"), dir=anchor))
    except OSError as error:
        raise _out_error(target, f"cannot create a directory in {quote_path(anchor)}", error) from None
    return target


def _held(target: Path, protected: Iterable[str | Path]) -> ConfigError:
    """The refusal of a ``target`` that holds files: its fix is what works (``--overwrite`` or another ``--out``)."""
    found = ownership.foreign_file(target, protected)
    if found is not None:  # --overwrite would refuse too
        return ConfigError(
            "--out",
            f"{target} already holds {quote_path(found[0])}, which {found[1]}",
            "choose a new --out (recoursesim never deletes a file it did not write)",
        )
    return ConfigError(
        "--out",
        f"{target} already holds files (earlier results of another command)",
        "add --overwrite to replace them, or choose a new --out",
    )


def check_out_file(path: str | Path, field: str) -> Path:
    """Check an output file path before any work: non-empty, no NUL, not an existing non-regular file.

    A device, directory or pipe is refused: an atomic write replaces the file by a rename, which
    would replace the device node itself (as root) instead of writing to it.

    Raises:
        ConfigError: naming ``field``.
    """
    text = str(os.fspath(path))
    if not text.strip() or "\x00" in text:
        raise ConfigError(field, f"{text!r} is not a usable file path", "give a file path")
    target = Path(text).absolute()
    if target.exists() and not target.is_file():
        raise ConfigError(field, f"{quote_path(target)} exists and is not a regular file", "give a new file path")
    anchor = existing_ancestor(target.parent)
    if not anchor.is_dir():
        raise ConfigError(field, f"{quote_path(anchor)} is not a directory", "give a path inside a directory")
    return target


def written_by_recoursesim(path: Path) -> bool:
    """Whether ``path`` carries recoursesim's mark: Parquet schema metadata, or the mark in a report's head."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        from recoursesim.ledger import GENERATOR_METADATA

        try:
            metadata = pq.read_schema(path).metadata or {}
        except Exception:  # not readable as Parquet: not ours
            return False
        return all(metadata.get(k) == v for k, v in GENERATOR_METADATA.items())
    from recoursesim.report.document import GENERATOR_COMMENT, GENERATOR_TAG

    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return GENERATOR_TAG.encode() in head or head.startswith(GENERATOR_COMMENT.encode())


def check_replaceable_file(path: str | Path, field: str) -> Path:
    """:func:`check_out_file`, and refuse an existing file that recoursesim did not write.

    A report or summary file recoursesim wrote carries its mark and is replaced; any other file at
    that path is the user's and is never overwritten.

    Raises:
        ConfigError: naming ``field``.
    """
    target = check_out_file(path, field)
    if target.exists() and not written_by_recoursesim(target):
        raise ConfigError(
            field,
            f"{quote_path(target)} exists and was not written by recoursesim, so it is not replaced",
            "give a new file path, or move that file away yourself",
        )
    return target


#: Scenario keys that name an input file of the run (a data file, a fitted model).
INPUT_KEYS = ("path", "model_file")


def input_files(*arguments: str | Path | None, spec: Any = None) -> list[Path]:
    """The run's input files: the arguments that are existing files, and every ``path``/``model_file`` a scenario names.

    ``--overwrite`` never removes them (:func:`check_out`).
    """
    found = [Path(a) for a in arguments if a is not None and Path(a).is_file()]
    stack = [spec]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found += [Path(v) for k, v in item.items() if k in INPUT_KEYS and isinstance(v, str) and v]
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
    return found


def existing_ancestor(path: Path) -> Path:
    """Return the nearest ancestor of ``path`` (or ``path`` itself) that exists."""
    anchor = path
    while not anchor.exists() and anchor != anchor.parent:
        anchor = anchor.parent
    return anchor


@contextlib.contextmanager
def atomic_output_dir(
    path: str | Path,
    *,
    overwrite: bool = False,
    protected: Iterable[str | Path] = (),
    command: dict[str, Any] | None = None,
) -> Iterator[Path]:
    """Write into a temporary directory; move it to ``path`` only when the body succeeds.

    ``path`` is checked (:func:`check_out`) and the temporary directory created on entry, so an
    unusable ``--out`` fails before any work. If the body raises (or is interrupted), nothing is
    written: neither ``path`` nor any missing parent directory is created. On success every file
    written is recorded (:mod:`recoursesim.ownership`), missing parents are created (like
    ``mkdir -p``) and the temporary directory becomes ``path``; an existing ``path`` (empty, or
    with ``overwrite`` one holding only files recoursesim wrote) is replaced, and only its
    recorded files are deleted.

    Args:
        path: The output directory.
        overwrite: Whether an existing directory holding only files recoursesim wrote may be replaced.
        protected: The run's input files (never removed).
        command: What the command writing there is: recorded with the results, and a directory
            this same command filled is replaced as with ``overwrite`` (:func:`rerun`).

    Yields:
        The temporary directory to write into.
    """
    overwrite = overwrite or rerun(path, command)
    target = check_out(path, overwrite=overwrite, protected=protected)
    anchor = existing_ancestor(target.parent)
    remove_stale_working_dirs(anchor)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=_working_prefix(target, "tmp"), dir=anchor))
        (tmp / ownership.WORKING_MARK).touch()
    except OSError as error:
        raise _out_error(target, f"cannot create a directory in {quote_path(anchor)}", error) from None
    try:
        try:
            yield tmp
        except OSError as error:
            if error.filename is not None and not str(error.filename).startswith(str(tmp)):
                raise  # not a write into the output (an input file, say): reported as it is
            raise _out_error(target, "writing the results failed", error) from None
        try:
            ownership.record_tree(tmp)  # the mark stays (unrecorded) until the directory is in place
            if command is not None:
                ownership.record_command(tmp, command)
            os.chmod(tmp, directory_mode())  # mkdtemp made it private; an output is as mkdir makes it
        except OSError as error:
            raise _out_error(target, "writing the results failed", error) from None
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            check_out(target, overwrite=overwrite, protected=protected)  # nothing arrived in the meantime
            old = Path(tempfile.mkdtemp(prefix=_working_prefix(target, "old"), dir=target.parent))
            os.replace(target, old)  # a kill from here until the mark below leaves old unmarked: kept
            try:
                os.rename(tmp, target)
            except OSError:
                os.replace(old, target)  # put the earlier results back
                raise
            (old / ownership.WORKING_MARK).touch()  # the new results are in place: old may go
            (target / ownership.WORKING_MARK).unlink()
            (old / ownership.WORKING_MARK).unlink()
            _restore_unrecorded(old, target)
        else:
            os.rename(tmp, target)
            (target / ownership.WORKING_MARK).unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def directory_mode() -> int:
    """The mode ``mkdir`` gives a new directory here: ``0o777`` less the process's umask."""
    try:  # Linux reports the umask without changing it
        with open("/proc/self/status", encoding="ascii") as status:
            umask = next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0o022)  # elsewhere: read it by setting it, and put it back at once
        os.umask(umask)
    return 0o777 & ~umask


def _restore_unrecorded(old: Path, target: Path) -> None:
    """Delete the recorded files of a replaced directory; put anything else back into ``target``.

    :func:`check_out` has just found only recorded files, so normally nothing is left; a file that
    appeared since is moved back (or, if its name is taken, its directory is kept next to the
    target under a name the stale-directory clean-up does not touch).
    """
    left = ownership.remove_recorded(old)
    if not left:
        return
    for item in sorted(old.iterdir()):
        if not (target / item.name).exists():
            os.rename(item, target / item.name)
    if any(old.iterdir()):
        os.rename(old, target.with_name(f"{target.name}.kept-{os.getpid()}"))
    else:
        os.rmdir(old)


def _out_error(target: Path, what: str, error: OSError) -> ConfigError:
    cause, fix = os_cause(error)
    return ConfigError("--out", f"{quote_path(target)}: {what} ({cause})", fix)


def _working_prefix(target: Path, role: str) -> str:
    return f".{slug(target.name)[:40]}.{role}-{os.getpid()}-"


def remove_stale_working_dirs(directory: Path) -> list[Path]:
    """Remove working directories of :func:`atomic_output_dir` whose process no longer runs.

    Only hidden directories named ``.<name>.tmp-<pid>-*`` or ``.<name>.old-<pid>-*`` that hold the
    mark :data:`~recoursesim.ownership.WORKING_MARK`, owned by the current user, whose pid is not a running process, are
    removed: a folder of yours that happens to be named that way has no mark and is kept.

    Args:
        directory: The parent directory to clean.

    Returns:
        The directories removed.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = _WORKING.match(entry.name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
            if not os.path.isfile(mark := os.path.join(entry.path, ownership.WORKING_MARK)) or os.path.islink(mark):
                continue
        except OSError:
            continue
        if not process_alive(int(match.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed
