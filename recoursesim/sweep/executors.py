"""Where runs execute: local processes through joblib (loky), or a Dask distributed cluster.

Both executors offer the same two operations, ``map_unordered`` (results as they finish) and
``close``, so the sweep loop is one code path whatever runs the work.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol, Self, TypeVar

from joblib import Parallel, delayed

from recoursesim.errors import ConfigError
from recoursesim.resources import exit_with_parent

T = TypeVar("T")
R = TypeVar("R")

#: Seconds to wait for a Dask scheduler before giving up.
DEFAULT_CONNECT_TIMEOUT = 10.0
#: Largest number of runs per Dask task (see :class:`DaskExecutor`).
DEFAULT_DASK_BATCH = 8
#: Settings of the worker processes of a Dask ``LocalCluster`` started by :class:`DaskExecutor`.
#: Dask's sampling profiler (a thread walking the task's stack every 10 ms) is off, and the
#: workers keep the C allocator's defaults (Dask sets ``MALLOC_TRIM_THRESHOLD_``, which also
#: fixes the size above which every allocation is a fresh ``mmap``); BLAS/OpenMP are single-threaded.
LOCAL_WORKER_CONFIG: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.nanny.pre-spawn-environ": {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1},
}


class Executor(Protocol):
    """Runs a function over items on some workers and yields results as they finish."""

    #: Human-readable description (``"joblib loky, 2 processes"``).
    description: str

    def map_unordered(
        self, fn: Callable[[T], R], items: Iterable[T], key: Callable[[T], str] | None = None
    ) -> Iterator[R]:
        """Apply ``fn`` to every item; yield the results in completion order.

        Args:
            fn: A picklable function of one item.
            items: The items, consumed lazily.
            key: A unique name per item (executors that track tasks by name use it).
        """

    def close(self) -> None:
        """Release the workers."""

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...


class _Closing:
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the workers."""


@dataclass(frozen=True)
class ExitWithDriver[T, R]:
    """``fn`` wrapped so that the worker process running it ends when the driver process dies.

    A killed driver cannot tell its workers to stop; without this they would finish their queue
    (or idle for minutes) with nobody to use the results.

    Attributes:
        fn: The per-item function.
        driver_pid: The pid of the process that submitted the work.
    """

    fn: Callable[[T], R]
    driver_pid: int

    def __call__(self, item: T) -> R:
        """Start watching the driver (once per process), then apply ``fn``."""
        exit_with_parent(self.driver_pid)
        return self.fn(item)


@dataclass(frozen=True)
class SingleThreaded[T, R]:
    """``fn`` run with BLAS and OpenMP limited to one thread (threadpoolctl) in whatever process runs it.

    The workers of a sweep each run one simulation; their parallelism is the number of workers.
    A run's own linear algebra and tree predictions are small or memory-bound, and library
    thread pools sized for the whole machine only make the workers' threads fight over the
    same cores (or spin waiting for each other).

    Attributes:
        fn: The per-item function.
    """

    fn: Callable[[T], R]

    def __call__(self, item: T) -> R:
        """Apply ``fn`` with one BLAS/OpenMP thread."""
        from recoursesim.threads import single_threaded

        with single_threaded():
            return self.fn(item)


@dataclass(frozen=True)
class Batch[T, R]:
    """``fn`` applied to several items in one task (one round trip to a Dask worker for all of them).

    Items that share objects (the runs of one grid point share its scenario) are pickled
    together, so each shared object travels once per batch, not once per run.

    Attributes:
        fn: The per-item function.
    """

    fn: Callable[[T], R]

    def __call__(self, items: list[T]) -> list[R]:
        """``[fn(item) for item in items]``."""
        return [self.fn(item) for item in items]


