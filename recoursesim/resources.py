"""Resource limits: run memory estimated before allocating, worker counts capped, workers tied to the driver.

A run keeps one ledger row per (agent, step) while the agent waits. Without departures the number
of rows would be ``agents × steps``; a selector with a fixed ``k`` removes ``min(k, waiting)``
agents per step, which :func:`estimate_run` takes into account, so its figure is an upper bound on
the rows of a run in which nobody gives up. Each row holds ``8 + 2d`` numbers for ``d`` features;
:data:`BYTES_PER_CELL` (bytes per number at the run's peak: the ledger, its table form and the
Parquet encoding exist at the same time) was measured with ``benchmarks/memory_estimate.py``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from recoursesim.errors import ConfigError

#: Peak bytes per ledger number (see the module docstring).
BYTES_PER_CELL = 24
#: Peak bytes per agent and feature-or-attribute in the agent table and its frames.
BYTES_PER_AGENT_CELL = 24
#: Memory every run needs whatever its size (interpreter, libraries, model objects).
BASE_BYTES = 300 * 2**20
#: Runs larger than this are refused even with ``force`` (no machine has that much memory).
ABSURD_BYTES = 2**50

# Sizes of what a user hands in, refused before any work (each names the option or field, and a fix).

#: Largest scenario file (or ``base`` file) read: the bundled scenarios are under 4 KiB.
MAX_SCENARIO_BYTES = 2**20
#: Longest chain of ``base`` files (``a.toml -> b.toml -> ...``); the bundled scenarios use at most 2.
MAX_BASE_CHAIN = 64
#: Most columns of a user's CSV or Parquet table (the bundled data sets have at most 21).
MAX_TABLE_COLUMNS = 10_000
#: Longest header line of a user's CSV file that is read (10,000 names of 100 bytes).
MAX_HEADER_BYTES = 2**20
#: Most grid points a sweep may have (each point's scenario is validated and kept in memory).
MAX_GRID_POINTS = 10_000
#: Most runs a sweep may have (the plan and ``manifest.json`` list every run); a study
#: (``sensitivity``, ``optimise``) is held to the same bound.
MAX_SWEEP_RUNS = 1_000_000
#: Most grid levels of a Morris design (``sensitivity --levels``; 4 to 8 are usual).
MAX_MORRIS_LEVELS = 1_000


@dataclass(frozen=True)
class RunSize:
    """The estimated size of one run.

    Attributes:
        agents: Agents that enter over the whole run.
        rows: Upper bound on ledger rows (agent-steps spent waiting).
        columns: Numbers per ledger row.
        bytes: Estimated peak memory.
    """

    agents: int
    rows: int
    columns: int
    bytes: int


def waiting_rows(initial: int, entrants: int | list[int], steps: int, k: int) -> int:
    """Upper bound on the agent-steps of a run: ``sum_t waiting_t`` for ``t = 0..steps``.

    ``waiting_0 = initial``; after each step ``min(k, waiting)`` agents leave and that step's
    entrants join. Exact when nobody gives up and exactly ``min(k, n)`` are selected per step;
    computed in closed form for a constant number of entrants (any ``steps``).
    """
    if isinstance(entrants, list):
        total = waiting = initial
        for joining in entrants[:steps]:
            waiting = waiting - min(k, waiting) + joining
            total += waiting
        return total
    e = entrants
    if initial < k:  # everybody waiting at step 0 is selected; from step 1 on, e agents wait at first
        if e < k:
            return initial + steps * e
        return initial + steps * e + (e - k) * steps * (steps - 1) // 2
    if e >= k:  # the queue never drains: waiting_t = initial + t (e - k)
        return (steps + 1) * initial + (e - k) * steps * (steps + 1) // 2
    # the queue shrinks by k - e per step while at least k wait, then everybody is selected each step
    last_full = (initial - k) // (k - e)  # the last step at which at least k agents wait
    m = min(steps, last_full + 1)
    return (m + 1) * initial - (k - e) * m * (m + 1) // 2 + e * (steps - m)


class RunShape(Protocol):
    """What :func:`estimate_run` reads of a run: a :class:`~recoursesim.scenario.RunConfig` has it."""

    @property
    def steps(self) -> int:
        """``T``: the run covers steps ``0 … T``."""

    @property
    def initial(self) -> int:
        """Agents at step 0."""

    @property
    def entrants(self) -> int | tuple[int, ...]:
        """Agents joining after each step: one number, or one per step."""

    @property
    def k(self) -> int | None:
        """Places per step, when fixed (``None``: unknown, counted as none)."""

    @property
    def n_lenders(self) -> int:
        """Decision makers (each waiting agent has up to one ledger row per lender)."""

    @property
    def n_features(self) -> int | None:
        """Features, when known before the population is built (``None``: counted as 2)."""


def estimate_run(run: RunShape, *, steps: int | None = None) -> RunSize:
    """Estimate the peak memory of one run without building it.

    Args:
        run: The run's sizes: a scenario's :attr:`~recoursesim.scenario.Scenario.config`.
        steps: Override ``T``.

    Returns:
        The estimate.
    """
    steps = int(run.steps if steps is None else steps)
    initial = int(run.initial)
    entrants = [int(v) for v in run.entrants] if isinstance(run.entrants, tuple) else int(run.entrants)
    total = initial + (sum(entrants) if isinstance(entrants, list) else entrants * steps)
    d = 2 if run.n_features is None else run.n_features
    columns = 8 + 2 * d
    rows = waiting_rows(initial, entrants, steps, run.k or 0) * run.n_lenders
    size = BASE_BYTES + rows * columns * BYTES_PER_CELL + total * (8 + d) * BYTES_PER_AGENT_CELL
    return RunSize(total, rows, columns, size)


def available_memory() -> int | None:
    """Bytes this process may still allocate: the smaller of the system's available memory and the cgroup's room."""
    candidates = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                candidates.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        with contextlib.suppress(ValueError, OSError, AttributeError):
            candidates.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            candidates.append(max(0, int(limit) - int(used)))
    except (OSError, ValueError):
        pass
    return min(candidates) if candidates else None


def format_bytes(n: float) -> str:
    """``1.5 GiB``-style size."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover - loop always returns


