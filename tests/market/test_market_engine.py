"""The market engine: a hand-computed two-lender step, one-lender identity, identical lenders, determinism."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joblib import Parallel, delayed

from recoursesim.component import Component
from recoursesim.engine.market import TrainingShare, scalar_threshold, training_shares
from recoursesim.ledger import by_applicant
from recoursesim.metrics.market import systemic_exclusion
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate
from recoursesim.training.base import Trainer
from tests.market._hand import market_model

MARKET_COLUMNS = ["lender", "acted"]


def as_market(scenario: str, lenders: list[dict], **market) -> Scenario:
    """``scenario`` declared as a market of ``lenders`` (choice all unless given)."""
    spec = Scenario.bundled(scenario).spec
    return Scenario.from_dict({**spec, "market": {"choice": {"name": "all"}, **market}, "lenders": lenders})


def step_masks(ledger: pd.DataFrame, step: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``(n, L)`` applied and accepted masks of one step of a market ledger."""
    rows = ledger[ledger["step"] == step]
    agents = np.unique(rows["agent_id"])
    shape = (agents.size, len(ledger["lender"].cat.categories))
    applied, accepted = np.zeros(shape, bool), np.zeros(shape, bool)
    i, j = np.searchsorted(agents, rows["agent_id"]), rows["lender"].cat.codes.to_numpy()
    applied[i, j] = True
    accepted[i, j] = rows["selected"].to_numpy()
    return applied, accepted


