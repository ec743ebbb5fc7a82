import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.errors import ConfigError
from recoursesim.selection import SelectionContext, ThresholdSelector, TopKSelector


def context(n, entry_step=None, agent_id=None):
    return SelectionContext(
        step=5,
        agent_id=np.arange(n) if agent_id is None else np.asarray(agent_id),
        entry_step=np.zeros(n, dtype=int) if entry_step is None else np.asarray(entry_step),
        group=np.zeros(n, dtype=int),
        n_groups=1,
        features=np.zeros((n, 1)),
        initial_score=np.zeros(n),
        effort_spent=np.zeros(n),
    )


def test_top_k_picks_highest_scores_and_threshold_is_lowest_selected():
    scores = np.array([0.1, 0.9, 0.5, 0.7, 0.3])
    sel = TopKSelector(2).select(scores, context(5))
    assert sel.selected.tolist() == [False, True, False, True, False]
    assert sel.threshold == 0.7


def test_top_k_ties_go_to_longest_waiting_then_lowest_id():
    # three agents tie at 0.5 for the last two places: agent 4 entered at step 1, agents 2 and 3
    # at step 3 -> agent 4 wins first, then the lower id of {2, 3}
    scores = np.array([0.9, 0.1, 0.5, 0.5, 0.5])
    sel = TopKSelector(3).select(scores, context(5, entry_step=[0, 0, 3, 3, 1], agent_id=[10, 11, 12, 13, 14]))
    assert sel.selected.tolist() == [True, False, True, False, True]
    assert sel.threshold == 0.5


def test_fewer_than_k_agents_all_selected():
    sel = TopKSelector(10).select(np.array([0.3, 0.2]), context(2))
    assert sel.selected.all()
    assert sel.threshold == 0.2


def test_threshold_selector():
    sel = ThresholdSelector(0.5).select(np.array([0.49, 0.5, 0.8]), context(3))
    assert sel.selected.tolist() == [False, True, True]
    assert sel.threshold == 0.5


@pytest.mark.parametrize("k", [0, -3, 2.5, "ten", True])
def test_bad_k_is_rejected_with_field_name(k):
    with pytest.raises(ConfigError, match=r"^k: "):
        TopKSelector(k)


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]) | st.floats(0, 1), min_size=0, max_size=60),
    k=st.integers(1, 80),
)
def test_exactly_min_k_n_selected_and_no_unselected_beats_a_selected(scores, k):
    scores = np.asarray(scores, dtype=float)
    original = scores.copy()
    sel = TopKSelector(k).select(scores, context(scores.size))
    assert sel.selected.sum() == min(k, scores.size)
    np.testing.assert_array_equal(scores, original)  # inputs not mutated
    if sel.selected.any() and (~sel.selected).any():
        assert scores[~sel.selected].max() <= scores[sel.selected].min()
        assert sel.threshold == scores[sel.selected].min()
