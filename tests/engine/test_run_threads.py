"""A single run pins BLAS/OpenMP to one thread from PIN_FROM_AGENTS agents on, and leaves smaller runs alone."""

from threadpoolctl import threadpool_info

from recoursesim.threads import PIN_FROM_AGENTS, single_threaded, threads_for_run


def _threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info()]


def test_large_runs_are_pinned_small_runs_keep_the_pools():
    import numpy  # noqa: F401  (loads the BLAS library threadpoolctl inspects)

    default = _threads()
    with threads_for_run(PIN_FROM_AGENTS):
        assert all(n == 1 for n in _threads())
    assert _threads() == default
    with threads_for_run(PIN_FROM_AGENTS - 1):
        assert _threads() == default
    with single_threaded(), threads_for_run(1000):  # a small run in a sweep worker stays pinned by the worker
        assert all(n == 1 for n in _threads())
