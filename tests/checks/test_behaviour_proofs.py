"""Every registered component proven by one behaviour that a do-nothing version of it would break.

The conformance checks (``tests/checks/test_registered_conformance.py``) test contracts: shapes,
determinism, untouched inputs. A generator that returns every agent unchanged and reports nothing
found meets all of them. The proofs here run each registered component once in a small world and
assert what it is *for*: a generator moves rejected agents to accepted points, a selector picks the
agents its rule names, a trainer learns from the step's labels, a behaviour moves agents towards their
recommendations, an observer's output follows the world it observes.

:data:`PROOFS` must name every registered component (by its primary name): a new component without
a proof fails :func:`test_every_registered_component_has_a_behaviour_proof`.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import warnings
from collections.abc import Callable

import numpy as np
import pytest

from recoursesim import registry
from recoursesim.checks import registered_cases
from recoursesim.checks import selector as selector_checks
from recoursesim.checks.behaviour import contexts as action_contexts
from recoursesim.checks.observer import CHECK_RUN
from recoursesim.checks.recourse import _world as recourse_world
from recoursesim.checks.trainer import _step as trainer_step
from recoursesim.choice import ChoiceContext
from recoursesim.component_index import registered_classes
from recoursesim.scenario import Scenario
from recoursesim.selection.base import SelectionContext

#: The kinds whose components must each carry a behaviour proof.
PROVEN_KINDS = ("recourse", "selector", "trainer", "behaviour", "observer", "choice")


def _build(kind: str, name: str, **params):
    case = next(c for c in registered_cases((kind,)) if c.name == name)
    built = case.factory()
    if params:
        built.set_params(**params) if hasattr(built, "set_params") else None
    return built


# --------------------------------------------------------------------------------------- recourse


def prove_recourse(name: str) -> None:
    """Rejected agents get a recommendation that moves them and that the model accepts (most of them)."""
    generator = _build("recourse", name)
    features, scores, threshold, scorer = recourse_world(0)
    recommendation = np.asarray(generator.recommend(features, scores, threshold, scorer))
    rejected = scores < threshold
    moved = np.any(recommendation != features, axis=1)
    accepted = scorer.score(recommendation) >= threshold - 1e-12
    helped = moved & accepted
    # In this world every rejected agent can reach the cut-off (two free numeric features).
    assert np.mean(helped[rejected]) >= 0.5, f"{name}: only {helped[rejected].sum()}/{rejected.sum()} agents helped"
    assert not np.any(moved[~rejected]), f"{name}: moved an agent already accepted"


def prove_offset_target() -> None:
    """The reference ranker's point: on the gradient line through the agent, at score ``threshold - offset``."""
    generator = _build("recourse", "offset_target")
    features, scores, threshold, scorer = recourse_world(0)
    features = 0.6 + 0.4 * features  # high enough that most targets stay inside the box
    scores = scorer.score(features)
    threshold = float(np.median(scores))
    recommendation = np.asarray(generator.recommend(features, scores, threshold, scorer))
    rejected = scores < threshold
    # w = (0.5, 0.5): x' = x + (s_t - 0.5 - f(x)) * w / |w|^2, so f(x') = s_t - 0.5 exactly
    np.testing.assert_allclose(scorer.score(recommendation[rejected]), threshold - 0.5, atol=1e-12)
    # |w|^2 = 0.5, so the unpinned move is (s_t - 0.5 - f(x)) * (1, 1); rows that would leave the box are pinned
    free = rejected & np.all(features + (threshold - 0.5 - scores)[:, None] >= -0.1, axis=1)
    assert free.sum() >= 3
    move = np.outer(threshold - 0.5 - scores[free], [1.0, 1.0])
    np.testing.assert_allclose(recommendation[free] - features[free], move, atol=1e-12)
    np.testing.assert_array_equal(recommendation[~rejected], features[~rejected])


