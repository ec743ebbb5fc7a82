"""The exact linear generator on the built-in one-hot logistic model, the ``auto`` choice, and refits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from recoursesim.component import RunContext
from recoursesim.datasets import load_adult, load_german
from recoursesim.features import DEFAULT_ACTIONS, Feature, FeatureSchema
from recoursesim.recourse import AutoRecourse, ExactLinearRecourse, SearchRecourse
from recoursesim.recourse.exact_linear import additive_form, probe_additive_form
from recoursesim.scoring import ClassifierScorer, tabular_estimator
from recoursesim.scoring.base import WrapsFittedModel, additive_form_of, final_estimator, margin_of, standardised_terms
from recoursesim.scoring.tabular import make_model
from recoursesim.threads import fit_single_threaded


def _builtin_world(load, name: str, model: str = "logistic", n_agents: int = 600):
    """The data set's complete rows split in half; the built-in model fitted on one half."""
    data = load()
    schema = FeatureSchema.from_dataset(data)
    complete = data.X.notna().all(axis=1).to_numpy()
    codes = schema.encode(data.X[complete])
    labels = data.y.to_numpy()[complete]
    order = np.random.default_rng(0).permutation(len(codes))
    half = len(codes) // 2
    estimator = tabular_estimator(schema, make_model(model, {"random_state": 0} if model != "logistic" else {}))
    fit_single_threaded(estimator, codes[order[:half]], labels[order[:half]])
    return schema, codes[order[half : half + n_agents]], DEFAULT_ACTIONS[name], ClassifierScorer(estimator)


@pytest.fixture(scope="module", params=["german", "adult"])
def builtin_logistic(request):
    load = {"german": load_german, "adult": load_adult}[request.param]
    return _builtin_world(load, request.param)


def test_builtin_logistic_states_its_exact_additive_form(builtin_logistic):
    schema, agents, _, scorer = builtin_logistic
    form = additive_form_of(scorer, schema)
    assert form is not None and form.link == "logistic"
    # the form is the model's decision function, to rounding, and the probability is expit of it
    np.testing.assert_allclose(form.margin(agents), scorer.margin(agents), rtol=0, atol=1e-9)
    from scipy.special import expit

    np.testing.assert_allclose(expit(form.margin(agents)), scorer.score(agents), rtol=1e-12, atol=1e-15)
    # one entry per category for categorical features, nothing for numbers
    for j, kind in enumerate(schema.kinds):
        assert form.tables[j].size == (schema.n_categories[j] if kind in ("categorical", "ordinal") else 0)


def test_exact_linear_on_the_builtin_logistic_model(builtin_logistic):
    schema, agents, actions, scorer = builtin_logistic
    scores = scorer.score(agents)
    generator = ExactLinearRecourse(action_set=actions).bind(RunContext(schema=schema))
    moved = generator.recommend(agents, scores, 0.5, scorer)
    below = scores < 0.5
    assert below.sum() >= 100  # enough agents need recourse for the test to mean something
    assert generator.found_[below].mean() >= 0.99
    assert np.all(scorer.score(moved)[generator.found_] >= 0.5)
    assert generator.actions_.is_valid(agents, moved).all()
    # nothing the search generator finds is cheaper than the exact optimum
    search = SearchRecourse(action_set=actions).bind(RunContext(schema=schema))
    found = search.recommend(agents, scores, 0.5, scorer)
    both = below & generator.found_ & search.found_
    assert np.all(search.cost(found - agents)[both] >= generator.cost(moved - agents)[both] - 1e-9)


