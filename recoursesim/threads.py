"""Native thread pools (BLAS, OpenMP) limited to one thread where a run's work gains nothing from them.

Where the limit applies: every run of a sweep in its worker; the refits and tabular predictions
wherever they happen; and a single run (:func:`recoursesim.simulate.simulate`, ``recoursesim
run``) that starts with at least :data:`PIN_FROM_AGENTS` agents (:func:`threads_for_run`). Below
that a single run keeps the default pools: pinning measured no gain there (1,000 and 10,000
agents, ``benchmarks/threads.py``). The per-step fits and predictions are small: multi-threaded BLAS only adds
contention (a CDA run took 4x longer with default threading on a busy 2-core machine). At large
populations a step's work is elementwise and memory-bound: BLAS threads spinning on every core
then take CPU time without making the run faster (``benchmarks/threads.py`` measures both, from
1,000 to 1,000,000 agents). Parallel runs get their speed from running several simulations at once.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

from threadpoolctl import ThreadpoolController


@functools.cache
def _thread_controller() -> ThreadpoolController:
    """One controller per process (building one inspects every loaded native library)."""
    return ThreadpoolController()


def single_threaded() -> Any:
    """A context manager limiting BLAS/OpenMP to one thread (for small per-step linear algebra)."""
    return _thread_controller().limit(limits=1)


#: A single run starting with at least this many agents runs with one BLAS/OpenMP thread.
PIN_FROM_AGENTS = 100_000


def threads_for_run(n_agents: int) -> Any:
    """The thread limit of a single run starting with ``n_agents`` agents (one thread from :data:`PIN_FROM_AGENTS`)."""
    return single_threaded() if n_agents >= PIN_FROM_AGENTS else contextlib.nullcontext()


def fit_single_threaded(estimator: Any, *args: Any) -> Any:
    """Fit ``estimator`` on ``args`` with BLAS/OpenMP limited to one thread; return what ``fit`` returns."""
    with single_threaded():
        return estimator.fit(*args)
