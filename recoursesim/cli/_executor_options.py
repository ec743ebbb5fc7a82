"""Command-line options that choose where sweep runs execute: local processes or Dask.

Shared by ``recoursesim sweep``, ``sensitivity`` and ``optimise``, so the three commands take the
same ``--workers``, ``--scheduler``, ``--dask-local``, ``--connect-timeout`` and ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from recoursesim.cli._common import add_force_argument, positive_int
from recoursesim.errors import ConfigError
from recoursesim.resources import cap_workers, check_run_memory
from recoursesim.scenario import Scenario
from recoursesim.sweep import Executor, make_executor
from recoursesim.sweep.executors import DEFAULT_CONNECT_TIMEOUT


def add_worker_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers`` (local processes) and ``--force`` (run past the memory estimate)."""
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="local worker processes (default 1; capped at the CPU count and the number of runs)",
    )
    add_force_argument(parser)


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers``, ``--scheduler`` / ``--dask-local``, ``--connect-timeout`` and ``--force``."""
    add_worker_arguments(parser)
    dask = parser.add_mutually_exclusive_group()
    dask.add_argument("--scheduler", metavar="ADDRESS", default=None, help="run on a Dask scheduler (tcp://host:8786)")
    dask.add_argument(
        "--dask-local", type=positive_int, metavar="W", default=None, help="start a Dask LocalCluster with W workers"
    )
    parser.add_argument(
        "--connect-timeout",
        type=float,
        default=DEFAULT_CONNECT_TIMEOUT,
        metavar="S",
        help=f"seconds to wait for the Dask scheduler (default {DEFAULT_CONNECT_TIMEOUT:g})",
    )


@dataclass(frozen=True)
class ExecutorChoice:
    """Checked executor options: what :meth:`open` starts."""

    workers: int
    scheduler: str | None
    dask_local: int | None
    connect_timeout: float

    def open(self) -> Executor:
        """Start the executor (a context manager; closed on exit)."""
        return make_executor(
            self.workers, scheduler=self.scheduler, dask_local=self.dask_local, connect_timeout=self.connect_timeout
        )


def check_executor(args: argparse.Namespace, n_runs: int, scenarios: Sequence[Scenario]) -> ExecutorChoice:
    """Check the options and the memory of ``scenarios`` before any work, and print any capping note.

    Args:
        args: Parsed options of :func:`add_executor_arguments`.
        n_runs: Runs the command will make at most at once (caps the worker count).
        scenarios: The scenarios that will run (their memory is checked for the runs at once).

    Raises:
        ConfigError: A non-positive timeout or too little memory.
    """
    if not args.connect_timeout > 0:
        raise ConfigError("--connect-timeout", f"must be positive, got {args.connect_timeout}", "give seconds > 0")
    workers, note = cap_workers(args.workers, n_runs)
    dask_local, dask_note = (None, None) if args.dask_local is None else cap_workers(args.dask_local, n_runs)
    at_once = dask_local or workers
    for scenario in scenarios:  # a remote scheduler's memory is not ours to judge: only absurd sizes are refused
        check_run_memory(scenario.config, runs_at_once=at_once, force=args.force or args.scheduler is not None)
    for line in (note, dask_note and dask_note.replace("--workers", "--dask-local")):
        if line:
            print(line, file=sys.stderr)
    return ExecutorChoice(workers, args.scheduler, dask_local, args.connect_timeout)