def test_exact_linear_cost_is_the_brute_force_optimum():
    # A number x on [0, 10], a 3-category colour and a 3-level ordinal size; the built-in logistic model.
    schema = FeatureSchema(
        [
            Feature("x", "numeric", (), 0.0, 10.0),
            Feature("colour", "categorical", ("red", "green", "blue"), 0.0, 2.0),
            Feature("size", "ordinal", ("S", "M", "L"), 0.0, 2.0),
        ]
    )
    rng = np.random.default_rng(1)
    rows = np.column_stack([rng.uniform(0, 10, 400), rng.integers(0, 3, 400), rng.integers(0, 3, 400)])
    margin = 0.4 * rows[:, 0] + np.array([0.0, 1.5, -1.0])[rows[:, 1].astype(int)] + 0.8 * rows[:, 2] - 4
    labels = (rng.uniform(size=400) < 1 / (1 + np.exp(-margin))).astype(int)
    estimator = tabular_estimator(schema, LogisticRegression())
    fit_single_threaded(estimator, rows, labels)
    scorer = ClassifierScorer(estimator)
    agents = np.array([[1.0, 0.0, 0.0], [3.0, 2.0, 0.0], [6.0, 1.0, 1.0], [0.5, 2.0, 2.0], [2.0, 0.0, 1.0]])
    threshold = 0.7
    generator = ExactLinearRecourse().bind(RunContext(schema=schema))
    moved = generator.recommend(agents, scorer.score(agents), threshold, scorer)
    cost = generator.cost(moved - agents)
    # brute force: every (colour, size) pair, then the cheapest x that reaches the cut-off (x is linear)
    form = additive_form_of(scorer, schema)
    assert form is not None
    target = np.log(threshold / (1 - threshold))
    for i, start in enumerate(agents):
        if scorer.score(start[None])[0] >= threshold:
            assert cost[i] == 0
            continue
        best = np.inf
        for colour, size in itertools.product(range(3), range(3)):
            point = np.array([start[0], colour, size], dtype=float)
            missing = target - form.margin(point[None])[0]
            step = 0.0 if missing <= 0 else missing / form.slope[0]
            x = start[0] + step
            if step < 0 or x > 10 + 1e-12:
                continue
            point[0] = x
            best = min(best, generator.cost((point - start)[None])[0])
        assert generator.found_[i]
        assert cost[i] == pytest.approx(best, rel=1e-6, abs=1e-9), i


def test_a_saturating_pipeline_is_read_through_its_decision_function():
    # A user's DataFrame pipeline whose probabilities round to 0 or 1 at the probe points.
    from tests.recourse.conftest import german_world

    world = german_world(LogisticRegression(max_iter=2000))
    final = world.scorer.estimator.estimator_.steps[-1][1]
    final.coef_ = final.coef_ * 40.0
    agents = world.agents[:200]
    generator = ExactLinearRecourse(action_set=world.action_set).bind(RunContext(schema=world.schema))

    def score(rows):
        return np.asarray(world.scorer.score(rows), dtype=float)

    # probing the probabilities is fooled by the saturation; the decision function is not
    assert probe_additive_form(score, None, agents, world.schema, generator.mutable, 1e-6, True) is None
    assert margin_of(world.scorer) is not None
    assert additive_form(world.scorer, agents, world.schema, generator.mutable, 1e-6) is not None
    scores = world.scorer.score(agents)
    threshold = float(np.quantile(scores, 0.8))
    generator.recommend(agents, scores, threshold, world.scorer)
    assert generator.found_[scores < threshold].mean() >= 0.99


def test_auto_picks_exact_linear_for_logistic_and_search_for_gradient_boosting():
    schema, agents, actions, logistic = _builtin_world(load_german, "german")
    *_, boosted = _builtin_world(load_german, "german", model="gradient_boosting")
    for scorer, expected in ((logistic, "exact_linear"), (boosted, "search")):
        auto = AutoRecourse(action_set=actions).bind(RunContext(schema=schema))
        scores = scorer.score(agents)
        threshold = float(np.quantile(scores, 0.7))
        moved = auto.recommend(agents, scores, threshold, scorer)
        assert auto.chosen_ == expected
        reference = {"exact_linear": ExactLinearRecourse, "search": SearchRecourse}[expected]
        same = reference(action_set=actions).bind(RunContext(schema=schema))
        np.testing.assert_array_equal(moved, same.recommend(agents, scores, threshold, scorer))
        np.testing.assert_array_equal(auto.found_, same.found_)


def test_auto_rejects_bad_search_parameters_with_the_field():
    from recoursesim.errors import ConfigError
    from recoursesim.registry import build

    for search, field in (({"samples": 0}, "recourse.search.samples"), ({"nope": 1}, "recourse.search")):
        with pytest.raises(ConfigError) as caught:
            build("recourse", {"name": "auto", "search": search})
        assert str(caught.value).startswith(field), str(caught.value)


