"""The on-disk layout of a sweep: manifest, one Parquet shard per finished run, one record per failure.

```
DIR/manifest.json        the plan: sweep id, root seed, points (parameters + resolved scenario), runs
DIR/runs/<run_id>.parquet   one shard per finished run, written atomically
DIR/errors/<run_id>.json    one record per failed run (error and traceback)
DIR/summary.parquet      written by :func:`~recoursesim.sweep.summarise`
DIR/recoursesim-files.jsonl  every file written here, with its size, SHA-256 and row count
```

A shard exists only once complete (temporary file, then rename), and its size, checksum and row
count are recorded (:mod:`recoursesim.output.record`) right after. ``resume`` reruns every run whose
shard is missing, unrecorded, truncated or changed (:meth:`SweepStore.finished`).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recoursesim import output
from recoursesim.errors import ConfigError
from recoursesim.output import remove_dead_writes, write_atomic
from recoursesim.sweep.identity import canonical_json
from recoursesim.sweep.plan import RunTask, SweepPlan

MANIFEST = "manifest.json"
RUNS = "runs"
ERRORS = "errors"
LOCK = output.LOCK
#: Version of the directory layout, stored in the manifest (2: files recorded with checksums).
LAYOUT_VERSION = 2


class SweepStore:
    """A sweep's output directory.

    Args:
        directory: Where the sweep writes.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @property
    def runs_dir(self) -> Path:
        """Directory of the shards."""
        return self.directory / RUNS

    @property
    def errors_dir(self) -> Path:
        """Directory of the failure records."""
        return self.directory / ERRORS

    def shard_path(self, run_id: str) -> Path:
        """Path of a run's shard."""
        return self.runs_dir / f"{run_id}.parquet"

    def error_path(self, run_id: str) -> Path:
        """Path of a run's failure record."""
        return self.errors_dir / f"{run_id}.json"

    def prepare(self, plan: SweepPlan, *, resume: bool) -> None:
        """Create the directory and manifest (plan and runs) for ``plan``, or check it holds this sweep to resume.

        Args:
            plan: The sweep to run.
            resume: Whether continuing an existing sweep in this directory is intended.

        Raises:
            ConfigError: The directory holds other files or another sweep, or holds this sweep
                and ``resume`` is not set.
        """
        self.check(plan, resume=resume)
        for folder in (self.directory, self.runs_dir, self.errors_dir):
            folder.mkdir(exist_ok=True)
        if not (self.directory / MANIFEST).exists():
            data = {"layout": LAYOUT_VERSION, **plan.describe()}
            data["runs"] = [[t.run_id, t.point, t.seed_index] for t in plan.tasks()]
            self.write_recorded(self.directory / MANIFEST, (canonical_json(data) + "\n").encode("utf-8"))

    def check(self, plan: SweepPlan, *, resume: bool, missing_parent_ok: bool = False) -> None:
        """Check, writing nothing, that :meth:`prepare` can use the directory for ``plan``.

        Args:
            plan: The sweep to run.
            resume: Whether continuing an existing sweep in this directory is intended.
            missing_parent_ok: Accept a parent directory that does not exist yet (the caller creates it).

        Raises:
            ConfigError: as :meth:`prepare`.
        """
        directory = self.directory
        if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
            raise ConfigError("--out", f"{directory} is a symbolic link or not a directory", "choose a directory path")
        for folder in (self.runs_dir, self.errors_dir):  # nothing is written through a link to elsewhere
            output.check_folder(directory, folder)
        manifest = directory / MANIFEST
        if manifest.exists():
            existing = self.read_manifest().get("sweep_id")
            if existing != plan.sweep_id:
                raise ConfigError(
                    "--out",
                    f"{directory} holds another sweep ({existing}; this one is {plan.sweep_id})",
                    "choose another --out directory (--resume only continues the same sweep)",
                )
            if not resume:
                raise ConfigError(
                    "--out", f"{directory} already holds this sweep", "add --resume, or choose another --out"
                )
        elif directory.exists() and any(not _left_by_a_start(p) for p in directory.iterdir()):
            raise ConfigError("--out", f"{directory} is not empty and holds no sweep", "choose a new or empty one")
        parent = directory.resolve().parent
        if not parent.is_dir() and not missing_parent_ok:
            raise ConfigError("--out", f"the parent directory {parent} does not exist", "create it first")

    def write_recorded(self, path: Path, data: bytes, rows: int | None = None) -> None:
        """Write a file of the sweep atomically, then record it (size, checksum, rows)."""
        write_atomic(path, data)
        output.record_file(self.directory, path, data, rows)

    def read_manifest(self) -> dict[str, Any]:
        """The manifest, parsed.

        Raises:
            ConfigError: There is no readable manifest in the directory.
        """
        path = self.directory / MANIFEST
        if not path.is_file():
            raise ConfigError("DIR", f"{self.directory} holds no sweep ({MANIFEST} is missing)", "give a sweep's --out")
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ConfigError("DIR", f"{path} cannot be read ({error})", "rerun the sweep elsewhere") from None
        problem = _manifest_problem(manifest)
        if problem:
            raise ConfigError(
                "RESULTS",
                f"{path} is not a sweep manifest this recoursesim can read ({problem})",
                "run the sweep again with this version (`recoursesim sweep ... --out DIR`)",
            )
        return manifest

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the directory's lock: one sweep writes at a time (:func:`~recoursesim.output.exclusive`).

        Raises:
            ConfigError: Another process holds the lock.
        """
        with output.exclusive(self.directory, "sweep"):
            yield

    def remove_partial_files(self) -> int:
        """Delete temporary files left by an interrupted sweep; return how many."""
        return sum(remove_dead_writes(folder) for folder in (self.runs_dir, self.errors_dir, self.directory))

    def finished(self) -> set[str]:
        """Identifiers of the runs whose shard exists (unverified; see :meth:`verified`)."""
        return {p.stem for p in self.runs_dir.glob("*.parquet")}

    def verified(self) -> tuple[set[str], list[str]]:
        """Identifiers of the runs whose shard is intact, and of those whose shard is not.

        A shard is intact when its size and SHA-256 are those recorded when it was written. A
        sweep written before shards were recorded (layout 1) has no record: its shards are
        accepted if they read as Parquet with the recorded run's rows only, and are then recorded.

        Returns:
            ``(intact, bad)``: the run identifiers; a bad shard (truncated, changed, unreadable,
            or unrecorded in a recorded sweep) is to be run again.
        """
        known = output.read(self.directory)
        legacy = not known
        intact: set[str] = set()
        bad: list[str] = []
        for run_id in sorted(self.finished()):
            path = self.shard_path(run_id)
            if legacy:
                rows = _readable_shard(path, run_id)
                if rows is not None:
                    output.record_file(self.directory, path, rows=rows)
                ok = rows is not None
            else:
                ok = output.verify(self.directory, path, known.get(path.relative_to(self.directory).as_posix()))
            if ok:
                intact.add(run_id)
            else:
                bad.append(run_id)
        return intact, bad

    def record_success(self, run_id: str, shard: bytes) -> None:
        """Write a run's shard atomically, record it, and drop any failure record of an earlier attempt."""
        self.write_recorded(self.shard_path(run_id), shard, _shard_rows(shard))
        self.error_path(run_id).unlink(missing_ok=True)

    def record_failure(self, task: RunTask, error: str, trace: str) -> dict[str, Any]:
        """Write a failed run's record (identity, parameters, seed, error, traceback) atomically.

        Returns:
            The failure as a sweep's report lists it: ``run_id``, ``point``, ``params``,
            ``seed_index`` and ``error``.
        """
        failure = {"run_id": task.run_id, "point": task.point, "params": task.params, "seed_index": task.seed_index}
        failure["error"] = error
        record = {**failure, "seed_entropy": str(task.seed.entropy), "traceback": trace}
        text = json.dumps(record, indent=1, sort_keys=True) + "\n"
        self.write_recorded(self.error_path(task.run_id), text.encode())
        return failure

    def failures(self) -> list[dict[str, Any]]:
        """The failure records, ordered by (point, seed index)."""
        records = [json.loads(p.read_text(encoding="utf-8")) for p in self.errors_dir.glob("*.json")]
        return sorted(records, key=lambda r: (r["point"], r["seed_index"]))


