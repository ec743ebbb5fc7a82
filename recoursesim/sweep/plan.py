"""What a sweep runs: grid points (parameters + resolved scenario) × spawned seeds."""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from recoursesim._validate import check_int
from recoursesim.errors import ConfigError
from recoursesim.resources import MAX_GRID_POINTS, MAX_SWEEP_RUNS
from recoursesim.scenario import Scenario
from recoursesim.sweep.identity import canonical_json, digest, point_key, run_id


@dataclass(frozen=True)
class Point:
    """One grid point: the parameters that label it and the scenario they resolve to.

    Attributes:
        params: Label of the point (``{"population.q": 2.0}``); values are JSON scalars.
        scenario: The validated scenario run at this point.
    """

    params: dict[str, Any]
    scenario: Scenario


@dataclass(frozen=True)
class RunTask:
    """One run of a sweep: everything a worker needs, and nothing about where it runs.

    Attributes:
        run_id: The run's identity (:func:`~recoursesim.sweep.identity.run_id`).
        point: Index of the grid point in the plan.
        params: The point's parameters.
        scenario: The point's scenario.
        seed_index: Index of the spawned seed.
        seed: ``SeedSequence(root).spawn(n)[seed_index]``.
        per_step: Also record the per-step metrics (not only the pooled per-group summary).
        durability: Also record each group's validity of advice 1, 3 and 5 steps after issue.
    """

    run_id: str
    point: int
    params: dict[str, Any]
    scenario: Scenario
    seed_index: int
    seed: np.random.SeedSequence = field(repr=False)
    per_step: bool = True
    durability: bool = False


