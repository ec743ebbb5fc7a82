import mesa
import numpy as np

from recoursesim.engine.agents import RecourseAgent
from recoursesim.scenario import Scenario


def test_agents_are_views_kept_in_sync():
    model = Scenario.bundled("default").build_model(3)
    assert len(model.agents) == 200  # views created on first access
    model.step()
    assert len(model.agents) == 200  # 20 left, 20 joined
    ids = sorted(a.unique_id for a in model.agents)
    assert ids == sorted(model.waiting_ids.tolist())
    agent = model.agents.select(lambda a: a.unique_id == ids[0]).to_list()[0]
    assert isinstance(agent, RecourseAgent)
    np.testing.assert_array_equal(agent.features, model.table.features[ids[0]])
    assert agent.group in ("advantaged", "disadvantaged")
    assert agent.waiting


def test_agentset_select_and_datacollector():
    model = Scenario.bundled("default").build_model(4)
    collector = mesa.DataCollector(
        model_reporters={"waiting": lambda m: len(m.agents), "threshold": lambda m: m.threshold},
        agent_reporters={"score": "score", "group": "group"},
    )
    for _ in range(3):
        model.step()
        collector.collect(model)
    frame = collector.get_model_vars_dataframe()
    assert frame["waiting"].tolist() == [200, 200, 200]
    agents = collector.get_agent_vars_dataframe()
    assert len(agents) == 600
    # the 20 entrants that just joined are not scored yet: their score is the current model's, never NaN
    assert agents["score"].notna().all()
    disadvantaged = model.agents.select(lambda a: a.group == "disadvantaged")
    assert 0 < len(disadvantaged) < 200


def test_views_cost_nothing_when_unused(monkeypatch):
    created = []
    original = RecourseAgent.__init__

    def counting_init(self, model, agent_id):
        created.append(agent_id)
        original(self, model, agent_id)

    monkeypatch.setattr(RecourseAgent, "__init__", counting_init)
    model = Scenario.bundled("default").build_model(5).run()
    assert model._views is None
    assert created == []  # no agent view was ever made, not even for entrants
    assert len(mesa.Model.agents.fget(model)) == 0  # Mesa holds no agents either
    waiting = len(model.waiting_ids)
    assert len(model.agents) == waiting == len(created) > 0  # first access makes one view per waiting agent
