"""Gymnasium environment: an agent sets each step's selection policy (needs the ``policy`` extra).

```python
from recoursesim.gym import RecourseEnv

env = RecourseEnv("default", action="quotas")
observation, info = env.reset(seed=0)
observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
```

Importing this module imports Gymnasium and registers the environment as ``recoursesim/Recourse-v0``
(``gymnasium.make("recoursesim/Recourse-v0", scenario="default", action="k")``).
"""

from recoursesim.gym.env import ACTIONS, GROUP_FEATURES, RecourseEnv, StepPolicy, gymnasium

ENV_ID = "recoursesim/Recourse-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="recoursesim.gym.env:RecourseEnv")

__all__ = ["ACTIONS", "ENV_ID", "GROUP_FEATURES", "RecourseEnv", "StepPolicy"]
