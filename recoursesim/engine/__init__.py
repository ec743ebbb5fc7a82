"""The engine: the model that runs a scenario step by step, its lenders, and the agents' columnar state.

* :mod:`~recoursesim.engine.model`: :class:`~recoursesim.engine.model.RecourseModel`, the loop
  (one vectorised pass over every agent per step);
* :mod:`~recoursesim.engine.market` and :mod:`~recoursesim.engine.market_step`: the lenders a model
  holds and the phases of a step with several of them;
* :mod:`~recoursesim.engine.agent_table` and :mod:`~recoursesim.engine.agents`: the columnar state
  and the Mesa agents that view its rows.

The engine builds on the component kinds (one layer down) and knows nothing of scenario files,
sweeps or reports (the layers above): see ``docs/architecture.md``.
"""