def prove_margin() -> None:
    """After a step whose cut-off rose, the margin generator aims past the cut-off by what it learned."""
    generator = _build("recourse", "margin")
    features, scores, threshold, scorer = recourse_world(0)
    generator.recommend(features, scores, threshold - 0.1, scorer)
    moved_features = features + 0.01  # the agents acted: a new step, the cut-off 0.1 higher
    recommendation = np.asarray(generator.recommend(moved_features, scorer.score(moved_features), threshold, scorer))
    assert generator.margin_ > 0, "margin: learned nothing from a rising cut-off"
    strong = generator.strengthened_
    assert strong.sum() >= 3, "margin: no recommendation was aimed past the cut-off"
    np.testing.assert_allclose(scorer.score(recommendation[strong]), threshold + generator.margin_, atol=1e-9)


def prove_worst_case() -> None:
    """The worst-case generator's points hold for the worst model in the ball and cost more than the plain ones."""
    from recoursesim.recourse import worst_case_margin
    from recoursesim.scoring.base import linear_form_of

    generator = _build("recourse", "worst_case")
    features, scores, threshold, scorer = recourse_world(0)
    recommendation = np.asarray(generator.recommend(features, scores, threshold, scorer))
    plain = np.asarray(_build("recourse", "linear").recommend(features, scores, threshold, scorer))
    strong = generator.strengthened_
    assert strong.sum() >= 3, "worst_case: no robust recommendation"
    form = linear_form_of(scorer)
    worst = worst_case_margin(form, recommendation[strong], generator.radius)
    assert np.all(worst >= threshold - 1e-7), "worst_case: a point fails for a model in the ball"
    assert np.all(
        generator.cost(recommendation[strong] - features[strong]) > generator.cost(plain[strong] - features[strong])
    )


# --------------------------------------------------------------------------------------- selectors


def _context(scores: np.ndarray, group: np.ndarray, entry: np.ndarray, initial: np.ndarray) -> SelectionContext:
    n = scores.size
    return SelectionContext(
        step=3,
        agent_id=np.arange(n),
        entry_step=entry,
        group=group.astype(np.int16),
        n_groups=int(group.max()) + 1,
        features=np.column_stack([scores, scores]),
        initial_score=initial,
        effort_spent=np.zeros(n),
    )


def _select(selector, scores: np.ndarray, context: SelectionContext) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(selector.select(scores, context).selected)


def prove_top_k() -> None:
    """Top-k picks exactly the k highest scores."""
    scores = np.array([0.3, 0.9, 0.1, 0.7, 0.5, 0.8, 0.2])
    n = scores.size
    chosen = _select(_build("selector", "top_k"), scores, _context(scores, np.zeros(n), np.full(n, 3), scores))
    k = int(chosen.sum())
    assert k >= 1
    assert set(np.flatnonzero(chosen)) == set(np.argsort(-scores)[:k])


def prove_cns() -> None:
    """CNS gives each group places in proportion to its size, however low its scores: group 1 is chosen too."""
    group = np.array([0] * 10 + [1] * 10)
    scores = np.concatenate([np.linspace(0.6, 0.99, 10), np.linspace(0.0, 0.4, 10)])  # group 1 all below group 0
    selector = registry.build("selector", {"name": "cns", "k": 4})
    chosen = _select(selector, scores, _context(scores, group, np.full(20, 3), scores))
    assert chosen[group == 1].sum() == 2 and chosen[group == 0].sum() == 2
    # within each group, the highest scores
    assert chosen[9] and chosen[8] and chosen[19] and chosen[18]


def prove_threshold() -> None:
    """The threshold selector picks exactly the agents at or above its threshold."""
    scores = np.array([0.2, 0.5, 0.7, 0.49, 0.9])
    selector = registry.build("selector", {"name": "threshold", "threshold": 0.5})
    chosen = _select(selector, scores, _context(scores, np.zeros(5), np.full(5, 3), scores))
    np.testing.assert_array_equal(chosen, scores >= 0.5)