class JoblibExecutor(_Closing):
    """Local processes through joblib's loky backend; one worker runs in this process.

    Args:
        n_workers: Worker processes (``1``: run sequentially here, no subprocess).
        backend: The joblib backend.
    """

    def __init__(self, n_workers: int = 1, backend: str = "loky") -> None:
        if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1:
            raise ConfigError("--workers", f"must be a positive integer, got {n_workers!r}", "give --workers 1 or more")
        self.n_workers = n_workers
        self.backend = backend
        self.description = f"joblib {backend}, {n_workers} processes" if n_workers > 1 else "1 process (in this one)"

    def map_unordered(
        self, fn: Callable[[T], R], items: Iterable[T], key: Callable[[T], str] | None = None
    ) -> Iterator[R]:
        """Apply ``fn`` to every item in the worker processes; yield results as they finish."""
        parallel = Parallel(n_jobs=self.n_workers, backend=self.backend, return_as="generator_unordered")
        fn = SingleThreaded(fn)
        if self.n_workers > 1:
            fn = ExitWithDriver(fn, os.getpid())
        return parallel(delayed(fn)(item) for item in items)


class DaskExecutor(_Closing):
    """A Dask distributed cluster: an existing scheduler, or a ``LocalCluster`` started here.

    Items go to the cluster in batches, one task per batch (the runs of a batch share one transfer
    of their scenario and one scheduler round trip); results are still yielded one per item, so a
    sweep records (and can resume) every run as it comes back. When the number of items is known
    (``items`` has a length) the batches are guided: each holds the not yet submitted items
    divided by four times the worker threads, at most ``batch`` and at least one, so the first
    tasks are large and the last ones single runs, and the workers finish together. Otherwise
    every batch holds ``batch`` items. At most ``in_flight`` tasks are submitted at a time, so a
    sweep of any size holds a bounded number of pending results. Tasks are keyed by
    ``key(first item)`` and the batch size when given (run identities), so the cluster never runs
    the same runs twice at once. Each task runs with one BLAS/OpenMP thread (:class:`SingleThreaded`).

    Args:
        address: Scheduler address (``tcp://host:8786``); ``None`` with ``local_workers``.
        local_workers: Start a ``LocalCluster`` with this many single-threaded worker processes.
        connect_timeout: Seconds to wait for the scheduler before raising.
        in_flight: Maximum submitted, unfinished tasks (default: 2 per worker thread, at least 4).
        batch: Largest number of items per task (default :data:`DEFAULT_DASK_BATCH`).

    Raises:
        ConfigError: dask.distributed is not installed, no scheduler answers within
            ``connect_timeout``, or the arguments are inconsistent.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        local_workers: int | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        in_flight: int | None = None,
        batch: int = 0,
    ) -> None:
        if (address is None) == (local_workers is None):
            raise ConfigError(
                "--scheduler",
                "give either a scheduler address or --dask-local W",
                "pass --scheduler HOST:PORT for a running cluster, or --dask-local W for W local workers, not both",
            )
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError(
                "--scheduler" if address else "--dask-local",
                "dask.distributed is not installed",
                "pip install 'recoursesim[dask]', or drop the option to use local processes",
            ) from None
        self._cluster: Any = None
        if local_workers is not None:
            if local_workers < 1:
                raise ConfigError("--dask-local", f"must be a positive integer, got {local_workers}", "give 1 or more")
            import dask

            with dask.config.set(LOCAL_WORKER_CONFIG):  # the nannies pass the configuration to their workers
                self._cluster = LocalCluster(
                    n_workers=local_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            address = self._cluster.scheduler_address
            self.description = f"dask LocalCluster, {local_workers} worker processes"
        try:
            if local_workers is None and address is not None:  # a remote scheduler: fail fast if it is down
                probe_scheduler(address, connect_timeout)
            self._client = Client(address, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            self._close_cluster()
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ConfigError(
                "--scheduler",
                f"no Dask scheduler answered at {address} within {connect_timeout:g} s ({detail})",
                "check the address and that `dask scheduler` is running there, or use --dask-local W",
            ) from None
        threads = sum(self._client.nthreads().values()) or 1
        self.threads = threads
        self.in_flight = in_flight or max(4, 2 * threads)
        self.batch = batch or DEFAULT_DASK_BATCH
        if local_workers is None:
            self.description = f"dask scheduler {address}, {threads} worker threads"

    @property
    def client(self) -> Any:
        """The ``distributed.Client`` (for libraries with a Dask scheduler of their own, such as pyabc's sampler)."""
        return self._client

    def map_unordered(
        self, fn: Callable[[T], R], items: Iterable[T], key: Callable[[T], str] | None = None
    ) -> Iterator[R]:
        """Submit ``fn(item)`` for every item, a bounded window at a time; yield results as they finish."""
        from distributed import as_completed

        task: Callable[[Any], Any] = Batch(SingleThreaded(fn))
        if self._cluster is not None:  # workers on this machine: they end with this process
            task = ExitWithDriver(task, os.getpid())

        def submit(batch: list[T]) -> Any:
            named = {} if key is None else {"key": f"recoursesim-{key(batch[0])}-{len(batch)}"}
            return self._client.submit(task, batch, pure=False, **named)

        iterator = iter(items)
        remaining = len(items) if isinstance(items, Sized) else None

        def next_batch() -> list[T]:
            nonlocal remaining
            size = self.batch
            if remaining is not None:
                size = guided_batch_size(remaining, self.threads, self.batch)
                remaining = max(0, remaining - size)
            return list(islice(iterator, size))

        batches = iter(next_batch, [])
        completed = as_completed(loop=self._client.loop)
        for batch in islice(batches, self.in_flight):
            completed.add(submit(batch))
        for future in completed:
            results = future.result()
            future.release()
            for batch in islice(batches, 1):
                completed.add(submit(batch))
            yield from results

    def close(self) -> None:
        """Disconnect, and stop the ``LocalCluster`` if this executor started one."""
        self._client.close()
        self._close_cluster()

    def _close_cluster(self) -> None:
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def guided_batch_size(remaining: int, workers: int, largest: int) -> int:
    """Items in the next batch of a guided schedule: ``ceil(remaining / (4 · workers))`` within ``[1, largest]``.

    Args:
        remaining: Items not yet submitted.
        workers: Worker threads sharing them.
        largest: The largest batch.
    """
    return max(1, min(largest, math.ceil(remaining / (4 * max(1, workers)))))


@dataclass(frozen=True)
class Counted[T]:
    """An iterable with a known number of items, consumed lazily (so executors can plan batches).

    Attributes:
        items: The items.
        count: How many there are.
    """

    items: Iterable[T]
    count: int

    def __iter__(self) -> Iterator[T]:
        """The items."""
        return iter(self.items)

    def __len__(self) -> int:
        """How many items there are."""
        return self.count


def probe_scheduler(address: str, timeout: float) -> None:
    """Check that a Dask scheduler answers at ``address``, giving up after ``timeout`` seconds in all.

    ``distributed.Client`` bounds the TCP connection by its timeout but can wait forever for the
    handshake of a peer that accepts connections and never speaks; this probe bounds the whole
    exchange (connect, handshake, one ``identity`` request) with a single deadline.

    Args:
        address: Scheduler address.
        timeout: Seconds for the whole probe.

    Raises:
        TimeoutError: Nothing answered in time.
        OSError: The connection failed, or the peer does not speak Dask's protocol.
        ValueError: The address cannot be parsed.
    """
    import asyncio

    from distributed.comm import connect

    async def exchange() -> None:
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            await comm.read()
        finally:
            comm.abort()

    async def bounded() -> None:
        try:
            await asyncio.wait_for(exchange(), timeout)
        except TimeoutError:
            raise TimeoutError(f"no answer after {timeout:g} s") from None
        except (OSError, ValueError):
            raise
        except Exception as error:  # garbage on the wire surfaces as anything from MemoryError to KeyError
            raise OSError(f"the peer does not speak the Dask protocol ({type(error).__name__})") from None

    asyncio.run(bounded())


def make_executor(
    workers: int = 1,
    *,
    scheduler: str | None = None,
    dask_local: int | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
) -> Executor:
    """The executor the command-line options ask for.

    Args:
        workers: joblib worker processes (used when neither Dask option is given).
        scheduler: A Dask scheduler address.
        dask_local: Start a Dask ``LocalCluster`` with this many workers.
        connect_timeout: Seconds to wait for a Dask scheduler.

    Returns:
        A :class:`DaskExecutor` if a Dask option is given, else a :class:`JoblibExecutor`.

    Raises:
        ConfigError: Both Dask options are given, or the executor cannot start.
    """
    if scheduler is not None and dask_local is not None:
        raise ConfigError("--scheduler", "cannot be combined with --dask-local", "give one of them")
    if scheduler is not None or dask_local is not None:
        return DaskExecutor(scheduler, local_workers=dask_local, connect_timeout=connect_timeout)
    return JoblibExecutor(workers)