@dataclass(frozen=True)
class SweepPlan:
    """Grid points × seeds: the full, ordered list of runs of a sweep.

    Every point runs with the same spawned seeds (seed ``i`` of every point is the ``i``-th child
    of ``SeedSequence(root_seed)``), so comparisons between points use common random numbers.

    Attributes:
        points: The grid points, in order.
        n_seeds: Runs per point.
        root_seed: Root entropy of the sweep.
        per_step: Record per-step metrics as well as the pooled summary (``False`` is faster).
        durability: Record each group's validity of advice 1, 3 and 5 steps after issue with the
            pooled rows (``validity_1``, ``validity_3``, ``validity_5``); judging every
            recommendation at later steps makes a short run up to about 1.7 times slower.
    """

    points: tuple[Point, ...]
    n_seeds: int
    root_seed: int = 0
    per_step: bool = True
    durability: bool = False

    def __post_init__(self) -> None:
        check_int("root_seed", self.root_seed, minimum=0)
        if not self.points:
            raise ConfigError("grid", "the sweep has no grid points", "give at least one scenario")
        check_sweep_size(len(self.points), self.n_seeds)
        labels = [canonical_json(p.params) for p in self.points]
        if len(set(labels)) != len(labels):
            raise ConfigError("grid", "two grid points have the same parameters", "give each point distinct params")
        keys = {tuple(sorted(p.params)) for p in self.points}
        if len(keys) > 1:
            raise ConfigError("grid", "grid points name different parameters", "give every point the same keys")

    @classmethod
    def from_grid(
        cls,
        scenario: Scenario,
        grid: Mapping[str, Sequence[Any]] | None = None,
        *,
        n_seeds: int,
        root_seed: int | None = None,
        per_step: bool = True,
        durability: bool = False,
    ) -> SweepPlan:
        """The Cartesian product of ``grid`` over ``scenario``, each point validated.

        Args:
            scenario: The base scenario.
            grid: Dotted scenario key -> values (``{"selection.k": [50, 100]}``); empty: one point.
            n_seeds: Runs per point.
            root_seed: Root entropy (default: the scenario's ``run.seed``).
            per_step: Record per-step metrics too.
            durability: Record the groups' validity of advice too.

        Returns:
            The plan.

        Raises:
            ConfigError: An unknown key, an empty value list or a value the scenario rejects.
        """
        grid = dict(grid or {})
        n_points = 1
        for key, values in grid.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) == 0:
                raise ConfigError(f"--grid {key}", "needs a non-empty list of values", f"write {key}=v1,v2")
            values = [_plain_value(key, value) for value in values]
            if len({canonical_json(v) for v in values}) != len(values):
                raise ConfigError(f"--grid {key}", "lists a value twice", "give each value once")
            n_points *= len(values)
        check_sweep_size(n_points, n_seeds)  # before validating a scenario per point
        keys = sorted(grid)
        points = []
        for combo in itertools.product(*(grid[k] for k in keys)):
            params = {key: _plain_value(key, value) for key, value in zip(keys, combo, strict=True)}
            try:
                point_scenario = scenario.with_overrides(params) if params else scenario
            except ConfigError as error:
                raise ConfigError(f"--grid {error.field}", error.problem, error.fix) from None
            points.append(Point(params, point_scenario))
        seed = scenario.seed if root_seed is None else root_seed
        return cls(tuple(points), n_seeds=n_seeds, root_seed=seed, per_step=per_step, durability=durability)

    @classmethod
    def from_draws(
        cls,
        scenario: Scenario,
        draws: Mapping[str, Sequence[float]],
        *,
        n_seeds: int,
        root_seed: int | None = None,
        per_step: bool = True,
        field: str = "--posterior",
    ) -> SweepPlan:
        """One point per posterior draw: draw ``i`` sets every key to the ``i``-th of its values.

        Equally weighted draws repeat particles, so each point is labelled with its draw index as
        well as its values (``{"draw": 0, "population.q": 1.2}``) and repeated draws stay points of
        their own: the sweep's runs sample the posterior with the draws' weights.

        Args:
            scenario: The base scenario.
            draws: Dotted scenario key -> one value per draw (every list as long).
            n_seeds: Runs per draw.
            root_seed: Root entropy (default: the scenario's ``run.seed``).
            per_step: Record per-step metrics too.
            field: The option named in errors.

        Returns:
            The plan.

        Raises:
            ConfigError: No draw, lists of unequal length, or a value the scenario rejects.
        """
        lengths = {len(values) for values in draws.values()}
        if not draws or lengths == {0}:
            raise ConfigError(field, "holds no draws", "give a posterior.toml written by recoursesim calibrate")
        if len(lengths) != 1:
            raise ConfigError(field, "has parameter lists of different lengths", "give one value per draw for each")
        if "draw" in draws:
            raise ConfigError(field, "has a parameter named 'draw'", "rename it: draw labels the sweep's points")
        for key, column in draws.items():
            bad = [v for v in column if not isinstance(v, (int, float)) or not np.isfinite(v)]
            if bad:
                raise ConfigError(f"{field} {key}", f"has the value {bad[0]!r}", "give finite numbers")
        (n_draws,) = lengths
        check_sweep_size(n_draws, n_seeds, DRAWS)
        points = []
        for i in range(n_draws):
            values = {key: draws[key][i] for key in sorted(draws)}
            try:
                point_scenario = scenario.with_overrides(values)
            except ConfigError as error:
                raise ConfigError(f"{field} {error.field}", error.problem, error.fix) from None
            points.append(Point({"draw": i, **values}, point_scenario))
        seed = scenario.seed if root_seed is None else root_seed
        return cls(tuple(points), n_seeds=n_seeds, root_seed=seed, per_step=per_step)

    @property
    def n_runs(self) -> int:
        """Number of runs (points × seeds)."""
        return len(self.points) * self.n_seeds

    @property
    def param_names(self) -> list[str]:
        """The parameter names, sorted."""
        return sorted(self.points[0].params)

    @property
    def sweep_id(self) -> str:
        """Identity of the sweep: a hash of its points, seeds and options."""
        return digest(
            "sweep",
            [[p.params, p.scenario.spec] for p in self.points],
            self.n_seeds,
            self.root_seed,
            self.per_step,
            *(["durability"] if self.durability else []),  # sweeps without it keep their identity
        )

    def tasks(self) -> Iterator[RunTask]:
        """Yield every run, point by point, seed by seed (a stable order, not an execution order)."""
        for index, point in enumerate(self.points):
            key = point_key(point.scenario.spec, point.params)
            # Fresh children for every point: spawning from a SeedSequence changes its state, so
            # no SeedSequence object is shared between runs.
            seeds = np.random.SeedSequence(self.root_seed).spawn(self.n_seeds)
            for seed_index, seed in enumerate(seeds):
                yield RunTask(
                    run_id(key, self.root_seed, seed_index),
                    index,
                    point.params,
                    point.scenario,
                    seed_index,
                    seed,
                    self.per_step,
                    self.durability,
                )

    def describe(self) -> dict[str, Any]:
        """The plan as plain JSON-ready data (what the manifest stores)."""
        return {
            "sweep_id": self.sweep_id,
            "n_seeds": self.n_seeds,
            "root_seed": self.root_seed,
            "per_step": self.per_step,
            **({"durability": True} if self.durability else {}),
            "param_names": self.param_names,
            "points": [{"params": p.params, "scenario": p.scenario.spec} for p in self.points],
        }


@dataclass(frozen=True)
class PointsOption:
    """What sets the number of points of a sweep, for the messages of :func:`check_sweep_size`.

    Attributes:
        option: The option (``--grid``, ``--samples``, ``--trials``).
        unit: What a point is called, plural (``"points (the product of the value counts)"``).
        fewer: How to have fewer points (``"give fewer values"``).
    """

    option: str
    unit: str
    fewer: str


