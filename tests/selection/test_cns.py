import numpy as np
import pytest

from recoursesim.checks import check_selector
from recoursesim.selection import CircumstanceNormalisedSelector, SelectionContext, group_quotas


def ctx(group, n_groups=2, entry=None):
    group = np.asarray(group, dtype=np.int16)
    n = group.size
    return SelectionContext(
        step=3,
        agent_id=np.arange(n),
        entry_step=np.zeros(n, dtype=int) if entry is None else np.asarray(entry),
        group=group,
        n_groups=n_groups,
        features=np.zeros((n, 2)),
        initial_score=np.zeros(n),
        effort_spent=np.zeros(n),
    )


@pytest.mark.parametrize(
    "k, sizes, best, equal, expected",
    [
        (5, [6, 4], [1, 1], False, [3, 2]),  # 5*6/10 = 3, 5*4/10 = 2
        (4, [1, 9], [1, 1], False, [0, 4]),  # 0.4 / 3.6: floor 0/3, the larger remainder (0.6) gets the last place
        (4, [1, 9], [1, 1], True, [1, 3]),  # equal 2/2, group 0 has 1 agent: its surplus goes to group 1
        (2, [5, 5, 5], [0.9, 0.5, 0.95], False, [1, 0, 1]),  # k < groups: equal remainders, best scores win
        (10, [3, 0, 4], [1, -np.inf, 1], False, [3, 0, 4]),  # fewer agents than k: everybody
        (6, [0, 8], [-np.inf, 1], True, [0, 6]),  # an empty group gets nothing
    ],
)
def test_group_quotas_by_hand(k, sizes, best, equal, expected):
    assert group_quotas(k, np.array(sizes), np.array(best, dtype=float), equal=equal).tolist() == expected


def test_cns_top_scores_within_each_group_and_thresholds():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.3, 0.2, 0.1, 0.05])
    group = [0, 0, 0, 0, 1, 1, 1, 1]
    sel = CircumstanceNormalisedSelector(4).select(scores, ctx(group))
    assert sel.selected.tolist() == [True, True, False, False, True, True, False, False]
    # per-group cut-offs: group 0 -> 0.8, group 1 -> 0.2
    np.testing.assert_allclose(sel.threshold, [0.8] * 4 + [0.2] * 4)
    ref = CircumstanceNormalisedSelector(4, quota="equal", threshold="max").select(scores, ctx(group))
    assert ref.selected.tolist() == sel.selected.tolist() and ref.threshold == 0.8


def test_cns_ties_within_group_go_to_longest_waiting():
    scores = np.array([0.5, 0.5, 0.5, 0.1])
    # equal quota: one place per group; in group 0 three agents tie, agent 1 has waited longest
    sel = CircumstanceNormalisedSelector(2, quota="equal").select(scores, ctx([0, 0, 0, 1], entry=[3, 1, 2, 0]))
    assert sel.selected.tolist() == [False, True, False, True]


def test_cns_warns_on_empty_group_and_small_k():
    with pytest.warns(RuntimeWarning, match="no agents"):
        sel = CircumstanceNormalisedSelector(2).select(np.array([0.1, 0.2, 0.3]), ctx([0, 0, 0], n_groups=2))
    assert sel.selected.sum() == 2
    with pytest.warns(RuntimeWarning, match="smaller than the number"):
        sel = CircumstanceNormalisedSelector(1).select(np.array([0.1, 0.9]), ctx([0, 1]))
    assert sel.selected.tolist() == [False, True]
    assert np.isfinite(sel.threshold).all()  # the group with no place gets the highest cut-off


def test_cns_passes_conformance():
    check_selector(CircumstanceNormalisedSelector(10))
    check_selector(CircumstanceNormalisedSelector(3, quota="equal", threshold="max"))
