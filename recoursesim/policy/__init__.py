"""Policy studies: which scenario fields drive a metric, and which policy meets the objectives best.

```python
from pathlib import Path

from recoursesim.policy import design, parse_metric, parse_ranges, run_sensitivity
from recoursesim.scenario import load_scenario

out = Path("results/sens")
out.mkdir(parents=True)  # the analysis's directory; its sweep goes into out / "sweep"
ranges = parse_ranges(["selection.k=10:40", "population.entrants=5:30"])
the_design = design(ranges, "sobol", 16)
result = run_sensitivity(load_scenario("default"), the_design, parse_metric("dTTR:disadvantaged"),
                         out / "sweep", n_seeds=4)
result.indices  # S1, ST with bootstrap intervals, rank
result.write(out)  # samples.parquet, indices.parquet, sensitivity.png, sensitivity.json
```

Modules: :mod:`~recoursesim.policy.space` (ranges, choices, metrics),
:mod:`~recoursesim.policy.sensitivity` (SALib designs on the sweep engine),
:mod:`~recoursesim.policy.objectives` (objectives, constraints, Pareto dominance),
:mod:`~recoursesim.policy.optimise` (the Optuna search), :mod:`~recoursesim.policy.figures`,
:mod:`~recoursesim.policy.discover` (scenario discovery: the EMA Workbench's PRIM over a sweep),
:mod:`~recoursesim.policy.ema` (a scenario as an EMA Workbench model),
:mod:`~recoursesim.policy.robust` (regret and satisficing robustness of candidate policies).
SALib, Optuna and Gymnasium come with the ``policy`` extra, the EMA Workbench with the ``ema``
extra; all are imported only when used.
"""

from recoursesim.policy.objectives import Constraint, Objective, parse_constraint, parse_objective
from recoursesim.policy.optimise import PolicySearch, PolicySpace
from recoursesim.policy.search_files import policy_toml
from recoursesim.policy.sensitivity import (
    SensitivityDesign,
    SensitivityResult,
    analyse,
    design,
    run_sensitivity,
    sample_frame,
    seed_noise_share,
)
from recoursesim.policy.space import Choice, MetricSpec, ParamRange, parse_choices, parse_metric, parse_ranges

__all__ = [
    "Choice",
    "Constraint",
    "MetricSpec",
    "Objective",
    "ParamRange",
    "PolicySearch",
    "PolicySpace",
    "SensitivityDesign",
    "SensitivityResult",
    "analyse",
    "design",
    "parse_choices",
    "parse_constraint",
    "parse_metric",
    "parse_objective",
    "parse_ranges",
    "policy_toml",
    "run_sensitivity",
    "sample_frame",
    "seed_noise_share",
]
