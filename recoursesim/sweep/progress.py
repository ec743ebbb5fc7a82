"""Progress reporting of a sweep: a tqdm bar with rate and ETA on stderr, or nothing."""

from __future__ import annotations

import sys
from typing import Protocol

from tqdm.auto import tqdm


class Progress(Protocol):
    """What the sweep loop reports to: one call per finished run."""

    def update(self, n: int = 1) -> object:
        """Count ``n`` more runs as finished."""

    def set_postfix_str(self, text: str) -> None:
        """Show ``text`` after the bar (the failure count)."""

    def close(self) -> None:
        """Finish the display."""


def progress_bar(total: int, done: int, *, enabled: bool, description: str = "sweep") -> Progress:
    """A progress bar over ``total`` runs of which ``done`` are already finished.

    Args:
        total: Runs in the sweep.
        done: Runs finished before this session (a resumed sweep starts part-way).
        enabled: ``False`` returns a bar that prints nothing (``--quiet``).
        description: Label shown before the bar.

    Returns:
        A tqdm bar (runs/s and ETA count only the runs of this session).
    """
    return tqdm(
        total=total,
        initial=done,
        disable=not enabled,
        desc=description,
        unit="run",
        file=sys.stderr,
        dynamic_ncols=True,
        mininterval=0.5,
        smoothing=0.05,
    )
