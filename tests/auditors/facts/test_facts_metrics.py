"""Every Section 2.3 metric on a tiny hand-built evaluation.

Subgroup 0: group 0 has members m1..m4, group 1 has n1, n2. Three valid actions:
    a0 (cost 1) works for m1, n1, n2
    a1 (cost 2) works for m2
    a2 (cost 3) works for m1, m3, n1
so eff0 = [1/4, 1/4, 2/4], eff1 = [2/2, 0/2, 1/2];
recourse costs (cheapest working action): m1 = 1, m2 = 2, m3 = 3, m4 = inf; n1 = 1, n2 = 1.
Subgroup 1: two members per group, one action (cost 1) that works for nobody.
"""

import math

import numpy as np
import pytest

from recoursesim.auditors.facts import metrics as fm
from recoursesim.auditors.facts.effects import Evaluation


@pytest.fixture
def ev() -> Evaluation:
    return Evaluation(
        pair_subgroup=np.array([0, 0, 0, 1]),
        pair_action=np.array([0, 1, 2, 0]),
        pair_cost=np.array([1.0, 2.0, 3.0, 1.0]),
        pair_hits=np.array([[1, 2], [1, 0], [2, 1], [0, 0]]),
        sizes=np.array([[4, 2], [2, 2]]),
        member_indptr=np.array([0, 6, 10]),
        member_index=np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        member_group=np.array([0, 0, 0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int8),
        member_cost=np.array([1, 2, 3, np.inf, 1, 1, np.inf, np.inf, np.inf, np.inf], dtype=np.float32),
        n_counterfactuals=0,
        n_applications=0,
        n_model_calls=0,
    )


def pair(fn, ev, *args):
    return fn(ev, 0, *args), fn(ev, 1, *args)


def test_equal_effectiveness(ev):
    # micro: group 0: m1, m2, m3 have some working action -> 3/4; group 1: 2/2.
    micro0, micro1 = pair(fm.micro_effectiveness, ev)
    assert micro0.tolist() == [0.75, 0.0] and micro1.tolist() == [1.0, 0.0]
    # macro: best single action: group 0 max(1/4, 1/4, 2/4) = 1/2; group 1 max(1, 0, 1/2) = 1.
    macro0, macro1 = pair(fm.macro_effectiveness, ev)
    assert macro0.tolist() == [0.5, 0.0] and macro1.tolist() == [1.0, 0.0]
    score, against = fm.compare(macro0, macro1, higher_is_better=True)
    assert score.tolist() == [0.5, 0.0] and against.tolist() == [0, -1]


def test_equal_choice_for_recourse(ev):
    # phi = 0.5: group 0 only a2 (2/4); group 1 a0 (1) and a2 (1/2) -> |1 - 2| = 1 against group 0.
    c0, c1 = pair(fm.choice_count, ev, 0.5)
    assert c0.tolist() == [1, 0] and c1.tolist() == [2, 0]
    score, against = fm.compare(c0, c1, True)
    assert score.tolist() == [1, 0] and against.tolist() == [0, -1]
    # phi = 0.3: still 1 vs 2 (1/4 < 0.3).
    assert pair(fm.choice_count, ev, 0.3)[0].tolist() == [1, 0]


def test_equal_effectiveness_within_budget(ev):
    # c = 2 micro: costs <= 2: m1, m2 -> 2/4; n1, n2 -> 1.   macro: actions a0, a1: 1/4 vs 1.
    assert pair(fm.micro_within_budget, ev, 2.0)[0].tolist() == [0.5, 0.0]
    assert pair(fm.micro_within_budget, ev, 2.0)[1].tolist() == [1.0, 0.0]
    assert pair(fm.macro_within_budget, ev, 2.0)[0].tolist() == [0.25, 0.0]
    assert pair(fm.macro_within_budget, ev, 2.0)[1].tolist() == [1.0, 0.0]
    # c = 0.5: nothing is affordable: 0 for both (never inf), so fair.
    for fn in (fm.micro_within_budget, fm.macro_within_budget):
        v0, v1 = pair(fn, ev, 0.5)
        assert v0.tolist() == [0.0, 0.0] and v1.tolist() == [0.0, 0.0]
        assert fm.compare(v0, v1, True)[0].tolist() == [0.0, 0.0]


def test_equal_cost_of_effectiveness(ev):
    # micro phi = 0.5: group 0 needs ceil(0.5*4) = 2 people: sorted costs [1, 2, 3, inf] -> 2;
    # group 1 needs 1 -> 1.  macro: cheapest action with eff >= 0.5: a2 (3) vs a0 (1).
    m0, m1 = pair(fm.micro_cost_of_effectiveness, ev, 0.5)
    assert m0[0] == 2 and m1[0] == 1
    M0, M1 = pair(fm.macro_cost_of_effectiveness, ev, 0.5)
    assert M0[0] == 3 and M1[0] == 1
    assert fm.compare(M0, M1, higher_is_better=False)[0][0] == 2
    # phi = 1: group 0 never reaches it (inf), group 1 does at cost 1 -> score inf against group 0.
    m0, m1 = pair(fm.micro_cost_of_effectiveness, ev, 1.0)
    assert math.isinf(m0[0]) and m1[0] == 1
    score, against = fm.compare(m0, m1, False)
    assert math.isinf(score[0]) and against[0] == 0
    # Subgroup 1: nobody has recourse in either group: inf vs inf -> fair (score 0, no bias).
    assert math.isinf(m0[1]) and math.isinf(m1[1])
    assert score[1] == 0 and against[1] == -1


def test_fair_effectiveness_cost_tradeoff(ev):
    # micro ECDFs at costs 1, 2, 3: group 0 = 1/4, 2/4, 3/4; group 1 = 1, 1, 1 -> max gap 3/4.
    stat, against = fm.micro_ks(ev)
    assert stat[0] == pytest.approx(0.75) and against[0] == 0
    # macro: running max by cost: group 0 = 1/4, 1/4, 1/2; group 1 = 1, 1, 1 -> 3/4.
    stat, against = fm.macro_ks(ev)
    assert stat[0] == pytest.approx(0.75) and against[0] == 0
    assert stat[1] == 0
    # alpha rule: sqrt(-ln(0.025) * (4 + 2) / (2 * 4 * 2)) = 1.1762 > 0.75 -> fair at alpha 0.05.
    critical = fm.ks_critical(np.array([4]), np.array([2]), 0.05)
    assert critical[0] == pytest.approx(math.sqrt(-math.log(0.025) * 6 / 16))


def test_ks_uses_cost_axis_not_action_order():
    # Same actions for both groups, listed in different order of effectiveness per group: the
    # statistic must compare curves at equal cost. Actions: cost 1 works for 1/2 (g0), 0 (g1);
    # cost 2 works for 0 (g0), 1/2 (g1). ecd at c=1: 1/2 vs 0; at c=2: 1/2 vs 1/2 -> 1/2.
    ev = Evaluation(
        pair_subgroup=np.array([0, 0]),
        pair_action=np.array([0, 1]),
        pair_cost=np.array([2.0, 1.0]),
        pair_hits=np.array([[0, 1], [1, 0]]),
        sizes=np.array([[2, 2]]),
        member_indptr=np.array([0, 4]),
        member_index=np.arange(4),
        member_group=np.array([0, 0, 1, 1], dtype=np.int8),
        member_cost=np.array([1, np.inf, 2, np.inf], dtype=np.float32),
        n_counterfactuals=0,
        n_applications=0,
        n_model_calls=0,
    )
    stat, against = fm.macro_ks(ev)
    assert stat[0] == pytest.approx(0.5) and against[0] == 1
    stat, against = fm.micro_ks(ev)
    assert stat[0] == pytest.approx(0.5) and against[0] == 1


def test_conditional_mean_recourse(ev):
    # group 0: (1 + 2 + 3) / 3 = 2 (m4 excluded); group 1: (1 + 1) / 2 = 1.
    v0, v1 = pair(fm.conditional_mean_recourse, ev)
    assert v0[0] == 2 and v1[0] == 1
    assert math.isinf(v0[1]) and math.isinf(v1[1])


def test_compare_tolerance_and_dense_rank():
    score, against = fm.compare(np.array([0.5, 0.3, 1.0, 0.2]), np.array([0.5 + 1e-12, 0.1, 0.0, 0.4]), True)
    assert score[0] == 0 and against[0] == -1
    rank = fm.dense_rank(np.array([np.inf, 0.2, np.inf, 0.0, 0.2, 0.1]))
    assert rank.tolist() == [1, 2, 1, 0, 2, 3]
