import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, milp

from recoursesim.recourse.separable import (
    DiscreteOptions,
    SeparableProblem,
    _kept_points,
    pareto_options,
    solve_separable,
)


def _milp_cost(problem: SeparableProblem, i: int) -> float:
    """Reference optimum of agent ``i`` by mixed-integer programming (HiGHS)."""
    costs, gains = [problem.unit[i]], [problem.slope[i]]
    upper, integer = [problem.room[i]], [problem.integral.astype(int)]
    groups, offset = [], problem.slope.shape[1]
    for options in problem.discrete:
        usable = np.isfinite(options.cost[i])
        costs.append(np.where(usable, options.cost[i], 0.0))
        gains.append(np.where(usable, options.gain[i], 0.0))
        upper.append(usable.astype(float))
        integer.append(np.ones(usable.size, dtype=int))
        groups.append((offset, usable.size))
        offset += usable.size
    rows = [np.concatenate(gains)]
    for start, k in groups:
        row = np.zeros(offset)
        row[start : start + k] = 1.0
        rows.append(row)
    result = milp(
        np.concatenate(costs),
        constraints=LinearConstraint(
            np.array(rows), [problem.need[i]] + [-np.inf] * len(groups), [np.inf] + [1.0] * len(groups)
        ),
        integrality=np.concatenate(integer),
        bounds=Bounds(0.0, np.concatenate(upper)),
        options={"mip_rel_gap": 1e-9},
    )
    return float(result.fun) if result.success else np.inf


def _problem(seed: int, n: int = 25, integral: bool = False) -> SeparableProblem:
    rng = np.random.default_rng(seed)
    c, m = 3, 4
    discrete = []
    for _ in range(3):
        value = np.tile(np.arange(m), (n, 1))
        discrete.append(
            pareto_options(value, rng.normal(size=(n, m)), rng.uniform(0.1, 1.0, size=(n, m)), rng.random((n, m)) < 0.8)
        )
    room = rng.uniform(0, 2, size=(n, c))
    integ = np.array([integral, False, integral])
    room = np.where(integ, np.floor(room * 3), room)
    return SeparableProblem(
        need=rng.uniform(-0.5, 3.0, size=n),
        slope=np.abs(rng.normal(size=(n, c))),
        unit=rng.uniform(0.2, 1.0, size=(n, c)),
        room=room,
        integral=integ,
        discrete=discrete,
    )


def _check_solution(problem: SeparableProblem, seed: int) -> None:
    fast = solve_separable(problem)
    rows = np.flatnonzero(problem.need > 0)
    reference = np.array([_milp_cost(problem, i) for i in rows])
    np.testing.assert_array_equal(fast.feasible[rows], np.isfinite(reference))
    ok = fast.feasible & (problem.need > 0)
    np.testing.assert_allclose(fast.cost[ok], reference[np.isfinite(reference)], rtol=1e-7, atol=1e-9)
    # the reported cost is the cost of the reported moves, and the moves meet the need
    rows = np.arange(problem.need.size)
    gain = (fast.amount * problem.slope).sum(axis=1)
    cost = (fast.amount * problem.unit).sum(axis=1)
    for j, options in enumerate(problem.discrete):
        pick = fast.choice[:, j]
        used = pick >= 0
        gain[used] += options.gain[rows[used], pick[used]]
        cost[used] += options.cost[rows[used], pick[used]]
    np.testing.assert_allclose(cost[ok], fast.cost[ok], rtol=1e-9, atol=1e-12)
    assert np.all(gain[ok] >= problem.need[ok] - 1e-9)
    assert np.all(fast.amount >= -1e-12) and np.all(fast.amount <= problem.room + 1e-9)
    integ = problem.integral
    np.testing.assert_allclose(fast.amount[:, integ], np.round(fast.amount[:, integ]), atol=1e-9)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_enumeration_matches_milp(seed, integral):
    _check_solution(_problem(seed, integral=integral), seed)


def test_hand_computed_knapsack():
    # need 3: feature 0 gives 2/unit at cost 1/unit (room 1 -> gain 2, cost 1), feature 1 gives 1/unit at cost 1
    # continuous only: 1 unit of f0 (gain 2, cost 1) + 1 unit of f1 (cost 1) = 2.
    # a category switch gaining 3 for cost 1.5 is cheaper.
    options = DiscreteOptions(value=np.array([[5]]), gain=np.array([[3.0]]), cost=np.array([[1.5]]))
    problem = SeparableProblem(
        need=np.array([3.0]),
        slope=np.array([[2.0, 1.0]]),
        unit=np.array([[1.0, 1.0]]),
        room=np.array([[1.0, 5.0]]),
        integral=np.array([False, False]),
        discrete=[options],
    )
    solution = solve_separable(problem)
    assert solution.cost[0] == 1.5 and solution.choice[0, 0] == 0
    np.testing.assert_allclose(solution.amount, 0.0)
    options.cost[0, 0] = 2.5
    solution = solve_separable(problem)
    np.testing.assert_allclose(solution.cost, [2.0])
    np.testing.assert_allclose(solution.amount, [[1.0, 1.0]])
    assert solution.choice[0, 0] == -1


