"""Cheapest move for a separable score gain under a separable cost, vectorised over agents.

The problem, for each agent ``i``::

    minimise   Σ_k u_k y_k  +  Σ_j cost_j(o_j)
    subject to Σ_k s_k y_k  +  Σ_j gain_j(o_j)  >=  need_i
               0 <= y_k <= room_k        (y_k integral for integer features)
               o_j ∈ {stay} ∪ options_j  (at most one option per discrete feature)

``y_k`` is how far numeric or integer feature ``k`` moves in its useful direction (``s_k``
margin gained and ``u_k`` cost paid per unit), and ``o_j`` picks one option (a category, a
rank) of discrete feature ``j``. This is what an additive model (a linear or one-hot logistic
model) with the range-normalised / per-step / per-switch cost turns into.

How it is solved, for all agents at once:

1. Integer features that can move at most ``max_integer_options`` units become discrete options
   (move 1, 2, ... units).
2. The Pareto frontier of (cost, gain) over every combination of discrete options is built one
   feature at a time (a multiple-choice knapsack by dominance): a combination is kept only if it
   gains more than every cheaper one, with gains capped at the need.
3. For each frontier point, the numeric features cover the rest of the need as a fractional
   knapsack (cheapest cost per unit of gain first); its cost is the piecewise-linear convex
   function ``C(r) = Σ_k ρ_k · clip(r - G_k, 0, g_k)`` of the remaining need ``r`` (``ρ_k`` the
   k-th cheapest ratio, ``g_k`` its capacity, ``G_k`` the capacity of the cheaper ones). The
   cheapest frontier point plus its ``C(r)`` is the optimum.

Steps 2 and 3 are exact. An integer feature with a wider range (credit amounts in currency
units, say) is moved like a number and its amount rounded up, which costs at most one unit of
that feature (its cost per unit) more than the optimum; where the fill uses such a feature in
part, rounding it down and covering the rest with the next-cheapest features is tried too, and
the cheaper of the two kept (a duration in months cut by 7 and a little credit, rather than by 8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class DiscreteOptions:
    """The options of one discrete feature for every agent (padded with unusable options).

    Attributes:
        value: ``(n, K)`` code each option sets the feature to.
        gain: ``(n, K)`` margin gained by the option.
        cost: ``(n, K)`` cost of the option (``inf`` marks padding).
    """

    value: np.ndarray
    gain: np.ndarray
    cost: np.ndarray


@dataclass
class SeparableProblem:
    """One step's problem for ``n`` agents (see the module docstring).

    Attributes:
        need: ``(n,)`` margin still missing (``<= 0``: nothing to do).
        slope: ``(n, c)`` margin gained per unit move of each continuous feature (``>= 0``).
        unit: ``(n, c)`` cost per unit move (``> 0``).
        room: ``(n, c)`` how far each may move (``>= 0``).
        integral: ``(c,)`` which continuous features take whole-number moves.
        discrete: One :class:`DiscreteOptions` per discrete feature.
    """

    need: np.ndarray
    slope: np.ndarray
    unit: np.ndarray
    room: np.ndarray
    integral: np.ndarray
    discrete: list[DiscreteOptions]

    def rows(self, index: np.ndarray, need: np.ndarray) -> SeparableProblem:
        """The problem of the agents ``index`` alone, with margin ``need`` still missing.

        Each discrete feature's options stay padded to the largest count of those agents only
        (usable options come first, padding after), as :func:`pareto_options` pads them.
        """
        discrete = []
        for options in self.discrete:
            cost = options.cost[index]
            width = int(np.isfinite(cost).sum(axis=1).max(initial=0))
            discrete.append(DiscreteOptions(options.value[index, :width], options.gain[index, :width], cost[:, :width]))
        return SeparableProblem(need, self.slope[index], self.unit[index], self.room[index], self.integral, discrete)


@dataclass
class SeparableSolution:
    """Cheapest moves: ``amount`` (``(n, c)``), ``choice`` (``(n, J)`` option index or -1), ``cost``, ``feasible``."""

    amount: np.ndarray
    choice: np.ndarray
    cost: np.ndarray
    feasible: np.ndarray


def pareto_options(value: np.ndarray, gain: np.ndarray, cost: np.ndarray, usable: np.ndarray) -> DiscreteOptions:
    """Keep each agent's non-dominated options (positive gain, no cheaper option gaining as much).

    Args:
        value: ``(n, m)`` code of each candidate option.
        gain: ``(n, m)`` margin gained.
        cost: ``(n, m)`` cost.
        usable: ``(n, m)`` which candidates are legal moves for the agent.

    Returns:
        The options, padded to the largest count kept for any agent.
    """
    usable = usable & (gain > 0) & np.isfinite(cost)
    g = np.where(usable, gain, -np.inf)
    c = np.where(usable, cost, np.inf)
    # Option a is dominated by b if b costs no more and gains at least as much, strictly better in
    # one; among exact duplicates the first is kept. In the order cheapest first, then largest gain,
    # then position, an option survives exactly when it gains more than every option before it:
    # O(m log m) per agent, where comparing every pair would need an (n, m, m) array.
    order = np.lexsort((np.broadcast_to(np.arange(g.shape[1]), g.shape), -g, c), axis=1)
    sorted_gain = _along_rows(g, order)
    before = np.maximum.accumulate(
        np.concatenate([np.full((g.shape[0], 1), -np.inf), sorted_gain[:, :-1]], axis=1), axis=1
    )
    keep = np.zeros_like(usable)
    np.put_along_axis(keep, order, sorted_gain > before, axis=1)
    keep &= usable
    width = max(int(keep.sum(axis=1).max(initial=0)), 0)
    order = np.argsort(~keep, axis=1, kind="stable")[:, :width]
    kept = _along_rows(keep, order)
    return DiscreteOptions(
        value=_along_rows(value, order),
        gain=np.where(kept, _along_rows(gain, order), 0.0),
        cost=np.where(kept, _along_rows(cost, order), np.inf),
    )


def solve_separable(problem: SeparableProblem, max_integer_options: int = 128) -> SeparableSolution:
    """Solve :class:`SeparableProblem` for every agent (see the module docstring).

    Args:
        problem: The agents' problems.
        max_integer_options: Integer features that can move at most this many units are
            enumerated unit by unit (exact); the others are moved like numbers and their amount
            rounded up, which costs at most one unit of that feature more than the optimum.

    Returns:
        The moves, their cost (``inf`` where infeasible) and feasibility.
    """
    n, c = problem.slope.shape
    small = problem.integral & (problem.room.max(axis=0, initial=0.0) <= max_integer_options)
    n_discrete = len(problem.discrete)
    stages = [*problem.discrete, *(_unit_steps(problem, int(k)) for k in np.flatnonzero(small))]
    rest = SeparableProblem(
        need=problem.need,
        slope=np.where(small, 0.0, problem.slope),
        unit=problem.unit,
        room=np.where(small, 0.0, problem.room),
        integral=problem.integral,
        discrete=[],
    )
    solution = SeparableSolution(
        amount=np.zeros((n, c)),
        choice=np.full((n, n_discrete), -1, dtype=np.int64),
        cost=np.zeros(n),
        feasible=problem.need <= 0,
    )
    todo = np.flatnonzero(~solution.feasible)
    for start in range(0, todo.size, 256):
        rows = todo[start : start + 256]
        index = np.arange(rows.size)
        trail, gain, cost = _frontier(stages, rows, problem.need[rows])
        ratio, cap, before, order = _knapsack_tables(rest, rows)
        total = cost + _knapsack_cost(problem.need[rows, None] - gain, ratio, cap, before)
        best = np.argmin(total, axis=1)
        ok = np.isfinite(total[index, best])
        left = np.maximum(problem.need[rows] - gain[index, best], 0.0)
        moved = _whole_units(left, _knapsack_amount(left, ratio, cap, before, order, rest.slope[rows]), rest, rows)
        chosen = _backtrack(trail, best)
        for stage, k in enumerate(np.flatnonzero(small), start=n_discrete):
            moved[:, k] = chosen[:, stage] + 1.0
        moved = np.where(ok[:, None], moved, 0.0)
        choice = np.where(ok[:, None], chosen[:, :n_discrete], -1)
        spent = (moved * problem.unit[rows]).sum(axis=1)
        for j, options in enumerate(problem.discrete):
            if options.cost.shape[1]:
                spent = spent + np.where(choice[:, j] >= 0, options.cost[rows, np.maximum(choice[:, j], 0)], 0.0)
        solution.amount[rows] = moved
        solution.choice[rows] = choice
        solution.cost[rows] = spent
        solution.feasible[rows] = ok
    solution.cost[~solution.feasible] = np.inf
    return solution


def _along_rows(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(values, order, axis=1)`` for 2-D arrays, without its per-call checks."""
    return values[np.arange(order.shape[0])[:, None], order]


