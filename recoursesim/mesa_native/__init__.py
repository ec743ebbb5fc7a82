"""Mesa-native entry points: a model with scalar parameters, its reporters, and Mesa's ``Scenario`` form.

``recoursesim sweep`` stays the recommended way to run many seeds (see docs/mesa.md): these
make recoursesim work with the tools Mesa users know (``mesa.batch_run``, ``SolaraViz``, the
data recorders) with the same numbers. :func:`batch_run` runs a grid over seeds on Mesa 3.5
(through ``mesa.batch_run``) and on Mesa 4, which removed it (through Mesa's ``Scenario``).
"""

from recoursesim.mesa_native.batch import batch_run, has_batch_run
from recoursesim.mesa_native.model import AGENT_REPORTERS, SCENARIO_KEYS, ScenarioModel, resolve, scaled_effort
from recoursesim.mesa_native.reporters import GROUP_REPORTERS, MODEL_REPORTERS, reporter_names, step_reporters
from recoursesim.mesa_native.scenario import PARAMETERS, RecourseScenario

__all__ = [
    "AGENT_REPORTERS",
    "GROUP_REPORTERS",
    "MODEL_REPORTERS",
    "PARAMETERS",
    "SCENARIO_KEYS",
    "RecourseScenario",
    "ScenarioModel",
    "batch_run",
    "has_batch_run",
    "reporter_names",
    "resolve",
    "scaled_effort",
    "step_reporters",
]