def _left_by_a_start(path: Path) -> bool:
    """Whether ``path`` is what a sweep stopped before writing its manifest leaves (lock, record, empty folders)."""
    if path.name in (LOCK, output.RECORD, output.WORKING_MARK):
        return True
    return path.name in (RUNS, ERRORS) and path.is_dir() and not any(path.iterdir())


def _shard_rows(shard: bytes) -> int:
    """Rows of a shard, from its Parquet footer."""
    import pyarrow.parquet as pq

    return int(pq.read_metadata(io.BytesIO(shard)).num_rows)


def _readable_shard(path: Path, run_id: str) -> int | None:
    """Rows of a shard that reads as Parquet and holds only ``run_id``'s rows; ``None`` otherwise."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
        ids = table.column("run_id")
    except (OSError, ValueError, KeyError):
        return None
    if table.num_rows == 0 or not pc.all(pc.equal(ids, run_id)).as_py():
        return None
    return int(table.num_rows)


def _manifest_problem(manifest: Any) -> str | None:
    """What is wrong with the shape of a parsed manifest (``None``: the parts readers index are well formed)."""
    if not isinstance(manifest, dict):
        return "not a JSON object"
    points, runs = manifest.get("points"), manifest.get("runs")
    listed = points if isinstance(points, list) else [None]
    well_formed = all(isinstance(p, dict) and isinstance(p.get("params"), dict) for p in listed)
    if not well_formed:
        return "points is not a list of {params: {...}}"
    if not isinstance(runs, list):
        return "runs is not a list"
    for run in runs:
        ok = isinstance(run, list) and len(run) == 3 and isinstance(run[0], str)
        if not (ok and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in run[1:])):
            return f"runs holds {str(run)[:60]}, not [run id, point, seed index]"
    names = manifest.get("param_names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return "param_names is not a list of names"
    if not isinstance(manifest.get("sweep_id"), str):
        return "sweep_id is not a string"
    return None
