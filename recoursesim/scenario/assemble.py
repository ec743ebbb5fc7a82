"""Building a scenario's components: the keyword arguments of a :class:`~recoursesim.engine.model.RecourseModel`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from recoursesim.choice.base import lender_order_of
from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.registry import build
from recoursesim.scenario.market import DEFAULT_CHOICE, lender_tables
from recoursesim.scoring.base import width_of
from recoursesim.scoring.fitted import RefitsUserModel
from recoursesim.selection.base import places_of

if TYPE_CHECKING:
    from recoursesim.engine.market import Market
    from recoursesim.scenario.config import RunConfig


@dataclass(frozen=True)
class BuildInputs:
    """What building a run's components reads from a scenario: data, not the scenario itself.

    Attributes:
        spec: The resolved, validated scenario table.
        config: Its run-wide values (sizes, patience, reference group), read once.
        inputs: Objects given in Python rather than in the file (``data``, ``model``).
        allow_imports: Modules the person running allowed to be imported for plug-ins.
        trusted: Types the person running trusts in a model file.
    """

    spec: Mapping[str, Any]
    config: RunConfig
    inputs: Mapping[str, Any] = field(default_factory=dict)
    allow_imports: tuple[str, ...] = ()
    trusted: tuple[str, ...] = ()


def model_arguments(given: BuildInputs, *, dry_run: bool = False) -> dict[str, Any]:
    """Fresh components and sizes of a run (see :meth:`Scenario.model_arguments`)."""
    spec, config = given.spec, given.config
    population_spec = {key: value for key, value in spec["population"].items() if key not in ("initial", "entrants")}
    allowed = given.allow_imports
    population = build("population", population_spec, data=given.inputs.get("data"), allow_imports=allowed)
    # Every part is bound to the run as it is built, so a part the population refuses is named now.
    context = RunContext.of(population)
    scorer, selector, recourse, trainer = decision_parts(given, spec, context, "")
    behaviour = build("behaviour", spec["behaviour"], allow_imports=allowed, context=context, keep=True)
    market = build_market(given, context, config.initial)
    if market is not None:
        first = market.lenders[0]
        scorer, selector, recourse, trainer = first.scorer, first.selector, first.recourse, first.trainer
    outcome = (
        build("outcome", spec["outcome"], allow_imports=allowed, context=context, keep=True)
        if "outcome" in spec
        else None
    )
    observers = build_observers(spec.get("observers", []), context, allowed)
    reference = config.reference_group
    if reference is not None and reference not in population.group_names:
        raise ConfigError(
            "metrics.reference_group",
            f"{reference!r} is not a group",
            f"use one of {', '.join(population.group_names)}",
        )
    if dry_run:
        return {}
    return dict(
        population=population,
        scorer=scorer,
        selector=selector,
        recourse=recourse,
        behaviour=behaviour,
        n_initial=config.initial,
        entrants=config.entrants,
        n_steps=config.steps,
        trainer=trainer,
        observers=observers,
        patience=config.patience,
        record_recommendations=config.record_recommendations,
        outcome=outcome,
        market=market,
        context=context,
    )


def decision_parts(
    given: BuildInputs, tables: Mapping[str, Any], context: RunContext, where: str
) -> tuple[Any, Any, Any, Any]:
    """Build one lender's scorer, selector, recourse generator and trainer (``None``) from ``tables``, bound.

    Args:
        given: What the scenario gives (its inputs, trust and import allowance).
        tables: The sections ``scorer``, ``selection``, ``recourse`` and, optionally, ``training``.
        context: The run's context.
        where: The prefix of the sections' fields in messages (``""`` or ``"lenders[1]."``).
    """
    from recoursesim.refit_order import refit_order_of

    allowed = given.allow_imports
    feature_names = context.feature_names
    scorer = build(
        "scorer",
        tables["scorer"],
        section=f"{where}scorer",
        fitted_estimator=given.inputs.get("model"),
        trusted=given.trusted,
        allow_imports=allowed,
        context=context,
        keep=True,
    )
    n_features = width_of(scorer)
    n_features = len(feature_names) if n_features is None else n_features
    if n_features != len(feature_names):
        raise ConfigError(
            f"{where}scorer.weights", f"has {n_features} entries but the population has {len(feature_names)} features",
            f"give one weight per feature ({', '.join(feature_names)})",
        )  # fmt: skip
    selector = build(
        "selector", tables["selection"], section=f"{where}selection", allow_imports=allowed, context=context, keep=True
    )
    recourse = build(
        "recourse", tables["recourse"], section=f"{where}recourse", allow_imports=allowed, context=context, keep=True
    )
    # A refitting trainer refits clones of the user's own model, when the scorer is one.
    user_estimator = scorer.refit_prototype() if isinstance(scorer, RefitsUserModel) else None
    trainer = (
        build(
            "trainer",
            tables["training"],
            section=f"{where}training",
            allow_imports=allowed,
            user_estimator=user_estimator,
            context=context,
            keep=True,
        )
        if "training" in tables
        else None
    )
    try:
        refit_order_of(trainer)
    except ConfigError as error:
        raise ConfigError(f"{where}{error.field}", error.problem, error.fix) from None
    return scorer, selector, recourse, trainer


def build_market(given: BuildInputs, context: RunContext, n_initial: int) -> Market | None:
    """The scenario's market (``None`` without ``[market]``): its lenders built, its choice and culture.

    Raises:
        ConfigError: a lender's part that cannot be built, a lender ``k`` larger than the initial
            population, a refit order a market cannot run, a choice ``order`` naming an unknown
            lender, or a section a market does not support (``[outcome]``, ``[[observers]]``).
    """
    spec = given.spec
    tables = lender_tables(spec)
    if not tables:
        return None
    from recoursesim.engine.market import Lender, Market, check_lenders

    lenders = []
    for index, name, sections in tables:
        where = f"lenders[{index}]."
        scorer, selector, recourse, trainer = decision_parts(given, sections, context, where)
        k = places_of(selector)
        places = [k] if isinstance(k, int) else k if isinstance(k, list) else []
        if places and max(places) > n_initial:
            field = f"{where}selection.k" if "selection" in spec["lenders"][index] else "selection.k"
            raise ConfigError(
                field,
                f"lender {name!r} selects {max(places)} applicants a step but the initial population has {n_initial}",
                f"set k to at most {n_initial}, or raise population.initial",
            )
        lenders.append(Lender(name, scorer, selector, recourse, trainer))
    fields = [f"lenders[{index}]" for index, _, _ in tables]
    check_lenders(lenders, outcome="outcome" in spec, observers="observers" in spec, fields=fields)
    market = spec["market"]
    choice = build(
        "choice",
        market.get("choice", DEFAULT_CHOICE),
        section="market.choice",
        allow_imports=given.allow_imports,
        context=context,
        keep=True,
    )
    names = [lender.name for lender in lenders]
    order = lender_order_of(choice)
    unknown = [name for name in order or () if name not in names]
    if unknown:
        raise ConfigError(
            "market.choice.order",
            f"names {unknown[0]!r}, which is not a lender",
            f"name lenders of the market ({', '.join(names)})",
        )
    return Market(tuple(lenders), choice, market.get("culture", "polyculture"))


def build_observers(
    tables: list[dict[str, Any]], context: RunContext, allow_imports: tuple[str, ...] = ()
) -> list[Any]:
    """Build the ``[[observers]]``; each writes its rows under its ``label`` (default: its name), unique."""
    observers: list[Any] = []
    seen: dict[str, int] = {}
    for i, table in enumerate(tables):
        section = f"observers[{i}]"
        params = {key: value for key, value in table.items() if key != "label"}
        observer = build("observer", params, section=section, allow_imports=allow_imports, context=context, keep=True)
        if "label" in table:
            label = table["label"]
            if not isinstance(label, str) or not label.strip():
                raise ConfigError(
                    f"{section}.label", f"must be a non-empty string, got {label!r}", 'write label = "..."'
                )
            observer.name = label
        name = str(observer.name)
        if name in seen:
            raise ConfigError(
                f"{section}.label",
                f"observers[{seen[name]}] and observers[{i}] would both write their rows as {name!r}",
                f'give one of them its own label, e.g. label = "{name}-{i}"',
            )
        seen[name] = i
        observers.append(observer)
    return observers