def prove_effort_rewarding() -> None:
    """Reserved places go to the returning agents who improved most, even below the open pool's scores."""
    # agents 0-3 are returning (entered at step 0); 4-7 are newcomers with higher scores
    scores = np.array([0.30, 0.20, 0.25, 0.10, 0.90, 0.80, 0.85, 0.95])
    initial = np.array([0.05, 0.18, 0.24, 0.09, 0.90, 0.80, 0.85, 0.95])  # agent 0 improved by 0.25
    entry = np.array([0, 0, 0, 0, 3, 3, 3, 3])
    selector = registry.build("selector", {"name": "effort_rewarding", "k": 2, "returning_share": 0.5})
    chosen = _select(selector, scores, _context(scores, np.zeros(8), entry, initial))
    np.testing.assert_array_equal(np.flatnonzero(chosen), [0, 7])


def prove_lending() -> None:
    """Demographic parity lends to the same share of each group, the top scores first (hand-computed).

    Group 0: 4 applicants at 800 (repay 0.95), 4 at 600 (0.85), 2 at 300 (0.5); group 1: 2 at 800
    (0.9), 4 at 600 (0.7), 4 at 300 (0.5). With u = (1, -4) a loan is worth 5ρ - 4, so the total
    utility's slope in the common rate β is 1.25, 0.25, -0.25 on [0, .2], [.2, .4], [.4, .6]: β = 0.4,
    i.e. group 0's four at 800 and group 1's two at 800 and two of its four at 600.
    """
    scores = np.array([800.0] * 4 + [600.0] * 4 + [300.0] * 2 + [800.0] * 2 + [600.0] * 4 + [300.0] * 4)
    group = np.array([0] * 10 + [1] * 10)
    repay = np.array([0.95] * 4 + [0.85] * 4 + [0.5] * 2 + [0.9] * 2 + [0.7] * 4 + [0.5] * 4)
    context = dataclasses.replace(_context(scores, group, np.full(20, 3), scores), repay=repay)
    selector = registry.build("selector", {"name": "lending", "criterion": "demographic_parity"})
    chosen = _select(selector, scores, context)
    assert chosen[group == 0].sum() == 4 and chosen[group == 1].sum() == 4
    assert chosen[:4].all() and chosen[10:12].all() and chosen[12:16].sum() == 2


# --------------------------------------------------------------------------------------- trainers