def _unit_steps(problem: SeparableProblem, k: int) -> DiscreteOptions:
    """Moving integer feature ``k`` by 1, 2, ... units, as discrete options."""
    width = int(problem.room[:, k].max(initial=0.0))
    steps = np.broadcast_to(np.arange(1, width + 1, dtype=float), (problem.need.size, width))
    usable = (steps <= problem.room[:, k, None]) & (problem.slope[:, k, None] > 0)
    return DiscreteOptions(
        value=steps,
        gain=np.where(usable, problem.slope[:, k, None] * steps, 0.0),
        cost=np.where(usable, problem.unit[:, k, None] * steps, np.inf),
    )


def _frontier(
    stages: list[DiscreteOptions], rows: np.ndarray, need: np.ndarray
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray]:
    """Pareto frontier of (cost, gain) over every combination of the stages' options, per agent.

    Built one stage at a time: combine the frontier with the stage's options (or staying), cap
    gains at the need (gaining more is worth nothing), and keep only the combinations that gain
    more than every cheaper one.

    Returns:
        ``(trail, gain, cost)``: per stage, the ``(parent, option)`` of each point of that
        stage's frontier (the point of the previous frontier it extends and the option it adds,
        ``-1``: stay), for :func:`_backtrack`; the final points' gain and cost, ``(r, f)``
        (padding costs ``inf``).
    """
    r = rows.size
    cost = np.zeros((r, 1))
    gain = np.zeros((r, 1))
    trail: list[tuple[np.ndarray, np.ndarray]] = []
    for options in stages:
        k = options.cost.shape[1]
        if k == 0:  # nothing to add: every point stays
            trail.append((np.broadcast_to(np.arange(cost.shape[1]), cost.shape), np.full(cost.shape, -1)))
            continue
        add_cost = np.concatenate([np.zeros((r, 1)), options.cost[rows]], axis=1)
        add_gain = np.concatenate([np.zeros((r, 1)), options.gain[rows]], axis=1)
        cost = (cost[:, :, None] + add_cost[:, None, :]).reshape(r, -1)
        gain = np.minimum((gain[:, :, None] + add_gain[:, None, :]).reshape(r, -1), need[:, None])
        order = np.lexsort((-gain, cost), axis=1)
        cost, gain, source = _kept_points(cost, gain, order)
        parent, option = np.divmod(source, k + 1)
        trail.append((parent, option - 1))
    return trail, gain, cost


