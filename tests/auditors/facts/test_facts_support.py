"""Support fraction and minimum count; the bound before mining; the memory guard; the two miners."""

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.auditors.facts import FactsAuditor, FactsConfig, paper_setup
from recoursesim.auditors.facts import estimate as facts_estimate
from recoursesim.auditors.facts.encoding import build_item_space
from recoursesim.auditors.facts.mining import frequent_itemsets
from recoursesim.auditors.facts.support import DEFAULT_MIN_COUNT, SupportRule, resolve_support
from recoursesim.cli import main
from recoursesim.errors import ConfigError


def test_support_rule_by_hand():
    rule = SupportRule(0.01, 10)
    # 31 rows: 1% asks for ceil(0.31) = 1 row, the count for 10.
    assert rule.fraction_rows(31) == 1 and rule.least_rows(31) == 10 and rule.binding(31) == "min_count"
    # 4,108 rows: 1% asks for ceil(41.08) = 42 rows, more than 10.
    assert rule.least_rows(4108) == 42 and rule.binding(4108) == "support"
    counts = np.array([9, 10, 41, 42])
    assert rule.frequent(counts, 31, single=False).tolist() == [False, True, True, True]
    assert rule.frequent(counts, 4108, single=False).tolist() == [False, False, False, True]
    assert "min_count binds" in rule.describe(31, "rows") and ">= 10 of 31 rows" in rule.describe(31, "rows")


def test_resolve_support_defaults_and_paper_setting():
    assert resolve_support(None, None) == SupportRule(0.01, DEFAULT_MIN_COUNT)
    assert resolve_support(0.01, None) == SupportRule(0.01, 1)  # a fraction alone is the paper's rule
    assert resolve_support(None, 25) == SupportRule(0.01, 25)
    assert resolve_support(0.2, 3) == SupportRule(0.2, 3)
    for bad in ((0.0, None), (1.5, None), (None, 0), (None, 2.5), (True, None)):
        with pytest.raises(ConfigError):
            resolve_support(*bad)


def test_explicit_fraction_gives_todays_itemsets():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({f"f{j}": rng.integers(0, 3, size=150) for j in range(6)})
    space = build_item_space(frame, FactsConfig(), set())
    rows, features = np.arange(150), list(range(6))
    rule = resolve_support(0.05, None)
    a = frequent_itemsets(space, rows, features, 0.05)
    b = frequent_itemsets(space, rows, features, rule)
    assert np.array_equal(a.values, b.values)
    # A count above ceil(0.05 * 150) = 8 removes exactly the itemsets with fewer rows.
    c = frequent_itemsets(space, rows, features, SupportRule(0.05, 20))
    codes = space.codes
    covered = [int(np.all((v < 0) | (codes == v), axis=1).sum()) for v in a.values]
    assert len(c) == sum(count >= 20 for count in covered) < len(a)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 120),
    d=st.integers(1, 7),
    fraction=st.sampled_from([0.01, 0.05, 0.2]),
    count=st.integers(1, 12),
)
def test_bound_is_at_least_the_mined_count(seed, n, d, fraction, count):
    rng = np.random.default_rng(seed)
    skew = rng.random(d)
    frame = pd.DataFrame({f"f{j}": np.where(rng.random(n) < skew[j], 0, rng.integers(0, 4, size=n)) for j in range(d)})
    space = build_item_space(frame, FactsConfig(), set())
    rows = np.arange(n)
    rule = SupportRule(fraction, count)
    mined = frequent_itemsets(space, rows, list(range(d)), rule)
    bound = facts_estimate.population_bound(space, rows, list(range(d)), rule, "rows")
    assert bound.itemsets >= len(mined)
    entries = sum(int(np.all((v < 0) | (space.codes == v), axis=1).sum()) for v in mined.values)
    assert bound.entries >= entries
    sizes = (mined.values >= 0).sum(axis=1)
    assert bound.items == int((sizes == 1).sum()) and bound.pairs == int((sizes == 2).sum())