def check_run_memory(run: RunShape, *, steps: int | None = None, runs_at_once: int = 1, force: bool = False) -> RunSize:
    """Refuse a run (or ``runs_at_once`` parallel runs) that would not fit in the available memory.

    Args:
        run: The run's sizes: a scenario's :attr:`~recoursesim.scenario.Scenario.config`.
        steps: Override ``T``.
        runs_at_once: Runs that execute at the same time (parallel workers).
        force: Skip the comparison with the available memory (absurd sizes are still refused).

    Returns:
        The estimate of one run.

    Raises:
        ConfigError: naming the size, the memory available and what to change.
    """
    size = estimate_run(run, steps=steps)
    needed = size.bytes * runs_at_once
    what = f"{size.agents:,} agents and up to {size.rows:,} ledger rows × {size.columns} columns" + (
        f", {runs_at_once} runs at once" if runs_at_once > 1 else ""
    )
    fix = "lower run.steps (--steps), population.initial or population.entrants"
    if runs_at_once > 1:
        fix += ", or use fewer --workers"
    check_memory(needed, what, fix, force=force, field="run size", force_option="--force")
    return size


def check_memory(
    needed: int,
    what: str,
    fix: str,
    *,
    force: bool = False,
    field: str = "size",
    force_option: str = "--force (force=True)",
) -> None:
    """Refuse a job whose estimated peak memory exceeds what is available (absurd sizes even with ``force``).

    Args:
        needed: Estimated peak bytes.
        what: What the estimate counts, for the message (e.g. ``"48,842 rows x 15,000 centres"``).
        fix: What to change.
        force: Skip the comparison with the available memory.
        field: The message's field name.
        force_option: How the fix names forcing.

    Raises:
        ConfigError: One line naming the estimate, the memory available and the fix.
    """
    if needed > ABSURD_BYTES:
        raise ConfigError(field, f"needs about {format_bytes(needed)} of memory ({what})", fix)
    available = None if force else available_memory()
    if available is not None and needed > available:
        raise ConfigError(
            field,
            f"needs about {format_bytes(needed)} of memory ({what}) but {format_bytes(available)} is available",
            f"{fix}; or add {force_option} to try anyway",
        )


def usable_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def cap_workers(requested: int, n_runs: int, option: str = "--workers") -> tuple[int, str | None]:
    """Cap a worker count at the usable CPUs and the number of runs.

    Returns:
        The count to use, and a one-line note when it was capped (else ``None``).
    """
    cpus = usable_cpus()
    workers = max(1, min(requested, cpus, n_runs))
    if workers == requested:
        return workers, None
    reason = f"{cpus} CPUs" if cpus < min(requested, n_runs) else f"{n_runs} runs"
    return workers, f"note: {option} {requested} capped at {workers} ({reason})"


def process_alive(pid: int) -> bool:
    """Return whether a process with this pid exists on this machine (a zombie counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except (OSError, OverflowError):  # no process has a pid beyond the C integer range
        return False
    return True


_watched_parent: int | None = None


def exit_with_parent(parent_pid: int, interval: float = 0.5) -> None:
    """In a worker process, exit as soon as ``parent_pid`` (the driver) dies; once per process.

    A daemon thread checks every ``interval`` seconds whether this process was re-parented (the
    driver was its parent and is gone, even if not yet reaped) or the driver no longer exists,
    and then ends the process with ``os._exit`` (no clean-up: the driver that would use the
    results is gone).

    Args:
        parent_pid: The driver's pid.
        interval: Seconds between checks.
    """
    global _watched_parent
    if _watched_parent is not None or os.getpid() == parent_pid:
        return
    _watched_parent = parent_pid
    child_of_driver = os.getppid() == parent_pid

    def watch() -> None:
        while (os.getppid() == parent_pid) if child_of_driver else process_alive(parent_pid):
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="recoursesim-exit-with-parent", daemon=True).start()
