"""DiCE run for real on German credit: what docs/recourse.md promises of the ``dice`` generator.

Needs the optional package dice-ml (``pip install 'recoursesim[dice]'``); skipped without it, and
selected on its own with ``pytest -m dice``.
"""

from __future__ import annotations

import numpy as np
import pytest

from recoursesim.component import RunContext
from recoursesim.recourse import ExactLinearRecourse

pytest.importorskip("dice_ml")

pytestmark = pytest.mark.dice

#: Rejected agents DiCE is asked about (DiCE explains one agent at a time, about 0.4 s each).
N_AGENTS = 8


@pytest.fixture(scope="module")
def dice_run(german_logistic):
    from recoursesim.recourse.dice import DiceRecourse

    world = german_logistic
    scores_all = world.scorer.score(world.agents)
    threshold = float(np.quantile(scores_all, 0.8))
    agents = world.agents[scores_all < threshold][:N_AGENTS]
    scores = world.scorer.score(agents)
    dice = DiceRecourse(action_set=world.action_set, reference=world.train, seed=0).bind(
        RunContext(schema=world.schema)
    )
    recommendation = dice.recommend(agents, scores, threshold, world.scorer)
    return world, agents, scores, threshold, dice, recommendation


def test_dice_finds_recourse_for_most_rejected_agents(dice_run):
    _, agents, _, _, dice, recommendation = dice_run
    assert dice.found_.sum() >= N_AGENTS // 2, f"DiCE found recourse for only {dice.found_.sum()}/{N_AGENTS}"
    assert np.all(np.any(recommendation[dice.found_] != agents[dice.found_], axis=1)), "a found agent did not move"


def test_found_recommendations_are_accepted_and_legal(dice_run):
    world, agents, _, threshold, dice, recommendation = dice_run
    found = dice.found_
    assert np.all(world.scorer.score(recommendation[found]) >= threshold)
    assert np.all(dice.actions_.is_valid(agents[found], recommendation[found]))
    np.testing.assert_array_equal(recommendation[~found], agents[~found])


def test_immutable_features_never_move(dice_run):
    world, agents, _, _, _, recommendation = dice_run
    columns = [world.schema.names.index(n) for n in world.action_set["immutable"]]
    assert columns, "the German action set names immutable features"
    np.testing.assert_array_equal(recommendation[:, columns], agents[:, columns])


def test_cost_never_below_the_exact_optimum(dice_run):
    # The model is a one-hot logistic pipeline: exact_linear's optimum is a lower bound on any legal accepted move.
    world, agents, scores, threshold, dice, recommendation = dice_run
    exact = ExactLinearRecourse(action_set=world.action_set).bind(RunContext(schema=world.schema))
    best = exact.recommend(agents, scores, threshold, world.scorer)
    both = dice.found_ & exact.found_
    assert both.any()
    optimum = exact.cost(best - agents)[both]
    assert np.all(dice.cost(recommendation - agents)[both] >= optimum - 1e-9)
