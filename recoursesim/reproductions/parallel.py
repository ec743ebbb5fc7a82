"""The experiments' jobs on local worker processes that stop when the experiment stops.

joblib's worker processes outlive a killed parent: they finish the jobs they hold, and an
experiment that writes each finished job to disk (calibration panels, cached runs) would go on
writing after the person running it stopped it. :func:`parallel_map` gives every worker a watchdog
that ends the worker as soon as its parent has gone.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from joblib import Parallel, delayed

#: Seconds between a worker's checks that its parent is alive.
CHECK_EVERY = 0.5


def parallel_map[R](function: Callable[..., R], jobs: Iterable[Sequence[Any]], workers: int) -> list[R]:
    """``[function(*job) for job in jobs]`` in ``workers`` processes (in this process for 1), in order.

    Args:
        function: A module-level function (it is pickled to the workers).
        jobs: Each job's positional arguments.
        workers: Worker processes.

    Returns:
        The results, in the order of ``jobs``.
    """
    parent = os.getpid()
    return list(Parallel(n_jobs=workers)(delayed(_in_worker)(function, parent, *job) for job in jobs))


def _in_worker[R](function: Callable[..., R], parent: int, *args: Any) -> R:
    if os.getpid() != parent:  # a worker process, not the experiment itself (workers=1)
        _watch_parent(parent)
    return function(*args)


@functools.cache
def _watch_parent(parent: int) -> None:
    """Start, once per worker process, the thread that ends it when ``parent`` is gone."""
    threading.Thread(target=exit_when_orphaned, args=(parent,), daemon=True, name="parent-watchdog").start()


def exit_when_orphaned(parent: int, every: float = CHECK_EVERY) -> None:
    """Return never: end this process (exit status 1) once its parent is no longer ``parent``.

    Args:
        parent: The process id of the parent this process must outlive no longer.
        every: Seconds between checks.
    """
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)