def test_infeasible_is_flagged_not_nan():
    problem = SeparableProblem(
        need=np.array([10.0]),
        slope=np.array([[1.0]]),
        unit=np.array([[1.0]]),
        room=np.array([[1.0]]),
        integral=np.array([False]),
        discrete=[],
    )
    solution = solve_separable(problem)
    assert not solution.feasible[0] and np.isinf(solution.cost[0])


def test_pareto_drops_dominated_and_useless_options():
    value = np.array([[0, 1, 2, 3]])
    gain = np.array([[0.0, 1.0, 0.5, 2.0]])
    cost = np.array([[0.0, 1.0, 2.0, 2.0]])
    kept = pareto_options(value, gain, cost, np.array([[True, True, True, True]]))
    assert sorted(kept.value[0][np.isfinite(kept.cost[0])].tolist()) == [1, 3]


def test_a_wide_integer_used_in_part_is_also_tried_rounded_down():
    # Two integer features moved like numbers (max_integer_options=0). Feature 0: margin 1 per unit at cost 1
    # (ratio 1); feature 1: margin 0.01 per unit at cost 0.0125 (ratio 1.25), room 1000 -> feature 0 fills first.
    def problem(need: float, room1: float) -> SeparableProblem:
        return SeparableProblem(
            need=np.array([need]),
            slope=np.array([[1.0, 0.01]]),
            unit=np.array([[1.0, 0.0125]]),
            room=np.array([[100.0, room1]]),
            integral=np.array([True, True]),
            discrete=[],
        )

    # need 0.3: 0.3 of feature 0 rounds up to 1 unit (cost 1); 0 units and 30 of feature 1 cost 0.375
    solution = solve_separable(problem(0.3, 1000.0), max_integer_options=0)
    np.testing.assert_allclose(solution.amount, [[0.0, 30.0]])
    np.testing.assert_allclose(solution.cost, [0.375])
    # need 2.3: 2 units of feature 0 and 30 of feature 1 cost 2.375, less than 3 units (cost 3)
    solution = solve_separable(problem(2.3, 1000.0), max_integer_options=0)
    np.testing.assert_allclose(solution.amount, [[2.0, 30.0]])
    np.testing.assert_allclose(solution.cost, [2.375])
    # need 0.95: rounding up (cost 1) beats 95 units of feature 1 (cost 1.1875)
    solution = solve_separable(problem(0.95, 1000.0), max_integer_options=0)
    np.testing.assert_allclose(solution.amount, [[1.0, 0.0]])
    # need 0.3 but feature 1 can give only 0.1: rounding down cannot reach the need, so round up
    solution = solve_separable(problem(0.3, 10.0), max_integer_options=0)
    np.testing.assert_allclose(solution.amount, [[1.0, 0.0]])
    assert solution.feasible[0]


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000))
def test_integers_moved_like_numbers_cost_at_most_one_unit_more_than_milp(seed):
    problem = _problem(seed, integral=True)
    fast = solve_separable(problem, max_integer_options=0)
    rows = np.flatnonzero(problem.need > 0)
    reference = np.array([_milp_cost(problem, i) for i in rows])
    np.testing.assert_array_equal(fast.feasible[rows], np.isfinite(reference))
    ok = np.isfinite(reference)
    cost, rows = fast.cost[rows][ok], rows[ok]
    one_unit = np.where(problem.integral, problem.unit, 0.0).max(axis=1)[rows]
    assert np.all(cost >= reference[ok] - 1e-9)
    assert np.all(cost <= reference[ok] + one_unit + 1e-9)
    integ = problem.integral
    np.testing.assert_allclose(fast.amount[:, integ], np.round(fast.amount[:, integ]), atol=1e-9)
    gain = (fast.amount * problem.slope).sum(axis=1)  # the moves meet the need
    for j, options in enumerate(problem.discrete):
        pick = fast.choice[:, j]
        gain += np.where(pick >= 0, options.gain[np.arange(pick.size), np.maximum(pick, 0)], 0.0)
    assert np.all(gain[rows] >= problem.need[rows] - 1e-9)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_a_problem_cut_to_some_agents_is_the_problem_built_for_them(seed, integral):
    """rows(): the options of the agents kept, padded to their own widest count, as pareto_options pads them."""
    rng = np.random.default_rng(seed)
    n, m = 30, 5
    value = np.tile(np.arange(m, dtype=float), (n, 1))
    gain, cost = rng.normal(size=(n, 3, m)), rng.uniform(0.1, 1.0, size=(n, 3, m))
    usable = rng.random((n, 3, m)) < 0.7
    full = _problem(seed, n=n, integral=integral)
    full.discrete = [pareto_options(value, gain[:, j], cost[:, j], usable[:, j]) for j in range(3)]
    index = np.sort(rng.choice(n, size=int(rng.integers(1, n)), replace=False))
    need = rng.uniform(0.0, 3.0, size=index.size)
    cut = full.rows(index, need)
    built = [pareto_options(value[index], gain[index, j], cost[index, j], usable[index, j]) for j in range(3)]
    for mine, theirs in zip(cut.discrete, built, strict=True):
        for field in ("value", "gain", "cost"):
            np.testing.assert_array_equal(getattr(mine, field), getattr(theirs, field))
    np.testing.assert_array_equal(cut.room, full.room[index])
    assert cut.need is need
    alone = SeparableProblem(need, full.slope[index], full.unit[index], full.room[index], full.integral, built)
    a, b = solve_separable(cut), solve_separable(alone)
    for field in ("amount", "choice", "cost", "feasible"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_rows_drops_padding_no_kept_agent_needs():
    options = DiscreteOptions(
        value=np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 0.0]]),
        gain=np.array([[0.5, 1.0, 0.0], [0.2, 0.0, 0.0]]),
        cost=np.array([[0.1, 0.3, np.inf], [0.4, np.inf, np.inf]]),
    )
    ones = np.ones((2, 1))
    problem = SeparableProblem(np.ones(2), ones, ones, ones, np.array([False]), [options])
    second = problem.rows(np.array([1]), np.array([0.7])).discrete[0]
    np.testing.assert_array_equal(second.cost, [[0.4]])
    np.testing.assert_array_equal(second.value, [[3.0]])
    assert problem.rows(np.array([0, 1]), np.ones(2)).discrete[0].cost.shape == (2, 2)


