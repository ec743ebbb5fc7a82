"""Each refit order on four agents and two steps, checked against values worked out by hand.

Agents A (0, 3), B (1, 2), C (2, 1), D (3, 0); k = 1; the first model scores ``x0``. The trainer
returns ``2·x1`` at its first refit and ``x0 + x1`` at its second. Recommendations are the L2
projection onto ``f(x') = threshold``; agents move half-way toward them. Each test pins which
model scores the agents, which threshold the ledger stores, what the trainer is given, and which
recommendations the agents move toward under which model.
"""

import numpy as np
import pytest

from recoursesim.component import Component, RunContext
from recoursesim.engine.model import RecourseModel
from recoursesim.populations.base import Cohort
from recoursesim.recourse.linear import LinearRecourse
from recoursesim.scoring.linear import LinearScorer
from recoursesim.selection.top_k import TopKSelector
from recoursesim.training.base import Trainer

START = np.array([[0.0, 3.0], [1.0, 2.0], [2.0, 1.0], [3.0, 0.0]])  # A, B, C, D
A, B, C, D = range(4)


class FourAgents:
    feature_names = ("x0", "x1")
    group_names = ("g0", "g1")

    def fit(self, rng):
        return self

    def sample(self, n, rng):
        return Cohort(START[:n].copy(), np.array([0, 1, 0, 1][:n]), np.ones(n))


class ScriptedTrainer(Component, Trainer):
    """Returns the next scripted model at each refit and keeps what it was given."""

    def __init__(self, order):
        self.order = order
        self.models = [LinearScorer([0.0, 2.0]), LinearScorer([1.0, 1.0])]
        self.calls = []

    def update(self, context):
        recommendation = context.recommendation[~context.selected]
        self.calls.append((context.step, tuple(context.scorer.weights), context.threshold, recommendation))
        return self.models[len(self.calls) - 1]


class HalfWay(Component):
    """Moves half-way toward the recommendation and keeps what it was given."""

    def __init__(self):
        self.calls = []

    def act(self, context):
        self.calls.append(
            (context.step, tuple(context.scorer.weights), context.scores.copy(), context.threshold,
             context.recommendation.copy())
        )  # fmt: skip
        return context.features + 0.5 * (context.recommendation - context.features)


def run(order):
    trainer, behaviour = ScriptedTrainer(order), HalfWay()
    model = RecourseModel(
        FourAgents(),
        LinearScorer([1.0, 0.0]),
        TopKSelector(1),
        LinearRecourse().bind(RunContext(feature_names=("x0", "x1"))),
        behaviour,
        n_initial=4,
        entrants=0,
        n_steps=1,
        trainer=trainer,
        seed=0,
    ).run()
    return model, trainer, behaviour


def ledger_step(model, t):
    rows = model.ledger[model.ledger["step"] == t].set_index("agent_id")
    return rows["score"].to_dict(), set(rows["threshold"]), rows.index[rows["selected"]].tolist()


def assert_calls(actual, expected):
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert got[:2] == want[:2]  # step, weights of the model used
        for g, w in zip(got[2:], want[2:], strict=True):
            np.testing.assert_allclose(g, w)


def test_spec_acts_under_the_selecting_model_then_refits():
    model, trainer, behaviour = run("spec")
    # t=0: x0 scores; D wins at 3; A, B, C are told to move to x0 = 3 and go half-way.
    assert ledger_step(model, 0) == ({A: 0, B: 1, C: 2, D: 3}, {3.0}, [D])
    # t=1: the refit 2·x1 scores A (1.5, 3), B (2, 2), C (2.5, 1).
    assert ledger_step(model, 1) == ({A: 6, B: 4, C: 2}, {6.0}, [A])
    assert_calls(
        behaviour.calls,
        [
            (0, (1.0, 0.0), [0, 1, 2], 3.0, [[3, 3], [3, 2], [3, 1]]),
            (1, (0.0, 2.0), [4, 2], 6.0, [[2, 3], [2.5, 3]]),
        ],
    )
    assert_calls(
        trainer.calls,
        [(0, (1.0, 0.0), 3.0, [[3, 3], [3, 2], [3, 1]]), (1, (0.0, 2.0), 6.0, [[2, 3], [2.5, 3]])],
    )


