import numpy as np
import pandas as pd
import pytest

from recoursesim.metrics import recourse_over_time, utility_over_time
from recoursesim.reproductions.bell2024 import STRATEGIES, setting_scenario


def test_utility_by_hand():
    ledger = pd.DataFrame(
        {
            "step": [0, 0, 0, 1, 1],
            "agent_id": [0, 1, 2, 1, 2],
            "group": pd.Categorical(["a", "b", "b", "b", "b"]),
            "entry_step": [0, 0, 0, 0, 0],
            "score": [0.9, 0.2, 0.1, 0.6, 0.3],
            "selected": [True, False, False, True, False],
            "effort": [0.0, 0.4, 0.2, 0.0, 0.1],
        }
    )
    u = utility_over_time(ledger).set_index("step")
    assert u.loc[0, "mean_selected_score"] == pytest.approx(0.9)
    assert u.loc[1, "mean_selected_score"] == pytest.approx(0.6)
    assert u.loc[1, "mean_selected_initial_score"] == pytest.approx(0.2)  # agent 1 entered at 0.2
    m = recourse_over_time(ledger).set_index(["step", "group"])
    assert m.loc[(1, "b"), "mean_selected_initial_score"] == pytest.approx(0.2)
    assert np.isnan(m.loc[(1, "a"), "mean_selected_score"])


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_strategy_runs(strategy):
    model = setting_scenario("equal", 1, strategy).with_overrides({"run.steps": 2}).build_model(0).run()
    assert (model.ledger.groupby("step")["selected"].sum() == 100).all()


@pytest.mark.parametrize(
    "strategy, file",
    [("cns", "bell2024-cns"), ("cda", "bell2024-cda"), ("cns+cda", "bell2024-cns-cda"), ("gupta", "bell2024-gupta")],
)
def test_scenario_files_match_the_experiment_strategies(strategy, file):
    # the bundled file and the experiment both start from the strategy's named preset
    from recoursesim.scenario import Scenario

    bundled = Scenario.bundled(file).spec
    experiment = setting_scenario("equal", 2, strategy).spec
    for section in ("population", "selection", "recourse", "behaviour", "training", "scorer", "run"):
        assert bundled.get(section) == experiment.get(section), section


def test_every_strategy_is_a_named_preset():
    from recoursesim.scenario import PRESETS

    assert set(STRATEGIES.values()) <= set(PRESETS)
    assert PRESETS["bell2024-cda"]["training"]["name"] == "cda"
    assert PRESETS["bell2024-cns-cda"]["recourse"]["name"] == "offset_target"  # inherited from bell2024
    assert PRESETS["bell2024"].get("training") is None  # the baseline preset is untouched
