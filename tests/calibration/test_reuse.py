"""A calibration's runs reuse what does not change between them; each run is the one a plain ``simulate`` makes."""

import pandas as pd
import pytest

from recoursesim.calibration import PanelSimulator
from recoursesim.errors import ConfigError
from recoursesim.policy.space import parse_ranges
from recoursesim.populations.dataset import _bundled_codes
from recoursesim.registry import constructor_signature
from recoursesim.reproductions import calibration_recovery as experiment
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate


@pytest.mark.parametrize("label", ["bell2024", "german-credit"])
def test_runs_through_the_simulator_equal_runs_built_afresh(label):
    table, items = experiment.SCENARIOS[label]
    scenario = Scenario.from_dict({**table, "run": {"steps": 3, "seed": 0}})
    ranges = tuple(parse_ranges(items))
    simulator = PanelSimulator(scenario, ranges, ("approvals",), 3, ())
    # Different values, and seeds, between runs: a part reused across runs that should have been
    # rebuilt (a population with the last run's effort, a model fitted on the last run's split) fails.
    draws = [(0.25, 11), (0.75, 12), (0.25, 13)]
    reused = [simulator.run({r.key: r.low + share * (r.high - r.low) for r in ranges}, seed) for share, seed in draws]
    for (share, seed), result in zip(draws, reused, strict=True):
        overrides = {r.key: r.value(r.low + share * (r.high - r.low)) for r in ranges}
        constructor_signature.cache_clear()  # built afresh: nothing read once per process is kept
        _bundled_codes.cache_clear()
        fresh = simulate(scenario.with_overrides(overrides), seed)
        pd.testing.assert_frame_equal(result.ledger, fresh.ledger, check_exact=True)
        assert result.scenario.spec == fresh.scenario.spec
    assert not reused[0].ledger.equals(reused[1].ledger)


def test_overrides_without_validation_set_the_same_table_and_still_refuse_a_key_the_scenario_lacks():
    scenario = Scenario.from_dict({"base": "bell2024-baseline", "run": {"steps": 2, "seed": 0}})
    checked = scenario.with_overrides({"population.q": 2.5, "selection.k": 7})
    unchecked = scenario.with_overrides({"population.q": 2.5, "selection.k": 7}, validate=False)
    assert unchecked.spec == checked.spec
    assert scenario.spec["population"]["q"] != 2.5  # the original is not changed
    with pytest.raises(ConfigError, match=r"populaton\.q: is not a scenario key"):
        scenario.with_overrides({"populaton.q": 1.0}, validate=False)