def test_reference_refits_first_and_agents_follow_the_refitted_model():
    model, trainer, behaviour = run("reference")
    # t=0: the refit 2·x1 re-scores A..D as 6, 4, 2, 0: its cut-off is 6; A is already there.
    assert ledger_step(model, 0) == ({A: 0, B: 1, C: 2, D: 3}, {3.0}, [D])  # stored: the selecting model's
    # t=1: 2·x1 scores A (0, 3), B (1, 2.5), C (2, 2); then x0 + x1 re-scores them 3, 3.5, 4.
    assert ledger_step(model, 1) == ({A: 6, B: 5, C: 4}, {6.0}, [A])
    assert_calls(
        behaviour.calls,
        [
            (0, (0.0, 2.0), [6, 4, 2], 6.0, [[0, 3], [1, 3], [2, 3]]),
            (1, (1.0, 1.0), [3.5, 4], 4.0, [[1.25, 2.75], [2, 2]]),
        ],
    )
    assert_calls(
        trainer.calls,
        [(0, (1.0, 0.0), 3.0, [[3, 3], [3, 2], [3, 1]]), (1, (0.0, 2.0), 6.0, [[1, 3], [2, 3]])],
    )


def test_refit_before_acting_moves_toward_the_old_recommendations_under_the_refitted_model():
    model, trainer, behaviour = run("refit_before_acting")
    assert ledger_step(model, 0) == ({A: 0, B: 1, C: 2, D: 3}, {3.0}, [D])
    assert ledger_step(model, 1) == ({A: 6, B: 4, C: 2}, {6.0}, [A])
    assert_calls(
        behaviour.calls,
        [
            (0, (0.0, 2.0), [6, 4, 2], 3.0, [[3, 3], [3, 2], [3, 1]]),
            (1, (1.0, 1.0), [4, 3.5], 6.0, [[2, 3], [2.5, 3]]),
        ],
    )
    assert [call[:3] for call in trainer.calls] == [(0, (1.0, 0.0), 3.0), (1, (0.0, 2.0), 6.0)]


def test_refit_then_restate_skips_the_first_refit_and_stores_the_refitted_threshold():
    model, trainer, behaviour = run("refit_then_restate")
    # t=0: no refit; agents act under x0 as with "spec".
    assert ledger_step(model, 0) == ({A: 0, B: 1, C: 2, D: 3}, {3.0}, [D])
    # t=1: x0 still scores A (1.5, 3), B (2, 2), C (2.5, 1): C wins at 2.5. The refit 2·x1 re-scores
    # them 6, 4, 2 and the stored threshold is its cut-off, 6; the recorded scores stay x0's.
    assert ledger_step(model, 1) == ({A: 1.5, B: 2, C: 2.5}, {6.0}, [C])
    assert model.threshold == 6.0
    assert_calls(
        behaviour.calls,
        [
            (0, (1.0, 0.0), [0, 1, 2], 3.0, [[3, 3], [3, 2], [3, 1]]),
            (1, (0.0, 2.0), [6, 4], 6.0, [[1.5, 3], [2, 3]]),
        ],
    )
    assert_calls(trainer.calls, [(1, (1.0, 0.0), 2.5, [[2.5, 3], [2.5, 2]])])


@pytest.mark.parametrize("order", ["spec", "reference", "refit_before_acting", "refit_then_restate"])
def test_every_order_records_effort_and_recommendations_for_the_waiting(order):
    model, _, behaviour = run(order)
    ledger = model.ledger
    waiting = ledger[~ledger["selected"]]
    moved = [call[4] for call in behaviour.calls]
    np.testing.assert_allclose(waiting[["rec_x0", "rec_x1"]].to_numpy(), np.vstack(moved))
    np.testing.assert_allclose(
        waiting["effort"], 0.5 * np.linalg.norm(np.vstack(moved) - waiting[["x0", "x1"]].to_numpy(), axis=1)
    )
