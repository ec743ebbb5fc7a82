"""Progress reporting of a sweep: a tqdm bar with rate and ETA on stderr, or nothing."""

from __future__ import annotations

import sys
import warnings
from typing import Protocol

with warnings.catch_warnings():  # in a notebook without ipywidgets: text bars, without advice to install it
    warnings.simplefilter("ignore")
    from tqdm.auto import tqdm


class Progress(Protocol):
    """What the sweep loop reports to: one call per finished run."""

    total: float | None

    def update(self, n: int = 1) -> object:
        """Count ``n`` more runs as finished."""

    def set_postfix_str(self, text: str) -> None:
        """Show ``text`` after the bar (the failure count)."""

    def close(self) -> None:
        """Finish the display."""


def progress_bar(
    total: int | None,
    done: int,
    *,
    enabled: bool | None,
    description: str = "sweep",
    unit: str = "run",
    transient: bool = False,
) -> Progress:
    """A progress bar over ``total`` runs of which ``done`` are already finished.

    Args:
        total: Runs in the sweep (``None``: unknown, the bar counts without a percentage).
        done: Runs finished before this session (a resumed sweep starts part-way).
        enabled: ``False`` returns a bar that prints nothing (``--quiet``); ``None`` shows it only
            when stderr is a terminal.
        description: Label shown before the bar.
        unit: What is counted (counts of other units are shown with k/M suffixes).
        transient: Remove the bar when it closes (a step of a longer job).

    Returns:
        A tqdm bar (runs/s and ETA count only the runs of this session).
    """
    return tqdm(
        total=total,
        initial=done,
        disable=None if enabled is None else not enabled,
        desc=description,
        unit=unit,
        unit_scale=unit != "run",
        leave=not transient,
        file=sys.stderr,
        dynamic_ncols=True,
        mininterval=0.5,
        smoothing=0.05,
    )
