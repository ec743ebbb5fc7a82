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
    assert summary["actions"] == 14440
    assert summary["valid_pairs"] == 3720872
    assert summary["model_calls"] <= 10
    assert auditor.timings_["total"] < 60