@pytest.fixture(scope="module")
def german():
    return paper_setup("german")


def test_german_default_audit_stays_under_1_gb(german):
    # tracemalloc sees every numpy and Python allocation of the audit itself, whatever ran before
    # in this process (a ru_maxrss high-water mark would not move if an earlier test went higher).
    tracemalloc.start()
    try:
        auditor = FactsAuditor(config=german.data.config).fit(german.X_test, german.model, "sex")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert auditor.summary_["least_rows"] == {"affected female": 10, "affected male": 10, "unaffected": 10}
    assert auditor.summary_["bound_by"]["unaffected"] == "min_count"
    assert auditor.summary_["common_subgroups"] > 0
    assert peak < 1e9, f"the default German audit allocated {peak / 1e9:.2f} GB at its peak"


def test_estimate_bounds_the_german_audit(german):
    auditor = FactsAuditor(config=german.data.config).fit(german.X_test, german.model, "sex")
    per_group = auditor.summary_["subgroups_per_group"]
    assert auditor.estimate_.subgroups >= min(per_group.values()) >= auditor.summary_["common_subgroups"]
    assert auditor.estimate_.actions >= auditor.summary_["actions"]


def _tight_memory(monkeypatch, room):
    monkeypatch.setattr(facts_estimate, "available_memory", lambda: facts_estimate.BASE_BYTES + room)


def test_refusal_is_one_line_exit_2(monkeypatch, capsys, tmp_path):
    _tight_memory(monkeypatch, 2**20)  # 1 MiB beyond the audit's base: a few thousand itemsets
    out = tmp_path / "never"
    code = main(["audit", "facts", "--dataset", "german", "--protected", "sex", "--support", "0.01", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and not out.exists()
    assert err.startswith("error: support: mining stopped after") and "--force" in err and "--min-count" in err


def test_force_goes_on(monkeypatch, capsys):
    _tight_memory(monkeypatch, 2**20)
    argv = ["audit", "facts", "--dataset", "german", "--protected", "sex", "--top", "1"]
    assert main(argv) == 2  # the default audit mines ~108k itemsets: more than 1 MiB allows
    assert "mining stopped" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0
    out = capsys.readouterr().out
    assert "common_subgroups: 735" in out and "min_count binds" in out


def test_absurd_estimates_are_refused_even_with_force():
    bound = facts_estimate.PopulationBound("rows", 10, 1, "support", 1, 0, 2**60, 2**60)
    estimate = facts_estimate.estimate_audit([bound, bound, bound], 20)
    with pytest.raises(ConfigError, match="needs about"):
        facts_estimate.MemoryGuard(estimate, True, "raise --min-count")


@pytest.mark.parametrize(("dataset", "protected"), [("german", "sex"), ("compas", "race"), ("adult", "sex")])
def test_miners_find_identical_itemsets_on_bundled_data(dataset, protected):
    setup = paper_setup(dataset)
    X = setup.X_test
    config = setup.data.config
    space = build_item_space(X, config, set(config.immutable) | {protected})
    positive = setup.model.predict(X) == 1
    group = (X[protected] == X[protected].value_counts().index[0]).to_numpy()
    features = [j for j, name in enumerate(space.features) if name != protected]
    rule = resolve_support(None, None)
    populations = [np.flatnonzero(~positive & group), np.flatnonzero(~positive & ~group), np.flatnonzero(positive)]
    for rows in populations:
        bitset = frequent_itemsets(space, rows, features, rule, miner="bitset")
        fpgrowth = frequent_itemsets(space, rows, features, rule, miner="mlxtend")
        assert len(bitset) > 0
        assert np.array_equal(bitset.values, fpgrowth.values) and np.array_equal(bitset.masks, fpgrowth.masks)


def test_unknown_miner_is_refused():
    with pytest.raises(ConfigError, match="miner"):
        FactsAuditor(miner="apriori")._check_params()
