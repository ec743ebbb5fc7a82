"""Model-agnostic recourse by probing and search: needs only the model's scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

import numpy as np

from recoursesim._validate import check_float, check_int
from recoursesim.component import RunContext
from recoursesim.recourse.mixed import MixedRecourse, link_of, to_margin
from recoursesim.recourse.probe_cache import ProbeCache, score_distinct
from recoursesim.recourse.separable import solve_separable
from recoursesim.recourse.spheres import growing_spheres
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer, score_edits


@register("recourse", "search", "growing_spheres")
@dataclass(eq=False, repr=False)
class SearchRecourse(MixedRecourse):
    """A cheap legal point the model accepts, found with nothing but the model's scores.

    For every agent below the cut-off, in one batch per phase:

    1. **Probe.** Score the agent with one feature changed at a time: each numeric/integer
       feature moved to the edge of its legal range in either direction, each discrete feature
       set to each legal category (for a categorical feature with many categories, only the few
       that raise the score most on a sample of agents, chosen once per model). This gives, per
       agent, how much each single change moves the score (on the log-odds scale for
       probabilities). Probes are remembered per profile while the model stays the same
       (:class:`~recoursesim.recourse.probe_cache.ProbeCache`), and agents with the same features
       and cut-off are searched once.
    2. **Solve the probed model.** Treat those effects as additive and find the cheapest
       combination reaching the cut-off exactly (:func:`~recoursesim.recourse.separable.solve_separable`),
       then score it. Where the real model disagrees (interactions, curvature), the missing
       margin is scaled up and the solve repeated, ``rounds`` times.
    3. **Growing spheres.** The probed model's best point (every useful single change at once)
       is tried for agents still without an accepted point. Those the probed model said could
       reach the cut-off, and still have none, get random legal moves in
       shells of growing cost around them (``samples`` per shell, radius doubling from
       ``radius``) until one is accepted.
    4. **Shrink.** Every accepted point is pulled back toward the agent by bisection on its
       numeric and integer changes (``bisection_steps`` steps), onto the cut-off, and changes
       that are not needed are undone one feature at a time.

    Every candidate is legalised by the action set and kept only if the model accepts it. For an
    additive model (linear, one-hot logistic) the probed effects are the model's own and step 2
    solves the same problem as ``exact_linear``, so the result matches it up to the rounding of
    integer features wider than ``integer_steps`` (and categories not probed); for other models it
    is a heuristic with no optimality guarantee.

    Args:
        action_set: Constraints (see :class:`~recoursesim.recourse.mixed.MixedRecourse`).
        cost_weights: Feature -> cost multiplier.
        rounds: Corrections of the probed solution.
        samples: Random candidates per agent per shell.
        radius: Cost of the first shell.
        shells: Largest number of shells (each doubles the radius).
        bisection_steps: Bisection steps onto the cut-off.
        integer_steps: Integer features with at most this many legal unit steps are solved unit by
            unit in step 2; wider ones are moved like numbers and rounded (up, or down with the rest
            covered by the next-cheapest features, whichever costs less; faster).
        probe_codes: Categorical features with more categories are probed, per agent, only at
            the ``probe_codes + 1`` categories that raise the score most on a sample of agents.
        seed: Seed of the random search (it is deterministic).
    """

    rounds: int = 3
    samples: int = 16
    radius: float = 0.05
    shells: int = 5
    bisection_steps: int = 8
    integer_steps: int = 16
    probe_codes: int = 3
    seed: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("rounds", self.rounds, minimum=0)
        check_int("samples", self.samples, minimum=1)
        check_float("radius", self.radius, minimum=0.0)
        check_int("shells", self.shells, minimum=1)
        check_int("bisection_steps", self.bisection_steps, minimum=0)
        check_int("integer_steps", self.integer_steps, minimum=0)
        check_int("probe_codes", self.probe_codes, minimum=1)
        check_int("seed", self.seed, minimum=0)

    def bind(self, context: RunContext) -> Self:
        """Build the action set and cost model (see :class:`MixedRecourse`) and an empty probe cache."""
        super().bind(context)
        self._cont, self._disc = self.mutable_columns()
        self.probe_cache_ = ProbeCache()
        return self

    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        # agents with the same features and cut-off get the same search (bootstrap samples repeat rows)
        _, first, inverse = np.unique(
            np.column_stack([features, threshold]), axis=0, return_index=True, return_inverse=True
        )
        best, found = self._search_distinct(features[first], threshold[first], scorer)
        inverse = np.ravel(inverse)
        return best[inverse], found[inverse]

    def _search_distinct(
        self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer
    ) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        base = np.asarray(scorer.score(features), dtype=float)
        link = link_of(base, threshold)
        best = features.copy()
        found = np.zeros(features.shape[0], dtype=bool)
        moved, ok, hopeful = self._probe_and_solve(features, base, threshold, scorer, link)
        best[ok], found[ok] = moved[ok], True
        rest = np.flatnonzero(~found & hopeful)
        if rest.size:
            moved, ok = growing_spheres(
                features[rest],
                threshold[rest],
                scorer,
                rng,
                schema=self.schema_,
                actions=self.actions_,
                mutable=self.mutable,
                unit=self.costs_.unit_cost,
                legal_codes=self.legal_codes,
                cost=self.cost,
                samples=self.samples,
                radius=self.radius,
                shells=self.shells,
            )
            best[rest[ok]], found[rest[ok]] = moved[ok], True
        if found.any():
            rows = np.flatnonzero(found)
            best[rows] = self._shrink(features[rows], best[rows], threshold[rows], base[rows], scorer)
        return best, found

    def _probes(self, features: np.ndarray, base: np.ndarray, scorer: Scorer, link: str) -> tuple[dict, np.ndarray]:
        """Step 1: the probe layout (codes probed per discrete feature) and each agent's probe scores.

        Returns ``(codes, scores)``: ``scores`` is ``(n, L)``, one column per probe (for each
        numeric/integer feature the rise to the top of its room, then the fall to the bottom;
        then each probed code of each discrete feature), NaN where the move is not legal or not a
        move. Profiles probed before under the same model are taken from :attr:`probe_cache_`.
        """
        cache = self.probe_cache_
        hit, remembered = cache.lookup(scorer, features, base)
        if cache.layout is None:
            margin0 = to_margin(base, link)
            cache.layout = {int(j): self._codes_to_probe(features, margin0, int(j), scorer, link) for j in self._disc}
        codes = cache.layout
        scores = np.full((features.shape[0], 2 * self._cont.size + sum(c.size for c in codes.values())), np.nan)
        if hit.any():
            scores[hit] = remembered
        new = np.flatnonzero(~hit)
        if new.size:
            scores[new] = self._probe_scores(features[new], scorer, codes)
            cache.store(features[new], base[new], scores[new])
        return codes, scores

    def _probe_scores(self, features: np.ndarray, scorer: Scorer, codes: dict) -> np.ndarray:
        """Score every probe of ``features`` (columns as in :meth:`_probes`) in one call."""
        m = features.shape[0]
        box = self.actions_.box(features)
        up, down = self.continuous_room(features, box)
        legal, column, value = [], [], []
        for k in self._cont:
            legal += [up[:, k] > 0, down[:, k] > 0]
            column += [k, k]
            value += [features[:, k] + up[:, k], features[:, k] - down[:, k]]
        for j in self._disc:
            allowed = self.legal_codes(features, int(j), box)
            for code in codes[int(j)]:
                legal.append(allowed[:, code])
                column.append(j)
                value.append(np.full(m, float(code)))
        scores = np.full((m, len(legal)), np.nan)
        if not legal:
            return scores
        agent, probe = np.nonzero(np.column_stack(legal))
        if agent.size:  # each probe is its agent with one feature changed
            changed, to = np.asarray(column, dtype=np.int64)[probe], np.column_stack(value)[agent, probe]
            scores[agent, probe] = score_edits(scorer, features, agent, changed, to)
        return scores

    def _probe_and_solve(
        self, features: np.ndarray, base: np.ndarray, threshold: np.ndarray, scorer: Scorer, link: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Steps 1 and 2 of the class docstring.

        Returns the accepted points, which agents have one, and which of the others are worth a
        random search: those the probed model says can reach the cut-off.
        """
        n, d = features.shape
        schema = self.schema_
        cont, disc = self._cont, self._disc
        lo, hi = self.actions_.box(features)
        up, down = self.continuous_room(features, (lo, hi))
        margin0 = to_margin(base, link)
        codes, scores = self._probes(features, base, scorer, link)
        effect = to_margin(scores, link) - margin0[:, None]
        up_gain = np.zeros((n, d))
        down_gain = np.zeros((n, d))
        for at, k in enumerate(cont):
            for room, gain, col in ((up[:, k], up_gain, 2 * at), (down[:, k], down_gain, 2 * at + 1)):
                np.divide(effect[:, col], room, out=gain[:, k], where=room > 0)
        tables = []
        at = 2 * cont.size
        for j in disc:
            table = np.full((n, int(schema.n_categories[j])), -np.inf)
            table[np.arange(n), features[:, j].astype(int)] = 0.0
            probed = codes[int(j)]
            block = effect[:, at : at + probed.size]
            table[:, probed] = np.where(np.isnan(block), table[:, probed], block)
            at += probed.size
            tables.append(table)
        target = to_margin(threshold, link)
        need = target - margin0 + 1e-9 * (1 + np.abs(target))
        best = features.copy()
        found = np.zeros(n, dtype=bool)
        hopeful = np.zeros(n, dtype=bool)
        todo = np.arange(n)
        # the problem is the same every round but for the margin still missing: built once, then cut to ``todo``
        every, turn, columns, discrete = self.separable_problem(features, need, up_gain, down_gain, tables)
        for _ in range(self.rounds + 1):
            problem, direction = every.rows(todo, need[todo]), turn[todo]
            solution = solve_separable(problem, max_integer_options=self.integer_steps)
            hopeful[todo] |= solution.feasible
            if not solution.feasible.any():
                break
            moved = self.apply_solution(features[todo], solution, problem, direction, columns, discrete)
            moved = self.actions_.legalise(features[todo], moved, (lo[todo], hi[todo]))
            reached = to_margin(score_distinct(scorer, moved), link)
            ok = solution.feasible & (reached >= target[todo])
            best[todo[ok]], found[todo[ok]] = moved[ok], True
            retry = solution.feasible & ~ok
            gained = reached - margin0[todo]
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = np.where(gained > 1e-12, need[todo] / gained, 2.0)
            need[todo] = need[todo] * np.clip(scale, 1.05, 4.0)
            todo = todo[retry]
            if todo.size == 0:
                break
        # the probed model's best point (every useful single change at once): a last candidate
        rest = np.flatnonzero(~found)
        if rest.size:
            point = features[rest].copy()
            for k in cont:
                gain_up, gain_down = up_gain[rest, k] * up[rest, k], down_gain[rest, k] * down[rest, k]
                rise = (gain_up >= gain_down) & (gain_up > 0)
                fall = ~rise & (gain_down > 0)
                point[:, k] += np.where(rise, up[rest, k], 0.0) - np.where(fall, down[rest, k], 0.0)
            box = lo[rest], hi[rest]
            for table, j in zip(tables, disc, strict=True):
                gains = np.where(self.legal_codes(features[rest], int(j), box), table[rest], -np.inf)
                code = np.argmax(gains, axis=1)
                point[:, j] = np.where(gains[np.arange(rest.size), code] > 0, code, point[:, j])
            point = self.actions_.legalise(features[rest], point, box)
            ok = np.asarray(scorer.score(point), dtype=float) >= threshold[rest]
            best[rest[ok]], found[rest[ok]] = point[ok], True
        return best, found, hopeful

    def _codes_to_probe(
        self, features: np.ndarray, margin0: np.ndarray, j: int, scorer: Scorer, link: str
    ) -> np.ndarray:
        """Codes of discrete feature ``j`` to probe for every agent.

        Ordinal features and categorical features with at most ``probe_codes + 1`` categories:
        every code. Wider categorical features: the ``probe_codes + 1`` allowed codes that raise
        the score most on average over a sample of at most 64 agents (one is each agent's own).
        """
        m = int(self.schema_.n_categories[j])
        if self.schema_.is_ordinal[j] or m <= self.probe_codes + 1:
            return np.arange(m)
        allowed = np.flatnonzero(self.actions_.allowed[j][:m])
        sample = np.linspace(0, features.shape[0] - 1, min(64, features.shape[0])).astype(int)
        rows = np.repeat(features[sample], allowed.size, axis=0)
        rows[:, j] = np.tile(allowed, sample.size)
        margin = to_margin(np.asarray(scorer.score(rows), dtype=float), link).reshape(sample.size, allowed.size)
        mean_effect = (margin - margin0[sample, None]).mean(axis=0)
        return np.sort(allowed[np.argsort(-mean_effect, kind="stable")[: self.probe_codes + 1]])

    def _shrink(
        self, features: np.ndarray, moved: np.ndarray, threshold: np.ndarray, base: np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        """Step 4 of the class docstring: bisect numeric changes onto the cut-off, undo needless changes.

        The bisection tries three fractions per round (the quarter points of the interval left), so
        each round halves the interval twice, for the agents with a numeric or integer change; the
        points are scored lowest first, a higher one only for agents that rejected the lower ones
        (the lowest accepted point decides the round);
        undoing tries every changed feature of every agent in one call and keeps the accepted undo
        that saves the most, twice (the second time only for agents whose point the first changed).
        Undoing an agent's only change gives back the agent, whose score ``base`` is known.
        """
        n = features.shape[0]
        linear = self.schema_.is_numeric | self.schema_.is_integer
        delta = np.where(linear, moved - features, 0.0)
        accepted = self._bisect(features, moved, delta, threshold, scorer)
        best = self._at(features, moved, delta, accepted)
        below = base < threshold
        todo = np.ones(n, dtype=bool)
        for _ in range(2):
            changed = (best != features) & self.mutable & todo[:, None]
            changed &= ~((changed.sum(axis=1) == 1) & below)[:, None]  # its only change: undoing it is rejected
            agent, feature = np.nonzero(changed)
            if agent.size == 0:
                break
            trial = best[agent].copy()
            trial[np.arange(agent.size), feature] = features[agent, feature]
            ok = score_edits(scorer, best, agent, feature, features[agent, feature]) >= threshold[agent]
            saving = np.where(
                ok, self.cost(best[agent] - features[agent]) - self.cost(trial - features[agent]), -np.inf
            )
            top = np.full(n, -np.inf)
            np.maximum.at(top, agent, saving)
            pick = np.flatnonzero((saving > 0) & (saving == top[agent]))
            pick = pick[np.unique(agent[pick], return_index=True)[1]]
            best[agent[pick]] = trial[pick]
            todo[:] = False
            todo[agent[pick]] = True
        return best

    def _bisect(
        self, features: np.ndarray, moved: np.ndarray, delta: np.ndarray, threshold: np.ndarray, scorer: Scorer
    ) -> np.ndarray:
        """The bisection of :meth:`_shrink`: per agent, the lowest accepted fraction of its numeric move ``delta``."""
        n = features.shape[0]
        accepted = np.ones(n)
        some = np.flatnonzero((delta != 0).any(axis=1))
        rejected = np.zeros(some.size)
        quarters = np.array([0.25, 0.5, 0.75])
        for _ in range((self.bisection_steps + 1) // 2 if some.size else 0):
            fractions = rejected[:, None] + (accepted[some] - rejected)[:, None] * quarters[None, :]
            # Score the quarter points in rising order, each only for the agents that rejected every
            # lower one: the points above an agent's lowest accepted one change nothing below.
            ok = np.zeros(fractions.shape, dtype=bool)
            pending = np.arange(some.size)
            for column in range(3):
                rows = some[pending]
                trial = self._at(features[rows], moved[rows], delta[rows], fractions[pending, column])
                ok[pending, column] = np.asarray(scorer.score(trial), dtype=float) >= threshold[rows]
                pending = pending[~ok[pending, column]]
                if pending.size == 0:
                    break
            lowest = np.where(ok, fractions, np.inf).min(axis=1)
            highest_rejected = np.where(~ok & (fractions < lowest[:, None]), fractions, -np.inf).max(axis=1)
            accepted[some] = np.where(np.isfinite(lowest), lowest, accepted[some])
            rejected = np.maximum(rejected, highest_rejected)
        return accepted

    def _at(self, features: np.ndarray, moved: np.ndarray, delta: np.ndarray, fraction: np.ndarray) -> np.ndarray:
        """``moved`` with its numeric/integer changes scaled by ``fraction`` (integers rounded away from the agent)."""
        point = np.where(delta != 0, features + fraction[:, None] * delta, moved)
        whole = self.schema_.is_integer
        step = point[:, whole] - features[:, whole]
        point[:, whole] = features[:, whole] + np.sign(step) * np.ceil(np.abs(step) - 1e-9)
        return point
