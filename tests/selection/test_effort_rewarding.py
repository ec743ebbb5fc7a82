import numpy as np
import pytest

from recoursesim.checks import check_selector
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.selection import EffortRewardingSelector, SelectionContext


def ctx(entry, initial, effort, step=4):
    n = len(entry)
    return SelectionContext(
        step=step,
        agent_id=np.arange(n),
        entry_step=np.asarray(entry),
        group=np.zeros(n, dtype=np.int16),
        n_groups=1,
        features=np.zeros((n, 1)),
        initial_score=np.asarray(initial, dtype=float),
        effort_spent=np.asarray(effort, dtype=float),
    )


# agents:        0     1     2     3     4 (newcomer)
SCORES = np.array([0.90, 0.50, 0.40, 0.45, 0.95])
ENTRY = [0, 0, 1, 2, 4]
INITIAL = [0.85, 0.10, 0.05, 0.40, 0.95]  # improvements: 0.05, 0.40, 0.35, 0.05
EFFORT = [0.1, 0.2, 0.9, 0.3, 0.0]


def test_reserved_place_goes_to_largest_improvement_then_open_places_by_score():
    # k = 2, half reserved: agent 1 (improvement 0.40) takes the reserved place; the open place
    # goes to the best remaining score, the newcomer 4 (0.95)
    sel = EffortRewardingSelector(2, returning_share=0.5).select(SCORES, ctx(ENTRY, INITIAL, EFFORT))
    assert sel.selected.tolist() == [False, True, False, False, True]
    # thresholds: open cut-off 0.95; returning agents may instead reach entry score + 0.40
    np.testing.assert_allclose(sel.threshold, [0.95, 0.50, 0.45, 0.80, 0.95])


def test_effort_measure_rewards_cost_spent():
    sel = EffortRewardingSelector(2, returning_share=0.5, measure="effort").select(SCORES, ctx(ENTRY, INITIAL, EFFORT))
    assert sel.selected.tolist() == [False, False, True, False, True]  # agent 2 spent the most


def test_share_zero_is_top_k_and_share_one_ignores_newcomers():
    top = EffortRewardingSelector(2, returning_share=0.0).select(SCORES, ctx(ENTRY, INITIAL, EFFORT))
    assert top.selected.tolist() == [True, False, False, False, True]
    only = EffortRewardingSelector(2, returning_share=1.0).select(SCORES, ctx(ENTRY, INITIAL, EFFORT))
    assert only.selected.tolist() == [False, True, True, False, False]


def test_min_improvement_leaves_places_open():
    sel = EffortRewardingSelector(2, returning_share=1.0, min_improvement=0.38).select(
        SCORES, ctx(ENTRY, INITIAL, EFFORT)
    )
    assert sel.selected.tolist() == [False, True, False, False, True]  # one qualifies; the other place is open


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_bad_share(share):
    with pytest.raises(ConfigError, match=r"^returning_share"):
        EffortRewardingSelector(3, returning_share=share)


def test_conformance_and_in_a_run():
    check_selector(EffortRewardingSelector(5))
    check_selector(EffortRewardingSelector(5, measure="effort", returning_share=0.8))
    spec = Scenario.bundled("default").spec | {"selection": {"name": "effort_rewarding", "k": 20}}
    ledger = Scenario.from_dict(spec).build_model(1).run().ledger
    assert (ledger.groupby("step")["selected"].sum() == 20).all()