def _kept_points(cost: np.ndarray, gain: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points of each row that gain more than every point before them in ``order`` (finite cost only).

    Args:
        cost: ``(r, w)`` cost of each point.
        gain: ``(r, w)`` its gain.
        order: ``(r, w)`` each row's points, cheapest first (ties: largest gain first).

    Returns:
        ``(cost, gain, source)``, ``(r, f)``: the kept points moved to the front of their row in
        ``order``, the rest padded (cost ``inf``, gain 0, source 0); ``source`` is each kept point's
        column in the input; ``f`` is the largest count kept in a row (at least 1).
    """
    r, w = cost.shape
    flat = (order + np.arange(0, r * w, w)[:, None]).ravel()  # sorted points, as flat indices
    sorted_gain = gain.ravel()[flat].reshape(r, w)
    best = np.maximum.accumulate(sorted_gain, axis=1)
    keep = np.empty((r, w), dtype=bool)
    keep[:, 0] = sorted_gain[:, 0] > -np.inf
    np.greater(sorted_gain[:, 1:], best[:, :-1], out=keep[:, 1:])
    keep &= np.isfinite(cost.ravel()[flat]).reshape(r, w)
    counts = keep.sum(axis=1)
    width = max(int(counts.max(initial=0)), 1)
    picked = flat[np.flatnonzero(keep)]  # row by row, in order
    row = np.repeat(np.arange(r), counts)
    slot = np.arange(picked.size) - np.repeat(np.cumsum(counts) - counts, counts)
    into = row * width + slot
    source = np.zeros(r * width, dtype=np.int64)
    source[into] = picked - row * w
    new_cost = np.full(r * width, np.inf)
    new_cost[into] = cost.ravel()[picked]
    new_gain = np.zeros(r * width)
    new_gain[into] = gain.ravel()[picked]
    return new_cost.reshape(r, width), new_gain.reshape(r, width), source.reshape(r, width)


def _backtrack(trail: list[tuple[np.ndarray, np.ndarray]], point: np.ndarray) -> np.ndarray:
    """``(r, stages)``: the option each stage adds on the way to frontier point ``point`` of each row."""
    every = np.arange(point.size)
    picked = np.full((point.size, len(trail)), -1, dtype=np.int64)
    for stage in range(len(trail) - 1, -1, -1):
        parent, option = trail[stage]
        picked[:, stage] = option[every, point]
        point = parent[every, point]
    return picked


def _whole_units(left: np.ndarray, amount: np.ndarray, problem: SeparableProblem, rows: np.ndarray) -> np.ndarray:
    """Whole-number amounts for the integer features of a fractional knapsack fill.

    Each integer amount is rounded up. The greedy fill uses at most one feature in part; when that
    is an integer feature, rounding it down and covering what is left with the next-cheapest
    features (their integer amounts rounded up) is tried too, and kept where it is feasible and
    cheaper.
    """
    slope, unit, room = problem.slope[rows], problem.unit[rows], problem.room[rows]
    integral = problem.integral

    def rounded(values: np.ndarray, limit: np.ndarray) -> np.ndarray:
        return np.where(integral, np.minimum(np.ceil(values - 1e-9), limit), values)

    up = rounded(amount, room)
    part = integral & (up - amount > 1e-9)
    some = np.flatnonzero(part.any(axis=1))
    if some.size == 0:
        return up
    floor_room = np.where(part[some], np.floor(amount[some] + 1e-9), room[some])
    capped = SeparableProblem(left[some], slope[some], unit[some], floor_room, integral, [])
    ratio, cap, before, capped_order = _knapsack_tables(capped, np.arange(some.size))
    down = _knapsack_amount(left[some], ratio, cap, before, capped_order, slope[some])
    down = rounded(down, floor_room)
    covered = (down * slope[some]).sum(axis=1) >= left[some] * (1 - 1e-12) - 1e-12
    cheaper = (down * unit[some]).sum(axis=1) < (up[some] * unit[some]).sum(axis=1)
    better = covered & cheaper
    up[some[better]] = down[better]
    return up


def _knapsack_tables(problem: SeparableProblem, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    slope, unit, room = problem.slope[rows], problem.unit[rows], problem.room[rows]
    useful = (slope > 0) & (room > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(useful, unit / np.where(useful, slope, 1.0), np.inf)
    order = np.argsort(ratio, axis=1, kind="stable")
    ratio = _along_rows(ratio, order)
    cap = _along_rows(np.where(useful, slope * room, 0.0), order)
    before = np.cumsum(cap, axis=1) - cap
    return ratio, cap, before, order


def _knapsack_cost(residual: np.ndarray, ratio: np.ndarray, cap: np.ndarray, before: np.ndarray) -> np.ndarray:
    """``C(r)`` for every combination's residual need ``r`` (``inf`` where the capacity falls short)."""
    r = residual[:, :, None]
    used = np.clip(r - before[:, None, :], 0.0, cap[:, None, :])
    finite_ratio = np.where(np.isfinite(ratio), ratio, 0.0)
    spent = (used * finite_ratio[:, None, :]).sum(axis=2)
    short = residual > cap.sum(axis=1)[:, None] * (1 + 1e-12) + 1e-12
    return np.where(short, np.inf, spent)


def _knapsack_amount(
    left: np.ndarray, ratio: np.ndarray, cap: np.ndarray, before: np.ndarray, order: np.ndarray, slope: np.ndarray
) -> np.ndarray:
    """Per-feature move amounts filling ``left`` greedily (back in the features' own order)."""
    used = np.clip(left[:, None] - before, 0.0, cap)
    amount_sorted = np.zeros_like(used)
    slope_sorted = _along_rows(slope, order)
    np.divide(used, slope_sorted, out=amount_sorted, where=used > 0)
    amount = np.zeros_like(amount_sorted)
    np.put_along_axis(amount, order, amount_sorted, axis=1)
    return amount
