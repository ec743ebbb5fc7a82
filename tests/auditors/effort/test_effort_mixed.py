"""Equality of effort on mixed-type populations: the one-hot logistic model's linear part, categories fixed."""

import numpy as np
import pytest
from scipy.special import expit

from recoursesim.auditors.effort import EqualityOfEffortObserver
from recoursesim.auditors.effort.mixed import OTHER_TERMS, linear_view
from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.features import Feature, FeatureSchema
from recoursesim.observers import PopulationSnapshot
from recoursesim.scoring.base import AdditiveForm

SCHEMA = FeatureSchema(
    [
        Feature("x", "numeric", (), 0.0, 10.0),
        Feature("colour", "categorical", ("red", "green", "blue"), 0.0, 2.0),
        Feature("size", "ordinal", ("S", "M", "L"), 0.0, 2.0),
    ]
)


class KnownModel:
    """Margin -2 + 0.5 x + {red 0, green 1, blue 3} + 0.4 rank(size); probability expit(margin)."""

    form = AdditiveForm(
        "logistic", -2.0, np.array([0.5, 0.0, 0.0]), (np.zeros(0), np.array([0.0, 1.0, 3.0]), np.array([0, 0.4, 0.8]))
    )

    def score(self, rows):
        return expit(self.form.margin(rows))

    def additive_form(self):
        return self.form

    def margin_link(self):
        return "logistic"

    def margin(self, rows):
        return self.form.margin(rows)


def _snapshot(features, group, scorer=None):
    return PopulationSnapshot(
        step=0,
        agent_id=np.arange(len(group)),
        features=np.asarray(features, dtype=float),
        group=np.asarray(group),
        feature_names=SCHEMA.names,
        group_names=("a", "b"),
        scorer=scorer or KnownModel(),
        threshold=0.5,
        rng=np.random.default_rng(0),
        schema=SCHEMA,
    )


# margins: A -1.5, B 3.5, E -2 (group a); C 2, D -0.6, F 2.75 (group b)
AGENTS = [[1, 0, 0], [9, 1, 0], [0, 0, 0], [8, 0, 0], [2, 0, 1], [9.5, 0, 0]]
GROUPS = [0, 0, 0, 1, 1, 1]


def test_linear_view_holds_categories_fixed():
    view = linear_view(_snapshot(AGENTS, GROUPS), None, {}, {}, None, None)
    assert view.variables == ["x", "size", OTHER_TERMS]
    np.testing.assert_allclose(view.coef, [0.5, 0.4, 1.0])
    # the other terms are the intercept plus the colour's term
    np.testing.assert_allclose(view.frame[OTHER_TERMS], [-2, -1, -2, -2, -2, -2])
    assert view.threshold == 0.0 and view.actionable == ["x", "size"]
    assert view.categorical == ["colour"]


def test_effort_by_hand_on_a_mixed_population():
    # x gains 0.5 per unit over a range of 10 (5 per unit of cost), size 0.4 per rank over a range
    # of 2 (0.8 per unit of cost): every unfavourable agent moves x only.
    # a: A needs 1.5 -> x + 3, cost 0.3; E needs 2 -> x + 4, cost 0.4. b: D needs 0.6 -> x + 1.2, cost 0.12.
    frame = EqualityOfEffortObserver().observe(_snapshot(AGENTS, GROUPS))
    v = {(g, m): x for g, m, x in frame[["group", "metric", "value"]].itertuples(index=False)}
    assert v[("a", "Phi_own")] == pytest.approx(0.35)
    assert v[("a", "Phi_other")] == pytest.approx(0.12)
    assert v[("a", "ACR")] == pytest.approx(0.35 / 0.12)
    assert v[("b", "ACR")] == pytest.approx(0.12 / 0.35)
    assert v[("a", "n_unfavourable")] == 2 and v[("a", "RD")] == 0


def test_bounds_and_group_column_come_from_the_data_set():
    # x may rise to 3 only: A (x = 1) gets 1 of margin from x (cost 0.2), the last 0.5 from size
    # (1.25 ranks, cost 0.625); the group's own column (colour here) leaves the distance.
    class Population:
        group = "colour"

    observer = EqualityOfEffortObserver().bind(
        RunContext(population=Population(), action_defaults={"upper": {"x": 3.0}})
    )
    # margins: A -1.5, B 0.5, E -2 (group a); C 2.5, D -0.6, F 2 (group b); every x within the bound
    snapshot = _snapshot([[1, 0, 0], [3, 1, 0], [0, 0, 0], [3, 2, 0], [2, 0, 1], [2, 2, 0]], GROUPS)
    view = linear_view(snapshot, None, {}, {}, {"upper": {"x": 3.0}}, "colour")
    assert view.upper["x"] == 3.0 and "colour" not in view.distance_features
    v = {(g, m): x for g, m, x in observer.observe(snapshot)[["group", "metric", "value"]].itertuples(index=False)}
    # E (x = 0): 1.5 from x (cost 0.3) + 0.5 from size (cost 0.625); D (x = 2): 0.5 from x, 0.1 from size
    assert v[("a", "Phi_own")] == pytest.approx(((0.2 + 0.625) + (0.3 + 0.625)) / 2)
    assert v[("a", "Phi_other")] == pytest.approx(0.1 + 0.25 * 0.5)


def test_actionable_categorical_and_non_additive_models_are_refused():
    snapshot = _snapshot(AGENTS, GROUPS)
    with pytest.raises(ConfigError, match=r"^actionable: 'colour' is categorical"):
        linear_view(snapshot, ["colour"], {}, {}, None, None)
    with pytest.raises(ConfigError, match=r"^dag: names 'colour'"):
        linear_view(snapshot, None, {}, {"x": ["colour"]}, None, None)

    class Interaction:
        def score(self, rows):
            return expit(rows[:, 0] * rows[:, 2] - 2)

    with pytest.raises(ConfigError) as caught:
        EqualityOfEffortObserver().observe(_snapshot(AGENTS, GROUPS, Interaction()))
    message = str(caught.value)
    assert message.startswith("name: needs a linear model") and "\n" not in message
    assert 'model = "logistic"' in message


def test_builtin_logistic_on_german_credit_runs_with_the_observer():
    from recoursesim.scenario import Scenario

    spec = Scenario.bundled("german-credit-lending").spec
    spec = {
        **spec,
        "run": {"steps": 2, "seed": 0},
        "population": {**spec["population"], "initial": 300, "entrants": 30},
        "scorer": {"name": "model", "model": "logistic"},
        "observers": [{"name": "equality_of_effort"}],
    }
    model = Scenario.from_dict(spec).build_model()
    for _ in range(3):
        model.step()
    frame = model.observations
    assert set(frame["group"]) == {"female", "male"} and set(frame["step"]) == {0, 1, 2}
    acr = frame[frame["metric"] == "ACR"]["value"].to_numpy()
    assert np.all(np.isfinite(acr)) and np.all(acr > 0)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"actionable": ["colour"]}, r"^observers\[0\]\.actionable: 'colour' is categorical"),
        ({"actionable": ["height"]}, r"^observers\[0\]\.actionable: unknown feature 'height'"),
        ({"dag": {"x": ["colour"]}}, r"^observers\[0\]\.dag: 'colour' is categorical"),
    ],
)
def test_bad_observer_parameters_are_refused_when_the_scenario_loads(params, message):
    from recoursesim.registry import build

    with pytest.raises(ConfigError, match=message):
        build(
            "observer",
            {"name": "equality_of_effort", **params},
            section="observers[0]",
            context=RunContext(schema=SCHEMA),
        )
