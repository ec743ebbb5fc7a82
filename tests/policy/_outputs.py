"""A study's output folder as comparable data: what two identical runs must write identically."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

#: The only field of a study's notes that may differ between identical runs: the session's wall time.
TIMING = "seconds_this_session"
#: The columns of an Optuna study that hold wall-clock times.
CLOCK_COLUMNS = ("datetime_start", "datetime_complete")


def study_outputs(directory: Path, notes: str, *, clocked: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every file under ``directory``; the notes without :data:`TIMING`, the record without what holds times.

    Args:
        directory: The study's output folder.
        notes: The notes file (JSON) whose :data:`TIMING` field is left out.
        clocked: Files that hold wall-clock times (left out here; compare them by hand).

    Returns:
        ``files`` (relative path → bytes), ``notes`` (without the timing) and ``record`` (the
        folder's record of files, by path, without the notes' and the clocked files' hashes).
    """
    files = {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}
    parsed = json.loads(files.pop(notes))
    assert parsed.pop(TIMING) >= 0
    record = {r["path"]: r for r in map(json.loads, files.pop("recoursesim-files.jsonl").splitlines())}
    for name in (notes, *clocked):
        record.pop(name)  # its hash covers the times
        files.pop(name, None)
    return {"files": files, "notes": parsed, "record": record}


def study_rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table of an Optuna study (SQLite), wall-clock columns left out."""
    with sqlite3.connect(path) as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        rows = {}
        for table in tables:
            columns = [c[1] for c in db.execute(f"PRAGMA table_info({table})") if c[1] not in CLOCK_COLUMNS]
            rows[table] = db.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY 1").fetchall()
    return rows
