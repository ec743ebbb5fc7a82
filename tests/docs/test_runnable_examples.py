"""Every Python example marked runnable in README.md and docs/ runs as written.

A block is marked by an HTML comment on the line before its fence (invisible when rendered)::

    <!-- runnable -->
    ```python
    ...
    ```

The blocks of one file run in order in one namespace (a later block may use an earlier one's
names), in a fresh working directory, with the component registry restored afterwards. The
marker, not the block's position, selects what runs, so the documents can be rewritten freely.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from recoursesim import registry

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- runnable -->\s*\n```python\n(.*?)```", re.S)
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MARKED = [path for path in DOCUMENTS if BLOCK.search(path.read_text(encoding="utf-8"))]


def test_the_readme_marks_its_python_examples() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(BLOCK.findall(text)) == text.count("```python"), "mark every README example <!-- runnable -->"


@pytest.mark.parametrize("path", MARKED, ids=[str(p.relative_to(ROOT)) for p in MARKED])
def test_runnable_examples_run_as_written(path: Path, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    registry.names("population")  # import the built-ins first, so the snapshot below holds them
    saved = copy.copy(registry._REGISTRY)
    saved_tables = {kind: dict(table) for kind, table in registry._REGISTRY.items()}
    namespace: dict = {"__name__": f"example_{path.stem}"}
    try:
        for number, code in enumerate(BLOCK.findall(path.read_text(encoding="utf-8"))):
            exec(compile(code, f"{path.name}[runnable block {number}]", "exec"), namespace)
    finally:
        for kind, table in saved_tables.items():
            saved[kind].clear()
            saved[kind].update(table)
