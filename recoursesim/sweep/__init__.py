"""Monte Carlo sweeps: seeds × parameter grids, streamed to disk, resumable, local or on a Dask cluster.

```python
from recoursesim.scenario import load_scenario
from recoursesim.sweep import JoblibExecutor, SweepPlan, run_sweep, summarise

plan = SweepPlan.from_grid(load_scenario("default"), {"selection.k": [10, 20]}, n_seeds=50)
with JoblibExecutor(2) as executor:
    report = run_sweep(plan, "results/sweep-k", executor=executor)
table = summarise("results/sweep-k")  # mean, SEM, 95% CI per (selection.k, step, group, metric)
```

Modules: :mod:`~recoursesim.sweep.plan` (grid points × spawned seeds),
:mod:`~recoursesim.sweep.identity` (run and sweep hashes), :mod:`~recoursesim.sweep.executors`
(joblib or Dask), :mod:`~recoursesim.sweep.worker` (one run → one shard),
:mod:`~recoursesim.sweep.store` (directory layout, manifest, atomic writes),
:mod:`~recoursesim.sweep.runner` (the loop), :mod:`~recoursesim.sweep.summarise` (aggregation),
:mod:`~recoursesim.sweep.progress` (the bar).
"""

from recoursesim.sweep.executors import DaskExecutor, Executor, JoblibExecutor, make_executor
from recoursesim.sweep.plan import Point, RunTask, SweepPlan, parse_grid
from recoursesim.sweep.runner import SweepAbortedError, SweepReport, run_sweep
from recoursesim.sweep.store import SweepStore
from recoursesim.sweep.summarise import iter_point_results, summarise
from recoursesim.sweep.worker import RunOutcome, execute

__all__ = [
    "DaskExecutor",
    "Executor",
    "JoblibExecutor",
    "Point",
    "RunOutcome",
    "RunTask",
    "SweepAbortedError",
    "SweepPlan",
    "SweepReport",
    "SweepStore",
    "execute",
    "iter_point_results",
    "make_executor",
    "parse_grid",
    "run_sweep",
    "summarise",
]
