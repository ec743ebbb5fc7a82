"""The sweep loop: plan → executor → one shard per run on disk, resumable, failures recorded."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

from recoursesim.errors import ConfigError, RecourseSimError, os_cause
from recoursesim.sweep.executors import Counted, Executor, JoblibExecutor
from recoursesim.sweep.plan import RunTask, SweepPlan
from recoursesim.sweep.progress import progress_bar
from recoursesim.sweep.store import SweepStore
from recoursesim.sweep.worker import RunOutcome, execute


class SweepAbortedError(RecourseSimError):
    """The executor itself failed (a worker process died, the cluster went away) part-way through.

    Every run finished before the failure has its shard; ``resume`` continues from there.
    """


@dataclass(frozen=True)
class SweepReport:
    """What a sweep session did.

    Attributes:
        directory: The sweep's output directory.
        sweep_id: The sweep's identity.
        n_runs: Runs in the plan.
        skipped: Runs already finished before this session (``resume``).
        succeeded: Runs finished in this session.
        failures: Failure records of this session's failed runs (point, params, seed, error).
        seconds: Wall time of this session.
        executor: Description of the executor.
        run_seconds: Sum of the workers' wall time inside runs (busy time; divided by ``seconds``,
            the mean number of busy workers).
    """

    directory: Path
    sweep_id: str
    n_runs: int
    skipped: int
    succeeded: int
    failures: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    executor: str = ""
    run_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether every run of the plan has a shard."""
        return not self.failures and self.skipped + self.succeeded == self.n_runs


def run_sweep(
    plan: SweepPlan,
    out: str | Path,
    *,
    executor: Executor | None = None,
    resume: bool = False,
    progress: bool = True,
    runner: Callable[[RunTask], RunOutcome] = execute,
) -> SweepReport:
    """Run every not-yet-finished run of ``plan``, writing one Parquet shard per run into ``out``.

    Results stream to disk as runs finish: the driver keeps no results in memory. A run that
    raises is recorded in ``out/errors/`` and the sweep goes on. Run identities depend only on
    (scenario, parameters, seed), so ``resume`` skips exactly the runs whose shard exists and
    matches the size and checksum recorded when it was written, however the earlier session
    ended; a truncated or changed shard is run again. A write that fails (a full disk) stops the
    sweep with a :class:`~recoursesim.errors.ConfigError`; the runs finished before it are kept.

    Args:
        plan: The sweep.
        out: Output directory (new or empty, or holding this same sweep with ``resume``).
        executor: Where runs execute (default: one process, this one). It is not closed here.
        resume: Continue a sweep already in ``out``.
        progress: Show a progress bar with ETA on stderr.
        runner: The per-run function (``execute``; replaceable for testing and extensions).

    Returns:
        The session's report.

    Raises:
        ConfigError: ``out`` holds something else, another sweep is writing into it, or writing
            into it failed (the message says how to continue with ``resume``).
        SweepAbortedError: The executor failed; the finished runs are kept.
    """
    start = time.perf_counter()
    store = SweepStore(out)
    store.prepare(plan, resume=resume)
    own_executor = executor is None
    executor = executor or JoblibExecutor(1)
    try:
        with store.lock():
            store.remove_partial_files()
            finished, bad = store.verified()
            if bad and progress:
                print(
                    f"note: {len(bad)} shard(s) in {store.runs_dir} are truncated or changed since they were "
                    "written; those runs run again",
                    file=sys.stderr,
                )
            skipped = sum(t.run_id in finished for t in plan.tasks())
            pending = Counted((t for t in plan.tasks() if t.run_id not in finished), plan.n_runs - skipped)
            succeeded = 0
            run_seconds = 0.0
            failures: list[dict[str, Any]] = []
            bar = progress_bar(plan.n_runs, skipped, enabled=progress)
            try:
                for outcome in executor.map_unordered(runner, pending, key=attrgetter("run_id")):
                    task = outcome.task
                    run_seconds += outcome.seconds
                    try:
                        if outcome.ok and outcome.shard is not None:
                            store.record_success(task.run_id, outcome.shard)
                            succeeded += 1
                        else:
                            failures.append(store.record_failure(task, outcome.error or "", outcome.traceback or ""))
                            bar.set_postfix_str(f"{len(failures)} failed")
                    except OSError as error:
                        raise _write_failed(store, task, error, skipped + succeeded) from None
                    bar.update(1)
            except RecourseSimError:
                raise
            except Exception as error:
                done = skipped + succeeded + len(failures)
                raise SweepAbortedError(
                    f"the executor ({executor.description}) failed after {done}/{plan.n_runs} runs: "
                    f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}; "
                    f"the finished runs are kept in {store.directory}: rerun with --resume"
                ) from error
            finally:
                bar.close()
    finally:
        if own_executor:
            executor.close()
    failures.sort(key=lambda f: (f["point"], f["seed_index"]))
    return SweepReport(
        store.directory,
        plan.sweep_id,
        plan.n_runs,
        skipped,
        succeeded,
        failures,
        time.perf_counter() - start,
        executor.description,
        run_seconds,
    )


def _write_failed(store: SweepStore, task: RunTask, error: OSError, kept: int) -> ConfigError:
    """The one-line error of a failed write (a full disk, say): the sweep stops and can be resumed."""
    cause, fix = os_cause(error)
    return ConfigError(
        "--out",
        f"writing run {task.run_id} into {store.directory} failed ({cause}); the {kept} finished runs are kept",
        f"{fix}, then continue with --resume",
    )
