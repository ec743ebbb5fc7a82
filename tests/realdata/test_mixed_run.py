"""Mixed-type behaviour, the ledger in data-set values, and whole runs on a dataset population."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recoursesim.behaviour import BoundedEffortBehaviour
from recoursesim.behaviour.base import ActionContext
from recoursesim.component import RunContext
from recoursesim.engine.model import RecourseModel
from recoursesim.features import CostModel, Feature, FeatureSchema, MixedActionSet
from recoursesim.populations import DatasetPopulation
from recoursesim.registry import build
from recoursesim.scoring import ModelScorer
from recoursesim.selection import TopKSelector

SCHEMA = FeatureSchema(
    [
        Feature("income", "numeric", (), 0.0, 10.0),
        Feature("level", "ordinal", ("a", "b", "c", "d", "e"), 0.0, 4.0),
        Feature("sector", "categorical", ("x", "y", "z"), 0.0, 2.0),
    ]
)


def _act(budget: float, start: list[float], target: list[float]) -> np.ndarray:
    x = np.array([start])
    context = ActionContext(
        features=x,
        recommendation=np.array([target]),
        effort=np.array([budget]),
        scores=np.zeros(1),
        threshold=1.0,
        scorer=None,  # type: ignore[arg-type]
        cost=CostModel(SCHEMA).cost,
        rng=np.random.default_rng(0),
        step=0,
    )
    return BoundedEffortBehaviour(budget="constant").bind(RunContext(schema=SCHEMA)).act(context)[0]


@pytest.mark.parametrize(
    ("budget", "expected", "spent"),
    [
        # switch (1) first; 0.5 left buys 1/4 of the rest (cost 2): income +2.5, level +1 (of 4)
        (1.5, [2.5, 1, 1], 1.5),
        # the switch does not fit; 0.5 buys 1/4 of the rest
        (0.5, [2.5, 1, 0], 0.5),
        # the budget covers the whole move
        (3.0, [10.0, 4, 1], 3.0),
        # 0.2 left buys a tenth of the rest: income +1, and 0.4 of a level is no level at all
        (1.2, [1.0, 0, 1], 0.1 + 0.0 + 1.0),
    ],
)
def test_mixed_step_by_hand(budget: float, expected: list[float], spent: float) -> None:
    moved = _act(budget, [0.0, 0, 0], [10.0, 4, 1])
    np.testing.assert_allclose(moved, expected)
    assert CostModel(SCHEMA).cost((moved - [0.0, 0, 0])[None, :])[0] == pytest.approx(spent)


def test_mixed_step_never_overspends_and_stays_legal() -> None:
    rng = np.random.default_rng(4)
    actions = MixedActionSet(SCHEMA, increase_only=["level"])
    start = np.column_stack([rng.uniform(0, 10, 500), rng.integers(0, 5, 500), rng.integers(0, 3, 500)]).astype(float)
    target = actions.legalise(start, start + rng.normal(0, 3, start.shape))
    budget = rng.uniform(0, 2, 500)
    context = ActionContext(
        features=start,
        recommendation=target,
        effort=budget,
        scores=np.zeros(500),
        threshold=1.0,
        scorer=None,  # type: ignore[arg-type]
        cost=CostModel(SCHEMA).cost,
        rng=rng,
        step=0,
    )
    moved = BoundedEffortBehaviour(budget="constant").bind(RunContext(schema=SCHEMA)).act(context)
    assert np.all(CostModel(SCHEMA).cost(moved - start) <= budget + 1e-9)
    assert actions.is_valid(start, moved).all()
    between = (np.minimum(start, target) - 1e-9 <= moved) & (moved <= np.maximum(start, target) + 1e-9)
    assert between.all()


@pytest.fixture(scope="module")
def run(random_legal_recourse: type) -> RecourseModel:
    population = DatasetPopulation("sex", dataset="german")
    trainer = build("trainer", {"name": "cda", "estimator": "gradient_boosting"}, context=RunContext.of(population))
    model = RecourseModel(
        population,
        ModelScorer("gradient_boosting"),
        TopKSelector(k=20),
        random_legal_recourse(population.schema, population.default_action_set),
        BoundedEffortBehaviour().bind(RunContext(schema=population.schema)),
        n_initial=300,
        entrants=20,
        n_steps=4,
        trainer=trainer,
        seed=3,
    )
    return model.run()


def test_ledger_is_in_the_data_sets_values(run: RecourseModel) -> None:
    ledger = run.ledger
    assert isinstance(ledger["purpose"].dtype, pd.CategoricalDtype)
    assert "radio/television" in set(ledger["purpose"].astype(str))
    assert ledger["duration"].dtype == np.int64
    assert ledger["present_employment"].cat.ordered
    selected = ledger["selected"].to_numpy()
    assert ledger.loc[selected, "rec_purpose"].isna().all()
    assert ledger.loc[~selected, "rec_purpose"].notna().all()
    assert str(ledger["rec_duration"].dtype) == "Int64"


def test_effort_is_the_cost_of_the_move_made(run: RecourseModel) -> None:
    ledger = run.ledger
    schema = run.schema
    codes = schema.encode(ledger)
    frame = ledger.assign(row=np.arange(len(ledger)))
    nxt = frame.merge(frame.assign(step=frame["step"] - 1), on=["agent_id", "step"], suffixes=("", "_next"))
    moves = codes[nxt["row_next"].to_numpy()] - codes[nxt["row"].to_numpy()]
    # The cost by hand: |move| / range for numbers, |steps| / (levels - 1) for ordinals, 1 per switch.
    expected = np.zeros(len(moves))
    for j, feature in enumerate(schema.features):
        move = np.abs(moves[:, j])
        if feature.kind == "categorical":
            expected += move > 0
        elif feature.kind == "ordinal":
            expected += move / (len(feature.categories) - 1)
        else:
            expected += move / feature.span  # the observed range
    np.testing.assert_allclose(nxt["effort"].to_numpy(), expected, atol=1e-12)
    assert (nxt["effort"] > 0).any()
    moved = moves != 0
    assert moved[:, schema.is_integer].any()  # duration and credit_amount move in this run


def test_immutables_never_change_in_a_run(run: RecourseModel) -> None:
    ledger = run.ledger
    for name in ("sex", "age", "credit_history"):
        assert (ledger.groupby("agent_id", observed=True)[name].nunique() == 1).all()


def test_cda_refits_the_mixed_model(run: RecourseModel) -> None:
    assert run.trainer is not None
    history = run.trainer.history_
    assert len(history) == 5 and all(item["refitted"] for item in history)
    assert type(run.scorer.estimator).__name__ == "TabularModel"
