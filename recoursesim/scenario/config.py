"""A scenario's run configuration: the sizes and switches of a run, read once from a checked table.

:func:`~recoursesim.scenario.checks.check_table` refuses a bad value, naming its TOML field;
:meth:`RunConfig.of` then reads the checked table into plain Python values. Everything that needs
a run's sizes (the engine's model, the memory estimate, the sweep's plan) takes a
:class:`RunConfig` or its values, never the table, so no TOML key is spelled twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recoursesim.metrics.outcomes import EffortMeasure


@dataclass(frozen=True)
class RunConfig:
    """The run-wide values of a scenario, typed.

    Attributes:
        steps: ``T`` (``run.steps``): the run covers steps ``0 … T``.
        seed: The default run seed (``run.seed``, default 0).
        initial: Agents at step 0 (``population.initial``).
        entrants: Agents joining after each step (``population.entrants``): one number, or one per
            step ``0 … T-1``.
        patience: Negative outcomes after which an agent leaves (``model.patience``; ``None``: never).
        record_recommendations: Keep the recommendations in the ledger (``model.record_recommendations``).
        reapplies: The selected stay and apply again (the scenario has an ``[outcome]``).
        reference_group: The group disparities compare against (``metrics.reference_group``;
            ``None``: the first group).
        effort: How effort is measured (``metrics.effort``).
        k: Places per step of the top-level selector when the table gives a fixed number
            (``selection.k``); ``None`` otherwise (a schedule, or a selector without ``k``).
        n_lenders: Decision makers: a market's lenders (``[[lenders]]``, or ``market.copies``), else 1.
        n_features: Features, when the table states them (``scorer.weights`` or
            ``population.features``); ``None``: known only once the population is built.
    """

    steps: int
    seed: int = 0
    initial: int = 1
    entrants: int | tuple[int, ...] = 0
    patience: int | None = None
    record_recommendations: bool = True
    reapplies: bool = False
    reference_group: str | None = None
    effort: EffortMeasure = "cost"
    k: int | None = None
    n_lenders: int = 1
    n_features: int | None = None

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> RunConfig:
        """Read a table that :func:`~recoursesim.scenario.checks.check_table` has accepted.

        The values are taken as the table holds them, not converted: a table changed without
        being checked again (:meth:`Scenario.with_overrides` with ``validate=False``) still meets
        the engine's own checks of its arguments.
        """
        run, population = spec["run"], spec["population"]
        model, metrics = spec.get("model", {}), spec.get("metrics", {})
        entrants = population.get("entrants", 0)
        return cls(
            steps=int(run["steps"]),
            seed=int(run.get("seed", 0)),
            initial=population["initial"],
            entrants=tuple(entrants) if isinstance(entrants, list | tuple) else entrants,
            patience=model.get("patience"),
            record_recommendations=model.get("record_recommendations", True),
            reapplies="outcome" in spec,
            reference_group=metrics.get("reference_group"),
            effort=metrics.get("effort", "cost"),
            k=_fixed_k(spec["selection"].get("k")),
            n_lenders=_n_lenders(spec),
            n_features=_n_features(spec),
        )


def _fixed_k(k: Any) -> int | None:
    """``selection.k`` when it is one positive whole number."""
    return int(k) if isinstance(k, int) and not isinstance(k, bool) and k > 0 else None


def _n_lenders(spec: Mapping[str, Any]) -> int:
    """The lenders of a market (``copies`` of one template, or one per ``[[lenders]]``); 1 without one."""
    market, lenders = spec.get("market"), spec.get("lenders")
    if not isinstance(market, Mapping) or not isinstance(lenders, list):
        return 1
    copies = market.get("copies")
    return int(copies) if isinstance(copies, int) and copies > 0 else max(len(lenders), 1)


def _n_features(spec: Mapping[str, Any]) -> int | None:
    """The features the table states: one scorer weight each, or the population's feature list."""
    weights = spec.get("scorer", {}).get("weights")
    if isinstance(weights, list):
        return len(weights)
    features = spec["population"].get("features")
    return len(features) if isinstance(features, list) else None