def test_kept_points_hand_computed():
    # row 0: by cost (1, 2, 2, 3, inf) the gains are 1, 3, 2, 3, 9: kept (1, 1), (2, 3); the
    # second cost-2 point and the cost-3 point gain no more than (2, 3), the inf one is padding.
    # row 1: one point kept, padded to the width of row 0.
    cost = np.array([[2.0, 1.0, 3.0, np.inf, 2.0], [5.0, np.inf, 6.0, 7.0, np.inf]])
    gain = np.array([[3.0, 1.0, 3.0, 9.0, 2.0], [4.0, 1.0, 4.0, 2.0, 8.0]])
    order = np.lexsort((-gain, cost), axis=1)
    kept_cost, kept_gain, source = _kept_points(cost, gain, order)
    np.testing.assert_array_equal(kept_cost, [[1.0, 2.0], [5.0, np.inf]])
    np.testing.assert_array_equal(kept_gain, [[1.0, 3.0], [4.0, 0.0]])
    np.testing.assert_array_equal(source, [[1, 0], [0, 0]])


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000))
def test_kept_points_are_each_rows_strict_record_gains(seed):
    rng = np.random.default_rng(seed)
    r, w = int(rng.integers(1, 6)), int(rng.integers(1, 9))
    cost = rng.integers(0, 4, (r, w)).astype(float)
    cost[rng.random((r, w)) < 0.2] = np.inf
    gain = rng.integers(0, 4, (r, w)).astype(float)
    order = np.lexsort((-gain, cost), axis=1)
    kept_cost, kept_gain, source = _kept_points(cost, gain, order)
    for i in range(r):
        best, expected = -np.inf, []
        for j in order[i]:
            if np.isfinite(cost[i, j]) and gain[i, j] > best:
                expected.append(j)
            best = max(best, gain[i, j])
        f = len(expected)
        np.testing.assert_array_equal(source[i, :f], expected)
        np.testing.assert_array_equal(kept_cost[i, :f], cost[i, expected])
        np.testing.assert_array_equal(kept_gain[i, :f], gain[i, expected])
        assert np.all(np.isinf(kept_cost[i, f:])) and np.all(kept_gain[i, f:] == 0) and np.all(source[i, f:] == 0)
    assert kept_cost.shape[1] == max(1, max(int(np.isfinite(kept_cost[i]).sum()) for i in range(r)))
