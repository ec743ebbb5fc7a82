"""The experiments' jobs on local worker processes that stop when the experiment stops.

joblib's worker processes outlive a killed parent: they finish the jobs they hold, and an
experiment that writes each finished job to disk (calibration panels, cached runs) would go on
writing after the person running it stopped it. :func:`parallel_map` has every worker exit once the
experiment has gone (:func:`recoursesim.resources.exit_with_parent`, as a sweep's workers do).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from joblib import Parallel, delayed

from recoursesim.resources import exit_with_parent


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
    exit_with_parent(parent)  # nothing in the experiment itself (workers=1), or after a worker's first job
    return function(*args)