def test_hand_computed_two_lender_step():
    # Six agents x = 0.1 … 0.6. Lender A scores x and accepts x >= 0.45: agents 4 and 5. Lender B
    # scores 1 - x and takes its top 2: agents 0 and 1 (scores 0.9 and 0.8; threshold 0.8).
    model = market_model()
    model.step()
    ledger = model.ledger
    assert list(ledger["lender"]) == ["A"] * 6 + ["B"] * 6
    assert ledger["selected"].tolist() == [
        False,
        False,
        False,
        False,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]
    np.testing.assert_allclose(ledger["threshold"], [0.45] * 6 + [0.8] * 6)
    # Agents 0, 1, 4, 5 leave; 2 and 3 wait. Each got a recommendation from both lenders:
    # A's projection to x = 0.45 costs 0.15 and 0.05; B's to 1 - x = 0.8 (x = 0.2) costs 0.1 and 0.2.
    rec = ledger["rec_x"].to_numpy()
    np.testing.assert_allclose(rec[[2, 3, 8, 9]], [0.45, 0.45, 0.2, 0.2])
    assert np.isnan(rec[[0, 1, 4, 5, 6, 7, 10, 11]]).all()  # accepted, or accepted elsewhere
    # Agent 2 acts on B's (0.1 < 0.15), agent 3 on A's (0.05 < 0.2); they follow exactly.
    assert ledger["acted"].tolist() == [
        False,
        False,
        False,
        True,
        False,
        False,
        False,
        False,
        True,
        False,
        False,
        False,
    ]
    np.testing.assert_allclose(ledger["effort"], [0, 0, 0, 0.05, 0, 0, 0, 0, 0.1, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(model.table.features[:6, 0], [0.1, 0.2, 0.2, 0.45, 0.5, 0.6])
    assert model.table.status[:6].tolist() == [1, 1, 0, 0, 1, 1]
    assert model.waiting_ids.tolist() == [2, 3]
    assert model.lender_names == ("A", "B")
    assert [len(lender.decisions) for lender in model.lenders] == [1, 1]


def test_an_agent_accepted_by_two_lenders_takes_the_first_and_the_other_acceptance_stays_recorded():
    # With k = 5, B takes the five lowest x (agents 0-4); A takes x >= 0.45 (agents 4, 5). Agent 4
    # is accepted by both: it takes A (declared first); B's row keeps selected = True.
    model = market_model(k_b=5)
    model.step()
    ledger = model.ledger
    assert ledger["selected"].tolist() == [False] * 4 + [True, True] + [True] * 5 + [False]
    assert model.table.status[:6].tolist() == [1] * 6  # everybody left
    assert not ledger["acted"].any() and ledger["rec_x"].isna().all()
    folded = by_applicant(ledger)
    assert folded["selected"].all() and len(folded) == 6


def test_folding_a_market_ledger_keeps_one_row_per_applicant():
    model = market_model(steps=2)
    model.run()
    folded = by_applicant(model.ledger)
    assert not folded.duplicated(["step", "agent_id"]).any()
    assert "lender" not in folded and "acted" not in folded
    # Effort sums the lender rows; the recommendation is the one acted on.
    ledger = model.ledger
    total = ledger.groupby(["step", "agent_id"])["effort"].sum().to_numpy()
    np.testing.assert_allclose(folded.sort_values(["step", "agent_id"])["effort"], total)
    acted = ledger[ledger["acted"]].set_index(["step", "agent_id"])["rec_x"]
    mine = folded.set_index(["step", "agent_id"]).loc[acted.index, "rec_x"]
    np.testing.assert_allclose(mine, acted)


@pytest.mark.parametrize("name", ["default", "bell2024-cda", "german-credit-lending"])
def test_one_lender_market_is_the_plain_run(name):
    plain = simulate(Scenario.bundled(name).with_overrides({"run.steps": 6}))
    market = simulate(as_market(name, [{"name": "solo"}]).with_overrides({"run.steps": 6}))
    assert market.model.lender_names == ("solo",) and plain.model.lender_names == ("default",)
    assert "lender" not in plain.ledger
    assert market.ledger["lender"].astype(str).eq("solo").all()
    pd.testing.assert_frame_equal(market.ledger.drop(columns=MARKET_COLUMNS), plain.ledger)
    pd.testing.assert_frame_equal(market.summary, plain.summary)
    pd.testing.assert_frame_equal(market.metrics, plain.metrics)


@pytest.mark.parametrize("culture", ["monoculture", "polyculture"])
def test_identical_lenders_choice_all_exclude_at_each_lenders_rejection_rate(culture):
    lenders = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
    result = simulate(as_market("default", lenders, culture=culture).with_overrides({"run.steps": 5}))
    plain = simulate(Scenario.bundled("default").with_overrides({"run.steps": 5}))
    for step in range(6):
        applied, accepted = step_masks(result.ledger, step)
        assert applied.all()
        rejection = 1 - accepted.mean(axis=0)
        assert np.ptp(rejection) == 0  # the lenders decide alike
        assert systemic_exclusion(applied, accepted)["all"] == pytest.approx(rejection[0])
    # Every agent accepted by all three takes the first, and acts on the first's recommendation:
    # the run is the one-lender run.
    pd.testing.assert_frame_equal(result.summary, plain.summary)


def test_copies_make_named_lenders_and_sweep_keys_reach_one_lender():
    scenario = as_market("default", [{"name": "bank"}], copies=3).with_overrides({"run.steps": 1})
    model = scenario.build_model()
    assert model.lender_names == ("bank-1", "bank-2", "bank-3")
    two = as_market("default", [{"name": "a"}, {"name": "b"}])
    changed = two.with_overrides({"lenders.b.selection.k": 7, "lenders.0.selection.k": 9})
    assert changed.spec["lenders"][1]["selection"]["k"] == 7 and changed.spec["lenders"][0]["selection"]["k"] == 9
    assert changed.spec["selection"] == two.spec["selection"]  # the top level is left alone
    assert [lender.selector.k for lender in changed.build_model().lenders] == [9, 7]
    assert scenario.with_overrides({"market.copies": 5}).build_model().lender_names[-1] == "bank-5"


def test_polyculture_lenders_fit_on_disjoint_shares_and_monoculture_shares_one_model():
    lenders = [{"name": "a"}, {"name": "b"}]
    poly = as_market("german-credit-lending", lenders).build_model(seed=1)
    mono = as_market("german-credit-lending", lenders, culture="monoculture").build_model(seed=1)
    assert mono.lenders[0].scorer is mono.lenders[1].scorer
    # With a trainer that fits the first model (initial_threshold), a monoculture still starts as one.
    training = {"training": {"name": "refit", "initial_threshold": 0.5}}
    spec = Scenario.bundled("default").spec | training
    market = {"market": {"culture": "monoculture"}, "lenders": lenders}
    started = Scenario.from_dict(spec | market).build_model()
    assert started.lenders[0].scorer is started.lenders[1].scorer
    assert type(started.lenders[0].scorer).__name__ != "LinearScorer"  # the trainer's start fitted it
    first, second = (lender.scorer for lender in poly.lenders)
    assert first is not second
    features = poly.table.features[:50]
    assert not np.allclose(first.score(features), second.score(features))


def run_ledger(scenario: Scenario) -> pd.DataFrame:
    return simulate(scenario, seed=3).ledger


@pytest.mark.parametrize("choice", ["all", "best-odds", "cheapest", "random", "sequential"])
def test_market_runs_are_deterministic_and_the_same_in_a_worker_process(choice):
    scenario = as_market(
        "default",
        [
            {"name": "a"},
            {"name": "b", "scorer": {"name": "linear", "weights": [0.8, 0.2]}, "selection": {"name": "top_k", "k": 5}},
        ],
        choice={"name": choice},
    ).with_overrides({"run.steps": 4})
    first, again = run_ledger(scenario), run_ledger(scenario)
    pd.testing.assert_frame_equal(first, again)
    remote = Parallel(n_jobs=2, backend="loky")(
        delayed(run_ledger)(pickle.loads(pickle.dumps(scenario))) for _ in range(2)
    )
    for ledger in remote:
        pd.testing.assert_frame_equal(first, ledger)
    assert set(first["lender"].astype(str)) <= {"a", "b"}
    per_agent = first.groupby(["step", "agent_id"]).size()
    if choice in ("best-odds", "cheapest", "random"):  # one lender each
        assert (per_agent == 1).all()
    elif choice == "all":
        assert (per_agent == 2).all()
    else:  # sequential: a second application only after a refusal; top-k holds: nobody accepted twice
        accepted = first.groupby(["step", "agent_id"])["selected"].sum()
        assert (accepted <= 1).all() and (per_agent == 2).any()


def test_hand_computed_sequential_step_with_application_costs():
    # Best odds at step 0 (raw scores x for A, 1 - x for B): agents 0-3 try B, agents 4-5 try A
    # (agent 4 ties, 0.5 each, and takes A, declared first). A accepts 4 and 5; B's top 2 are 0, 1.
    # Round 2: agents 2 and 3, refused by B, try A (capacity 1 pays two applications of 0.3) and
    # are refused (x < 0.45). Each application costs 0.3 on its row; acting as in the hand step.
    model = market_model({"name": "sequential", "cost": 0.3})
    model.step()
    ledger = model.ledger
    assert list(zip(ledger["lender"].astype(str), ledger["agent_id"], strict=True)) == [
        ("A", 2), ("A", 3), ("A", 4), ("A", 5), ("B", 0), ("B", 1), ("B", 2), ("B", 3)
    ]  # fmt: skip
    assert ledger["selected"].tolist() == [False, False, True, True, True, True, False, False]
    np.testing.assert_allclose(ledger["effort"], [0.3, 0.35, 0.3, 0.3, 0.3, 0.3, 0.4, 0.3])
    np.testing.assert_allclose(model.table.effort_spent[:6], [0.3, 0.3, 0.7, 0.65, 0.3, 0.3])
    # A capacity below two applications stops agents 2 and 3 after B's refusal.
    model = market_model({"name": "sequential", "cost": 0.6})
    model.step()
    assert model.ledger["lender"].astype(str).tolist() == ["A", "A", "B", "B", "B", "B"]


def test_best_odds_uses_last_thresholds_after_the_first_step():
    model = market_model({"name": "best-odds"}, steps=1)
    model.run()
    step1 = model.ledger[model.ledger["step"] == 1]
    # Step 0: agents 0-3 try B (1 - x > x), 4 and 5 try A; B refuses 2 and 3, whose only
    # recommendation (B's) moves them to x = 0.2. Step 1, against the thresholds of step 0 (A 0.45,
    # B 0.8): odds (0.2 - 0.45, 0.8 - 0.8) for both, so both try B, which accepts both.
    assert dict(zip(step1["agent_id"], step1["lender"].astype(str), strict=True)) == {2: "B", 3: "B"}
    assert step1["selected"].all()
    np.testing.assert_allclose(model.ledger["rec_x"].iloc[4:6], [0.2, 0.2])


class SpyTrainer(Component, Trainer):
    """Keeps the model; records how many rows and which scores each refit saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, list[float]]] = []

    def update(self, context):
        self.seen.append((context.features.shape[0], np.round(context.scores, 6).tolist()))
        return context.scorer


def test_each_lender_retrains_on_its_own_applicants_and_a_lender_nobody_applied_to_keeps_its_model():
    spies = (SpyTrainer(), SpyTrainer())
    model = market_model({"name": "best-odds"}, steps=1, trainers=spies)
    model.run()
    # Step 0: A's applicants are 4, 5 (scores x), B's are 0-3 (scores 1 - x). Step 1: agents 2 and 3
    # try B only; A had no applicant and is not refitted.
    assert spies[0].seen == [(2, [0.5, 0.6])]
    assert spies[1].seen == [(4, [0.9, 0.8, 0.7, 0.6]), (2, [0.8, 0.8])]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 500), st.integers(1, 7), st.integers(0, 2**16))
def test_training_shares_are_disjoint_near_equal_and_cover_the_rows(n_rows, n_lenders, seed):
    shares = training_shares(n_rows, n_lenders, np.random.default_rng(seed))
    assert len(shares) == n_lenders
    together = np.concatenate(shares)
    assert sorted(together.tolist()) == list(range(n_rows))  # disjoint and covering
    sizes = [share.size for share in shares]
    assert max(sizes) - min(sizes) <= 1


def test_a_training_share_shows_only_its_rows():
    class Rows:
        feature_names = ("x",)

        def training_data(self):
            return np.arange(10.0)[:, None], np.arange(10) % 2

    share = TrainingShare(Rows(), np.array([1, 4, 7]))
    features, labels = share.training_data()
    assert features[:, 0].tolist() == [1.0, 4.0, 7.0] and labels.tolist() == [1, 0, 1]
    assert share.feature_names == ("x",)


def test_a_lender_nobody_applied_to_is_not_shut_out_by_its_infinite_threshold():
    # Top-k with no applicant returns the threshold +inf; the choice context says "none" (NaN).
    assert np.isnan(scalar_threshold(float("inf"))) and scalar_threshold(0.4) == 0.4
    assert scalar_threshold(np.array([0.2, np.inf, 0.4])) == pytest.approx(0.3)
    assert np.isnan(scalar_threshold(np.array([np.inf])))


def test_the_metrics_read_a_market_ledger_as_selected_by_any_lender():
    from recoursesim.metrics import agent_outcomes, recourse_over_time, recourse_summary

    model = market_model(steps=2)
    model.run()
    ledger, folded = model.ledger, by_applicant(model.ledger)
    pd.testing.assert_frame_equal(agent_outcomes(ledger), agent_outcomes(folded))
    pd.testing.assert_frame_equal(recourse_over_time(ledger), recourse_over_time(folded))
    pd.testing.assert_frame_equal(recourse_summary(ledger), recourse_summary(folded))
    # Step 0: agents 0, 1 (B) and 4, 5 (A) succeed on entry; 2 and 3 act and are scored again.
    outcomes = agent_outcomes(ledger).set_index("agent_id")
    assert outcomes.loc[[0, 1, 4, 5], "outcome"].eq("on_entry").all()
    assert recourse_over_time(ledger).query("step == 0")["n_scored"].sum() == 6
