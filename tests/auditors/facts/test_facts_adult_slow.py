import pytest

from recoursesim.auditors.facts import FactsAuditor, paper_setup


@pytest.mark.slow
def test_adult_sex_paper_setup_counts():
    # Regression figures of the pinned setup (scaled logistic regression, split seed 131313).
    setup = paper_setup("adult")
    auditor = FactsAuditor(min_support=0.01, config=setup.data.config).fit(setup.X_test, setup.model, "sex")
    summary = auditor.summary_
    assert summary["rows"] == 13567
    assert summary["affected"] == 10739
    assert summary["affected_per_group"] == {"Female": 4108, "Male": 6631}
    assert summary["subgroups_per_group"] == {"Female": 27978, "Male": 27714}
    assert summary["common_subgroups"] == 12219
    # The paper's rule: actions are mined on every feature but sex (race kept at its value).
    assert summary["action_rule"] == "same_features"
    assert summary["actions"] == 28089
    assert summary["valid_pairs"] == 151128
    assert summary["merged_duplicate_pairs"] == 0
    assert summary["budget_rule"] == "micro_cost_of_effectiveness[phi=0.5]" and len(summary["budgets"]) == 3
    assert not auditor.ranking_.duplicated(["key", "subgroup_id"]).any()
    assert summary["model_calls"] <= 10