@pytest.mark.parametrize(("recourse", "trainer"), [("exact_linear", "cda"), ("auto", "refit"), ("auto", "cda")])
def test_exact_recourse_keeps_working_after_refits(recourse, trainer):
    # CDA refits drive a logistic model's probabilities to 0 and 1 within a few steps (German
    # credit, step 3: a probe at the longest duration has probability 1e-16), which once made the
    # refitted model look non-additive; the coefficients are now read instead.
    from recoursesim.scenario import Scenario

    spec = Scenario.bundled("german-credit-lending").spec
    spec = {
        **spec,
        "run": {"steps": 5, "seed": 0},
        "population": {**spec["population"], "initial": 300, "entrants": 30},
        "scorer": {"name": "model", "model": "logistic"},
        "selection": {"name": "top_k", "k": 30},
        "recourse": {"name": recourse},
        "training": {"name": trainer},
    }
    model = Scenario.from_dict(spec).build_model()
    for _ in range(5):
        model.step()
    if recourse == "auto":
        assert model.recourse.chosen_ == "exact_linear"
    rejected = model.ledger.query("not selected")
    assert len(rejected) > 100 and rejected["recourse_found"].astype(bool).mean() > 0.9


def test_a_plugin_scorer_stating_its_form_is_not_probed():
    from scipy.special import expit

    from recoursesim.scoring import AdditiveForm

    schema = FeatureSchema(
        [Feature("x", "numeric", (), 0.0, 10.0), Feature("colour", "categorical", ("red", "green", "blue"), 0.0, 2.0)]
    )

    class Stated:
        form = AdditiveForm("logistic", -4.0, np.array([0.5, 0.0]), (np.zeros(0), np.array([0.0, 1.0, 3.0])))
        calls = 0

        def score(self, rows):
            self.calls += 1
            return expit(self.form.margin(rows))

        def additive_form(self):
            return self.form

        def margin_link(self):
            return "logistic"

        def margin(self, rows):
            return self.form.margin(rows)

    scorer = Stated()
    agents = np.array([[2.0, 0.0], [7.0, 0.0], [2.0, 1.0]])
    scores = scorer.score(agents)
    generator = ExactLinearRecourse().bind(RunContext(schema=schema))
    moved = generator.recommend(agents, scores, 0.5, scorer)
    assert scorer.calls == 2  # the caller's scores and the generator's final check: no probes
    # the same problem as test_exact_solution_by_hand (margin 0.5 x + colour - 4 must reach 0)
    np.testing.assert_allclose(moved, [[8.0, 0.0], [8.0, 0.0], [6.0, 1.0]], atol=1e-6)


def test_exact_linear_judges_a_scorer_once_so_its_verdict_cannot_flip_mid_run(monkeypatch):
    from recoursesim.recourse import exact_linear as module
    from recoursesim.scoring import LinearScorer

    calls = []
    real = module.additive_form
    monkeypatch.setattr(module, "additive_form", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    generator = module.ExactLinearRecourse().bind(RunContext())
    first, second = LinearScorer([0.5, 0.5]), LinearScorer([0.2, 0.8])
    agents = np.array([[0.1, 0.2], [0.3, 0.1]])
    for scorer in (first, first, first, second, second):
        generator.recommend(agents, scorer.score(agents), 0.6, scorer)
        agents = agents + 0.05  # other agents at every step: the verdict is still the first one
    assert calls == [first, second]


def test_a_fitted_tabular_model_is_recognised_by_its_protocol(builtin_logistic):
    """The additive form and the final estimator read a TabularModel through WrapsFittedModel."""
    schema, _, _, scorer = builtin_logistic
    assert isinstance(scorer.estimator, WrapsFittedModel) and scorer.estimator.input == "codes"
    assert type(final_estimator(scorer.estimator)) is LogisticRegression
    unfitted = tabular_estimator(schema, LogisticRegression())
    assert not isinstance(unfitted, WrapsFittedModel)
    assert final_estimator(unfitted) is unfitted  # not fitted: nothing inside to read yet


def test_standardised_terms_by_hand():
    """coef [1, 2 | 3 | 4, 6] on two one-hot blocks and two columns of mean (1, 2), scale (2, 3), b = 0.5."""
    blocks, slopes, constant = standardised_terms(
        np.array([[1.0, 2.0, 3.0, 4.0, 6.0]]), np.array([0.5]), [2, 1], np.array([1.0, 2.0]), np.array([2.0, 3.0])
    )
    assert [block.tolist() for block in blocks] == [[1.0, 2.0], [3.0]]
    assert slopes.tolist() == [2.0, 2.0]  # 4 / 2 and 6 / 3 per raw unit
    assert constant == 0.5 - (2.0 * 1.0 + 2.0 * 2.0)  # -5.5
    # no standardised columns: the intercept as it is
    blocks, slopes, constant = standardised_terms(np.array([1.0, -1.0]), 0.25, [2], np.zeros(0), np.ones(0))
    assert [block.tolist() for block in blocks] == [[1.0, -1.0]] and slopes.size == 0 and constant == 0.25