def prove_trainer(name: str) -> None:
    """A trainer learns from the step: its model ranks the selected above the rejected better than chance,
    and differs from the model it was given (whose ranking of this step it was not told)."""
    step = trainer_step(0)
    # Relabel: select by x0 alone, so a learner must move away from the given 0.5/0.5 ranker.
    selected = np.zeros(step.scores.size, dtype=bool)
    selected[np.argsort(-step.features[:, 0])[:30]] = True
    trainer = _build("trainer", name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = trainer.update(step.context(0, selected))
    before, after = step.scorer.score(step.features), np.asarray(model.score(step.features), dtype=float)
    assert not np.allclose(before, after), f"{name}: update returned a model that scores like the old one"
    # the learned scores separate the newly selected better than the old ranker does
    from sklearn.metrics import roc_auc_score

    assert roc_auc_score(selected, after) > roc_auc_score(selected, before) + 0.02, f"{name} did not learn the labels"


# --------------------------------------------------------------------------------------- behaviours


def prove_behaviour(name: str) -> None:
    """Agents move towards their recommendations: on average closer to them and higher scored."""
    behaviour = _build("behaviour", name)
    context = action_contexts(0)[2]  # 40 agents, a scalar threshold
    moved = np.asarray(behaviour.act(context))
    if name == "logit_step":
        # The reference step moves forward by an effort draw in logit-score space whatever the distance to x'
        # (it is paired with a target below the agent): scores rise for agents below the threshold.
        below = context.scores < context.threshold
        gained = context.scorer.score(moved)[below] - context.scores[below]
        assert np.all(gained >= -1e-12) and np.mean(gained > 0) >= 0.5, f"{name}: agents below the cut-off did not rise"
        return
    before = np.linalg.norm(context.recommendation - context.features, axis=1)
    after = np.linalg.norm(context.recommendation - moved, axis=1)
    assert np.mean(after) < 0.9 * np.mean(before), f"{name}: agents did not move towards their recommendations"
    assert np.mean(context.scorer.score(moved)) > np.mean(context.scores), f"{name}: scores did not rise"


# --------------------------------------------------------------------------------------- observers


def _observations(name: str, seed: int, weights: list[float]):
    spec = {**CHECK_RUN, "run": {**CHECK_RUN["run"], "seed": seed}, "scorer": {"name": "linear", "weights": weights}}
    model = Scenario.from_dict(spec).build_model(seed)
    model.observers = (_build("observer", name),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.run()
    return model.observations


def prove_observer(name: str) -> None:
    """The observer reports finite numbers that change when the observed world changes (another seed and model)."""
    first = _observations(name, 0, [0.5, 0.5])
    second = _observations(name, 1, [0.8, 0.2])
    assert len(first) and np.isfinite(first["value"].to_numpy(dtype=float)).any(), f"{name}: no finite value"
    key = ["step", "group", "metric"]
    joined = first.merge(second, on=key, how="outer", suffixes=("_a", "_b"))
    a, b = joined["value_a"].to_numpy(dtype=float), joined["value_b"].to_numpy(dtype=float)
    differs = ~np.isclose(a, b, equal_nan=True)
    assert differs.any(), f"{name}: the same output for two different worlds"


# --------------------------------------------------------------------------------------- choice


def _market(scores, last_threshold=(np.nan, np.nan), last_cost=None, capacity=None, seed=0) -> ChoiceContext:
    """A choice context over ``scores`` whose lenders accept every score of at least 0.5."""
    scores = np.asarray(scores, dtype=float)
    n, n_lenders = scores.shape
    return ChoiceContext(
        step=1,
        lender_names=tuple("ABCDE"[:n_lenders]),
        agent_id=np.arange(n),
        scores=scores,
        last_threshold=np.asarray(last_threshold, dtype=float),
        last_cost=np.full(scores.shape, np.nan) if last_cost is None else np.asarray(last_cost, dtype=float),
        capacity=np.ones(n) if capacity is None else np.asarray(capacity, dtype=float),
        rng=np.random.default_rng(seed),
        decide=lambda applied: applied & (scores >= 0.5),
    )


SCORES = [[0.9, 0.2], [0.3, 0.6], [0.4, 0.1]]


def prove_choice_all() -> None:
    """Everybody applies everywhere."""
    assert _build("choice", "all").choose(_market(SCORES)).all()


def prove_best_odds() -> None:
    """The highest score over the lender's last threshold; at the first step the highest score (ties: first lender)."""
    choice = _build("choice", "best-odds")
    # odds against thresholds (0.6, 0.2): (0.3, 0), (-0.3, 0.4), (-0.2, -0.1)
    assert choice.choose(_market(SCORES, (0.6, 0.2))).tolist() == [[True, False], [False, True], [False, True]]
    assert choice.choose(_market([[0.5, 0.5], [0.1, 0.2]])).tolist() == [[True, False], [False, True]]


def prove_cheapest() -> None:
    """The lender whose last recommendation cost least; no recommendation yet: best odds."""
    choice = _build("choice", "cheapest")
    cost = [[0.4, 0.1], [np.nan, np.nan], [0.2, np.nan]]
    assert choice.choose(_market(SCORES, last_cost=cost)).tolist() == [[False, True], [False, True], [True, False]]


def prove_sequential() -> None:
    """Best odds first, the next lender only after a refusal, as many applications as the capacity pays."""
    free = _build("choice", "sequential").choose(_market(SCORES))
    # 0 is accepted by A at once, 1 by B at once, 2 is refused by A and then tries B.
    assert free.tolist() == [[True, False], [False, True], [True, True]]
    paid = _build("choice", "sequential", cost=0.6)
    assert paid.choose(_market(SCORES)).tolist() == [[True, False], [False, True], [True, False]]
    assert paid.choose(_market(SCORES, capacity=[1.2, 1.2, 1.2])).tolist() == free.tolist()
    fixed = _build("choice", "sequential", order=["B", "A"]).choose(_market(SCORES))
    assert fixed.tolist() == [[True, True], [False, True], [True, True]]


def prove_random() -> None:
    """One lender per applicant, each about equally often (3,000 applicants, three lenders: within 5 SE)."""
    applied = _build("choice", "random").choose(_market(np.zeros((3000, 3)), (np.nan,) * 3))
    assert (applied.sum(axis=1) == 1).all()
    share = applied.mean(axis=0)
    assert np.all(np.abs(share - 1 / 3) < 5 * np.sqrt(2 / 9 / 3000)), share


# --------------------------------------------------------------------------------------- the table

_DICE = pytest.mark.dice


def _recourse(name: str) -> Callable[[], None]:
    return lambda: prove_recourse(name)


PROOFS: dict[tuple[str, str], Callable[[], None]] = {
    **{("recourse", n): _recourse(n) for n in ("auto", "dice", "exact_linear", "search", "linear", "manifold")},
    ("recourse", "offset_target"): prove_offset_target,
    ("recourse", "margin"): lambda: (prove_recourse("margin"), prove_margin()),
    ("recourse", "worst_case"): lambda: (prove_recourse("worst_case"), prove_worst_case()),
    ("choice", "all"): prove_choice_all,
    ("choice", "best-odds"): prove_best_odds,
    ("choice", "cheapest"): prove_cheapest,
    ("choice", "sequential"): prove_sequential,
    ("choice", "random"): prove_random,
    ("selector", "top_k"): prove_top_k,
    ("selector", "cns"): prove_cns,
    ("selector", "threshold"): prove_threshold,
    ("selector", "effort_rewarding"): prove_effort_rewarding,
    ("selector", "lending"): prove_lending,
    **{("trainer", n): (lambda n=n: prove_trainer(n)) for n in ("refit", "cda", "gupta", "strategic", "performative")},
    **{("behaviour", n): (lambda n=n: prove_behaviour(n)) for n in ("logit_step", "bounded_effort", "follow_exactly")},
    **{
        ("observer", n): (lambda n=n: prove_observer(n))
        for n in (
            "ccm",
            "domain_shift",
            "equality_of_effort",
            "facts",
            "ground_truth",
            "model_shift",
            "selection_boundary",
        )
    },
}

#: Proofs that need an optional package: (kind, name) -> importable module.
NEEDS = {("recourse", "dice"): "dice_ml"}


def _primaries(kind: str) -> set[str]:
    return set(registered_classes(kind))


def test_every_registered_component_has_a_behaviour_proof():
    missing = [(k, n) for k in PROVEN_KINDS for n in sorted(_primaries(k)) if (k, n) not in PROOFS]
    assert not missing, (
        f"registered components without a behaviour proof: {missing}; add one to PROOFS in {__file__} "
        "(a check that a do-nothing version of the component would fail)"
    )
    stale = [key for key in PROOFS if key[1] not in _primaries(key[0])]
    assert not stale, f"proofs for components that are not registered: {stale}"


def _params():
    for key in sorted(PROOFS):
        marks = [_DICE] if key in NEEDS else []
        yield pytest.param(key, id=f"{key[0]}-{key[1]}", marks=marks)


@pytest.mark.parametrize("key", list(_params()))
def test_behaviour_proof(key):
    module = NEEDS.get(key)
    if module is not None and importlib.util.find_spec(module) is None:
        pytest.skip(f"needs the optional package {module}")
    PROOFS[key]()


def test_selector_checks_world_is_still_the_one_the_proofs_assume():
    # The proofs build their own contexts with SelectionContext's fields; fail loudly if it changes shape.
    assert {"step", "agent_id", "entry_step", "group", "n_groups", "features", "initial_score", "effort_spent"} <= set(
        SelectionContext.__dataclass_fields__
    )
    assert selector_checks.KIND == "selector"
