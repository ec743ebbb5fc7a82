"""A per-step schedule of places (``k`` as a list) for top-k and CNS selection."""

import numpy as np
import pytest

from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.selection import CircumstanceNormalisedSelector, TopKSelector
from recoursesim.selection.base import SelectionContext, places_at
from recoursesim.simulate import simulate


def _context(step, n=30, groups=2):
    return SelectionContext(
        step=step,
        agent_id=np.arange(n),
        entry_step=np.zeros(n, dtype=np.int64),
        group=np.arange(n) % groups,
        n_groups=groups,
        features=np.zeros((n, 2)),
        initial_score=np.zeros(n),
        effort_spent=np.zeros(n),
    )


def test_schedule_gives_each_step_its_places_and_the_last_after_the_end():
    assert [places_at((5, 3, 2), t) for t in range(5)] == [5, 3, 2, 2, 2]
    assert places_at(7, 100) == 7
    scores = np.linspace(0, 1, 30)
    for selector in (TopKSelector([6, 4]), CircumstanceNormalisedSelector([6, 4])):
        counts = [int(selector.select(scores, _context(t)).selected.sum()) for t in range(4)]
        assert counts == [6, 4, 4, 4]


@pytest.mark.parametrize(("k", "field"), [([], "k"), ([5, 0], "k[1]"), ([5, 2.5], "k[1]"), ("ten", "k")])
def test_bad_schedules_name_the_field(k, field):
    with pytest.raises(ConfigError) as caught:
        TopKSelector(k)
    assert caught.value.field == field


def test_rising_competition_scenario_cut_off_rises_after_the_cuts():
    result = simulate("rising-competition", seed=0)
    cutoff = result.ledger.groupby("step")["threshold"].first()
    selected = result.ledger.groupby("step")["selected"].sum()
    assert selected.loc[9] == 20 and selected.loc[12] == 10 and selected.loc[18] == 5
    assert cutoff.loc[20] > cutoff.loc[9] + 0.03
    assert (result.durability_summary["validity_5"] < 0.9).all()  # recommendations now expire


def test_german_credit_competition_is_german_credit_with_more_applicants_and_fewer_loans():
    spec = Scenario.bundled("german-credit-competition").spec
    base = Scenario.bundled("german-credit-lending").spec
    assert spec["population"]["entrants"] == 2 * base["population"]["entrants"]
    assert (
        spec["selection"]["k"][0] == base["selection"]["k"]
        and spec["selection"]["k"][-1] == base["selection"]["k"] // 2
    )
    assert spec["scorer"] == base["scorer"] and spec["recourse"] == base["recourse"]
