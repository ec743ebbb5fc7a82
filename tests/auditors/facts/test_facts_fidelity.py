"""The paper's candidate-action rule, distinct actions, float64 costs and budgets, on hand-made data.

Example A (features a, b in {0, 1}, model: positive iff a = 1). Unaffected rows are (1, 1), so the
mined actions are {a=1}, {b=1}, {a=1, b=1}. Each group has two affected rows (0, 0) and two (0, 1).
Common subgroups (support 0.25): {a=0}, {b=0}, {b=1}, {a=0, b=0}, {a=0, b=1}.

Same features (the paper's rule):
    {a=0}      <- {a=1}       cost 1, works for all           effectiveness 1
    {b=0}      <- {b=1}       cost 1, a stays 0               effectiveness 0
    {b=1}      <- {b=1}       changes nothing: invalid        (no action)
    {a=0, b=0} <- {a=1, b=1}  cost 2, works for all           effectiveness 1
    {a=0, b=1} <- {a=1, b=1}  changes only a, cost 1          effectiveness 1
Subsets: {a=0, b=0} also gets {a=1} (cost 1, works) and {b=1} (cost 1, fails), so its choice count
at phi = 0.3 is 2 and its cost of effectiveness 1; {a=0, b=1} gets {a=1} and {a=1, b=1}, which both
only set a = 1: one distinct action, not two.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from recoursesim.auditors.facts import FactsAuditor, FactsConfig, FactsWarning, comparative_counterfactual
from recoursesim.errors import ConfigError, DataError


class RuleModel:
    """Positive iff ``rule(frame)``."""

    def __init__(self, rule):
        self.rule = rule

    def predict(self, frame):
        return self.rule(frame).astype(np.int64).to_numpy()


def example_a() -> pd.DataFrame:
    rows = [(1, 1, "F")] * 4 + [(1, 1, "M")] * 4
    for s in ("F", "M"):
        rows += [(0, 0, s)] * 2 + [(0, 1, s)] * 2
    return pd.DataFrame(rows, columns=["a", "b", "s"])


MODEL_A = RuleModel(lambda f: f["a"] == 1)


def values(auditor: FactsAuditor, key: str, subgroup: str) -> tuple[float, float]:
    table = auditor.ranking_
    row = table[(table["key"] == key) & (table["subgroup"] == subgroup)]
    assert len(row) == 1, (key, subgroup)
    return float(row["value_0"].iloc[0]), float(row["value_1"].iloc[0])


def pairs_of(auditor: FactsAuditor, subgroup: str) -> list[str]:
    sid = auditor.subgroup_labels_.index(subgroup)
    ev = auditor.evaluation_
    return [auditor.action_label(int(a)) for a in ev.pair_action[ev.pair_subgroup == sid]]


def test_default_rule_pairs_a_subgroup_with_actions_over_its_own_features():
    auditor = FactsAuditor(min_support=0.25, budgets=(1.0,)).fit(example_a(), MODEL_A, "s")
    assert auditor.actions == "same_features"
    assert sorted(auditor.subgroup_labels_) == sorted(["a = 0", "b = 0", "b = 1", "a = 0, b = 0", "a = 0, b = 1"])
    assert pairs_of(auditor, "a = 0") == ["a = 1"]
    assert pairs_of(auditor, "b = 0") == ["b = 1"]
    assert pairs_of(auditor, "b = 1") == []
    assert pairs_of(auditor, "a = 0, b = 0") == ["a = 1, b = 1"]
    assert pairs_of(auditor, "a = 0, b = 1") == ["a = 1, b = 1"]
    assert values(auditor, "equal_choice_for_recourse[macro, phi=0.3]", "a = 0, b = 0") == (1, 1)
    assert values(auditor, "equal_cost_of_effectiveness[macro, phi=0.3]", "a = 0, b = 0") == (2, 2)
    assert values(auditor, "equal_conditional_mean_recourse[micro]", "a = 0, b = 0") == (2, 2)
    assert values(auditor, "equal_effectiveness[macro]", "b = 0") == (0, 0)
    assert values(auditor, "equal_effectiveness_within_budget[micro, c=1]", "a = 0, b = 0") == (0, 0)


def test_subset_rule_is_an_option_with_distinct_actions():
    auditor = FactsAuditor(min_support=0.25, actions="subsets", budgets=(1.0,)).fit(example_a(), MODEL_A, "s")
    assert sorted(pairs_of(auditor, "a = 0, b = 0")) == ["a = 1", "a = 1, b = 1", "b = 1"]
    # {a=1} and {a=1, b=1} both only set a = 1 here: one option, shown by the smaller action.
    assert pairs_of(auditor, "a = 0, b = 1") == ["a = 1"]
    assert values(auditor, "equal_choice_for_recourse[macro, phi=0.3]", "a = 0, b = 0") == (2, 2)
    assert values(auditor, "equal_choice_for_recourse[macro, phi=0.3]", "a = 0, b = 1") == (1, 1)
    assert values(auditor, "equal_cost_of_effectiveness[macro, phi=0.3]", "a = 0, b = 0") == (1, 1)
    assert values(auditor, "equal_effectiveness_within_budget[micro, c=1]", "a = 0, b = 0") == (1, 1)
    assert auditor.summary_["merged_duplicate_pairs"] >= 1
    with pytest.raises(ConfigError, match="actions"):
        FactsAuditor(actions="all").fit(example_a(), MODEL_A, "s")


def test_csc_lists_each_distinct_action_once_by_its_changes():
    auditor = FactsAuditor(min_support=0.25, actions="subsets", budgets=(1.0,)).fit(example_a(), MODEL_A, "s")
    sid = auditor.subgroup_labels_.index("a = 0, b = 1")
    text = comparative_counterfactual(auditor, sid, "equal_choice_for_recourse[macro, phi=0.3]").to_text()
    assert text.count("Make a = 1 with effectiveness 100.00% (cost 1)") == 2  # once per protected group
    assert "b = 1" not in text.split(":", 1)[1]


def test_costs_are_float64_so_a_budget_on_a_cost_is_within_budget():
    # x in 0..7 is numerical: one step costs exactly 1/7. Everyone affected has x = 0 and flips at x = 1.
    rows = [(x, s) for x in range(1, 8) for s in ("F", "M")] + [(0, "F")] * 3 + [(0, "M")] * 3
    frame = pd.DataFrame(rows, columns=["x", "s"])
    config = FactsConfig(feature_types={"x": "numerical"})
    model = RuleModel(lambda f: f["x"] >= 1)
    auditor = FactsAuditor(min_support=0.01, action_support=0.05, budgets=(1 / 7,), config=config)
    auditor.fit(frame, model, "s")
    ev = auditor.evaluation_
    assert ev.member_cost.dtype == np.float64
    assert (ev.member_cost == 1 / 7).all()
    assert values(auditor, "equal_effectiveness_within_budget[micro, c=0.142857]", "x = 0") == (1.0, 1.0)
    assert values(auditor, "equal_conditional_mean_recourse[micro]", "x = 0") == (1 / 7, 1 / 7)


def test_default_budgets_are_distinct_so_ranking_has_one_row_per_key_and_subgroup():
    # Every subgroup needs cost 1/7 at phi = 0.5: the three percentiles coincide -> one budget.
    rows = [(x, s) for x in range(1, 8) for s in ("F", "M")] + [(0, "F")] * 3 + [(0, "M")] * 3
    frame = pd.DataFrame(rows, columns=["x", "s"])
    config = FactsConfig(feature_types={"x": "numerical"})
    auditor = FactsAuditor(min_support=0.01, action_support=0.05, config=config)
    auditor.fit(frame, RuleModel(lambda f: f["x"] >= 1), "s")
    assert auditor.budgets_ == (1 / 7,)
    assert not auditor.ranking_.duplicated(["key", "subgroup_id"]).any()
    given = FactsAuditor(min_support=0.01, action_support=0.05, budgets=(2.0, 1.0, 2.0), phis=(0.3, 0.3), config=config)
    given.fit(frame, RuleModel(lambda f: f["x"] >= 1), "s")
    assert given.budgets_ == (1.0, 2.0)
    assert not given.ranking_.duplicated(["key", "subgroup_id"]).any()


def example_b() -> pd.DataFrame:
    # Positive iff x = 1 and z = 1; z is immutable. Each group: three affected (0, 0), one (0, 1).
    rows = [(1, 1, "F")] * 4 + [(1, 1, "M")] * 4
    for s in ("F", "M"):
        rows += [(0, 0, s)] * 3 + [(0, 1, s)]
    return pd.DataFrame(rows, columns=["x", "z", "s"])


MODEL_B = RuleModel(lambda f: (f["x"] == 1) & (f["z"] == 1))


def test_budgets_fall_back_to_action_costs_with_a_warning():
    # Only {x=0} <- {x=1} is valid (z cannot change) and it works for 1 of 4 per group, so no
    # subgroup reaches 50% in both groups: the budgets come from the valid actions' costs.
    auditor = FactsAuditor(min_support=0.3, config=FactsConfig(immutable=("z",)))
    with pytest.warns(FactsWarning, match="no subgroup lets 50% of both groups reach recourse"):
        auditor.fit(example_b(), MODEL_B, "s")
    assert auditor.budgets_ == (1.0,)
    assert auditor.summary_["budget_rule"] == "valid_action_costs"
    assert values(auditor, "equal_effectiveness_within_budget[macro, c=1]", "x = 0") == (0.25, 0.25)


def test_budget_metric_skipped_with_a_warning_when_no_action_is_valid():
    auditor = FactsAuditor(min_support=0.3, config=FactsConfig(immutable=("x", "z")))
    with pytest.warns(FactsWarning, match="Equal Effectiveness within Budget is skipped"):
        auditor.fit(example_b(), MODEL_B, "s")
    assert auditor.budgets_ == ()
    assert auditor.summary_["warnings"] and auditor.summary_["budget_rule"] == "none"
    assert not auditor.ranking_["metric"].eq("equal_effectiveness_within_budget").any()


def test_non_finite_inputs_are_one_line_errors():
    frame = example_a().astype({"a": float})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DataError, match="column 'a': has 8 infinite"):
            FactsAuditor(min_support=0.25).fit(frame.assign(a=frame["a"].replace(0.0, np.inf)), MODEL_A, "s")
        with pytest.raises(DataError, match="s: the protected column has 1 missing"):
            FactsAuditor(min_support=0.25).fit(frame.assign(s=frame["s"].where(frame.index != 3)), MODEL_A, "s")


def test_wide_data_past_64_features():
    # 70 independent binary features; the model needs f65 = 1. Bit masks past bit 63 must not
    # wrap around (f65 would alias f1), so {f65=0} gets exactly the action {f65=1} (works for all).
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(rng.integers(0, 2, size=(n, 70)), columns=[f"f{j}" for j in range(70)])
    frame["s"] = np.where(np.arange(n) % 2 == 0, "F", "M")
    model = RuleModel(lambda f: f["f65"] == 1)
    auditor = FactsAuditor(min_support=0.3, budgets=(1.0,)).fit(frame, model, "s")
    assert auditor.subgroups_.masks.dtype == object
    assert pairs_of(auditor, "f65 = 0") == ["f65 = 1"]
    assert pairs_of(auditor, "f1 = 0") == ["f1 = 1"]
    assert values(auditor, "equal_effectiveness[macro]", "f65 = 0") == (1.0, 1.0)
    assert values(auditor, "equal_effectiveness[macro]", "f1 = 0") == (0.0, 0.0)
    assert values(auditor, "equal_conditional_mean_recourse[micro]", "f65 = 0") == (1.0, 1.0)
    assert math.isinf(values(auditor, "equal_conditional_mean_recourse[micro]", "f1 = 0")[0])


GERMAN_SUBGROUP = {
    "other_debtors": "none",
    "installment_plans": "none",
    "job": "skilled employee/ official",
    "num_people_liable": 1,
    "telephone": "no",
}


@pytest.fixture(scope="module")
def german_setup():
    from recoursesim.auditors.facts import paper_setup

    return paper_setup("german")


def _german_subgroup(auditor: FactsAuditor) -> int:
    wanted = {f"{k} = {v}" for k, v in GERMAN_SUBGROUP.items()}
    (sid,) = [i for i, label in enumerate(auditor.subgroup_labels_) if set(label.split(", ")) == wanted]
    return sid


def test_german_subgroup_with_fifteen_telephone_actions_counts_one_option(german_setup):
    # Regression (German credit, sex, 20% support): under the subset rule 15 mined actions are valid
    # for this subgroup, and every one of them only sets telephone = yes (cost 1; works for 2 of 8
    # females and 3 of 10 males). It is one option: Choice for Recourse at phi = 0.3 is 0 vs 1, not
    # 0 vs 15. Under the paper's rule no frequent action fixes exactly these five features.
    setup = german_setup
    subsets = FactsAuditor(min_support=0.2, actions="subsets", config=setup.data.config)
    subsets.fit(setup.X_test, setup.model, "sex")
    sid = _german_subgroup(subsets)
    pvals = subsets.subgroups_.values[sid]
    fixed = pvals >= 0
    candidates = [
        a
        for a, avals in enumerate(subsets.actions_.values)
        if not (avals[~fixed] >= 0).any() and (avals[fixed & (avals >= 0)] != pvals[fixed & (avals >= 0)]).any()
    ]
    changes = {subsets.action_label(a, sid) for a in candidates}
    assert len(candidates) == 15 and changes == {"telephone = yes"}
    ev = subsets.evaluation_
    mine = np.flatnonzero(ev.pair_subgroup == sid)
    assert [subsets.action_label(int(ev.pair_action[i])) for i in mine] == ["telephone = yes"]
    assert ev.pair_cost[mine].tolist() == [1.0] and ev.pair_hits[mine].tolist() == [[2, 3]]
    assert ev.sizes[sid].tolist() == [8, 10]
    assert values(subsets, "equal_choice_for_recourse[macro, phi=0.3]", subsets.subgroup_labels_[sid]) == (0, 1)

    paper = FactsAuditor(min_support=0.2, config=setup.data.config).fit(setup.X_test, setup.model, "sex")
    sid = _german_subgroup(paper)
    assert not (paper.evaluation_.pair_subgroup == sid).any()
    assert values(paper, "equal_choice_for_recourse[macro, phi=0.3]", paper.subgroup_labels_[sid]) == (0, 0)