#: A sweep's grid: its points are the product of the ``--grid`` value counts.
GRID = PointsOption(
    "--grid", "points (the product of the value counts)", "give fewer values, or split the grid into several sweeps"
)

#: A sweep over a posterior: one point per draw.
DRAWS = PointsOption("--posterior", "points (one per draw)", "give a posterior file with fewer draws")


def check_sweep_size(n_points: int, n_seeds: int, points: PointsOption = GRID) -> None:
    """Refuse, before any work, a sweep (or a study run on the sweep engine) too large to plan.

    That is, more than :data:`~recoursesim.resources.MAX_GRID_POINTS` points or
    :data:`~recoursesim.resources.MAX_SWEEP_RUNS` runs. ``sensitivity`` and ``optimise`` call it
    with their own count options before drawing a sample or opening a study.

    Args:
        n_points: Points (grid points, samples, trials).
        n_seeds: Seeds per point.
        points: What sets the points, for the message.

    Raises:
        ConfigError: naming ``points.option`` or ``--seeds`` with the sizes (or a bad ``n_seeds``,
            see :func:`check_seeds`).
    """
    check_seeds(n_seeds, maximum=None)
    if n_points > MAX_GRID_POINTS:
        raise ConfigError(
            points.option,
            f"gives {n_points:,} {points.unit}; at most {MAX_GRID_POINTS:,} are allowed",
            points.fewer,
        )
    if n_points * n_seeds > MAX_SWEEP_RUNS:
        unit = points.unit.split(" (")[0]
        raise ConfigError(
            "--seeds",
            f"{n_points:,} {unit} x {n_seeds:,} seeds = {n_points * n_seeds:,} runs; every run is listed in the "
            f"plan and manifest, and at most {MAX_SWEEP_RUNS:,} are allowed",
            f"give fewer --seeds or fewer {unit} (a 95% interval needs far fewer: 20-100 seeds are typical)",
        )


def check_seeds(n_seeds: object, minimum: int = 1, maximum: int | None = MAX_SWEEP_RUNS) -> int:
    """Return a number of seeds per point (``--seeds``): a whole number from ``minimum`` to ``maximum``.

    The one check of ``--seeds``: every command's option type (:mod:`recoursesim.cli._common`) and
    every plan (:func:`check_sweep_size`, which bounds points × seeds instead of the seeds alone) call it.

    Args:
        n_seeds: The number given.
        minimum: The fewest allowed (2 where an interval across seeds is computed).
        maximum: The most allowed (default: the most runs a sweep may hold); ``None``: no bound here.

    Raises:
        ConfigError: naming ``--seeds``: not a whole number, below ``minimum`` or above ``maximum``.
    """
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, int | np.integer):
        raise ConfigError("--seeds", f"must be an integer, got {n_seeds!r}", "give a whole number of seeds")
    if n_seeds < minimum:
        needs = "a positive integer" if minimum == 1 else f"at least {minimum} (an interval across seeds needs two)"
        raise ConfigError("--seeds", f"must be {needs}, got {n_seeds}", f"give {minimum} or more (20-100 are typical)")
    if maximum is not None and n_seeds > maximum:
        raise ConfigError(
            "--seeds", f"must be at most {maximum:,} seeds, got {n_seeds:,}", "give fewer seeds (20-100 are typical)"
        )
    return int(n_seeds)


def parse_grid(items: Sequence[str]) -> dict[str, list[Any]]:
    """Parse command-line ``key=v1,v2`` items into a grid.

    Each value is read as a TOML value (``2``, ``0.5``, ``true``, ``"text"``, ``[1, 2]``); anything
    else is taken as a bare string. Commas inside brackets or quotes do not split.

    Args:
        items: ``["selection.k=50,100", "population.q=0,1"]``.

    Returns:
        Key -> list of values.

    Raises:
        ConfigError: An item without ``=``, an empty key or value, or a key given twice.
    """
    grid: dict[str, list[Any]] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key or not text.strip():
            raise ConfigError("--grid", f"cannot read {item!r}", "write key=v1,v2 (for example selection.k=50,100)")
        if key in grid:
            raise ConfigError(f"--grid {key}", "is given twice", "list all its values in one --grid key=v1,v2")
        grid[key] = [_parse_value(part) for part in _split_top_level(text)]
        if any(part == "" for part in grid[key]):
            raise ConfigError(f"--grid {key}", "has an empty value", "remove the stray comma")
    return grid


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return parts


def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def _plain_value(key: str, value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    try:
        canonical_json(value)
    except (TypeError, ValueError):
        raise ConfigError(
            f"--grid {key}",
            f"value {value!r} is not a finite number, string, boolean or list of them",
            "give plain values (no nan or inf)",
        ) from None
    return value
