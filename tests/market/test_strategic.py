"""The strategic (Stackelberg) lender: a hand-computed 1-D game, refits that do not ratchet, a scenario run."""

import numpy as np
import pytest

from recoursesim.errors import ConfigError
from recoursesim.scoring import LinearScorer
from recoursesim.training import TrainingContext
from recoursesim.training.strategic import StrategicScorer, StrategicTrainer

# Dyadic numbers: every sum below is exact in binary floating point.
X = np.array([[0.125], [0.375], [0.5], [0.625], [0.875]])
CUT = 0.5
BUDGET = 0.25


def gamed(scorer, features, cut, budget):
    """Best response on a line with weight 1: reach the cut-off if it is at most ``budget`` away."""
    gap = cut - scorer.score(features)
    move = np.where((gap > 0) & (gap <= budget), gap, 0.0)
    return features + move[:, None]


def test_stackelberg_threshold_moves_by_the_budget_by_hand():
    naive = LinearScorer([1.0])
    # the naive lender accepts x >= 0.5; after gaming, 0.375 reaches 0.5 as well (0.125 cannot)
    naive_accepts = naive.score(gamed(naive, X, CUT, BUDGET)) >= CUT
    assert naive_accepts.tolist() == [False, True, True, True, True]
    strategic = StrategicTrainer(budget=BUDGET).start(X, np.zeros(5), naive, np.random.default_rng(0))
    assert isinstance(strategic, StrategicScorer)
    # deployed score x - 0.25 against the cut-off 0.5: the true threshold is 0.75 = 0.5 + budget
    assert strategic.score(X).tolist() == [-0.125, 0.125, 0.25, 0.375, 0.625]
    assert strategic.linear_form().intercept == -BUDGET
    # after gaming only the truly qualified (x >= 0.5) are accepted: 0.5 moves to 0.75, 0.375 cannot
    strategic_accepts = strategic.score(gamed(strategic, X, CUT, BUDGET)) >= CUT
    assert strategic_accepts.tolist() == (X[:, 0] >= CUT).tolist() == [False, False, True, True, True]


def test_refit_labels_are_the_non_strategic_decisions():
    deployed = StrategicScorer(LinearScorer([1.0]), BUDGET)
    scores = deployed.score(X)
    context = TrainingContext(
        step=1,
        features=X,
        group=np.zeros(5, dtype=np.int16),
        scores=scores,
        selected=scores >= CUT,  # a threshold selector at 0.5: only 0.875
        threshold=CUT,
        recommendation=np.full(X.shape, np.nan),
        scorer=deployed,
        rng=np.random.default_rng(0),
    )
    trainer = StrategicTrainer(budget=BUDGET)
    _, labels, _ = trainer.training_data(context)
    # labels of the unshifted model at 0.5: x >= 0.5; the refit learns that boundary and lowers it once
    assert labels.tolist() == [0, 0, 1, 1, 1]
    refitted = trainer.update(context)
    assert isinstance(refitted, StrategicScorer) and refitted.budget == BUDGET
    assert not isinstance(refitted.inner, StrategicScorer)
    inner = refitted.inner.score(X)
    assert np.allclose(refitted.score(X), inner - BUDGET)


def test_a_logistic_link_states_no_linear_form():
    from sklearn.linear_model import LogisticRegression

    from recoursesim.scoring import ClassifierScorer

    model = ClassifierScorer(LogisticRegression().fit(X, [0, 0, 1, 1, 1]), output="proba")
    assert StrategicScorer(model, BUDGET).linear_form() is None
    decision = ClassifierScorer(model.estimator, output="decision")
    form = StrategicScorer(decision, BUDGET).linear_form()
    assert form.intercept == pytest.approx(float(model.estimator.intercept_[0]) - BUDGET)


def test_negative_budget_is_refused():
    with pytest.raises(ConfigError, match=r"^budget:"):
        StrategicTrainer(budget=-0.1)


def test_a_scenario_with_the_strategic_trainer_runs(small_run):
    result = small_run({"name": "strategic", "budget": 0.05})
    ledger = result.ledger
    assert ledger["step"].max() == 3
    assert ledger["selected"].groupby(ledger["step"]).sum().eq(20).all()  # top-k still selects k
    assert isinstance(result.model.scorer, StrategicScorer)


def test_under_a_threshold_selector_the_threshold_rises_by_the_budget(small_run):
    """docs/markets.md's configuration: at step 0, the selected are exactly those scoring >= 0.5 + budget."""
    selection = {"name": "threshold", "threshold": 0.5}
    ledger = small_run({"name": "strategic", "budget": 0.05}, steps=1, initial=80, selection=selection).ledger
    first = ledger[ledger["step"] == 0]
    raw = 0.5 * first["skill"] + 0.5 * first["experience"]  # the scenario's scorer, not lowered
    assert np.allclose(first["score"], raw - 0.05)  # the ledger holds the deployed score
    assert first["selected"].any() and (~first["selected"] & (raw >= 0.5)).any()  # the shift bites
    assert (first["selected"] == (raw >= 0.55 - 1e-12)).all()
