"""Run this interpreter in a child process, as the tests that need a fresh process do."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def run_python(args: list[str], cwd: Path, env: Mapping[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    """``python *args`` in ``cwd`` with exactly ``env``; its output captured as text."""
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout
    )
