import math

import numpy as np
import pandas as pd
import pytest
from _facts_tiny import COMBOS, CONFIG, FIXED, TableModel, tiny_frame
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recoursesim.auditors.facts import FactsAuditor, comparative_counterfactual
from recoursesim.auditors.facts import metrics as fm
from recoursesim.errors import ConfigError, DataError


def brute_force(auditor: FactsAuditor, frame: pd.DataFrame, model) -> tuple[dict, dict]:
    """Effectiveness of every distinct valid (subgroup, action) pair and each member's recourse cost, one by one.

    Follows the auditor's candidate rule (same features as the subgroup, or a subset of them) and
    keeps, per subgroup, the first action (lowest index) of each distinct set of changes.
    """
    space = auditor.space_
    features = list(space.features)
    positive = model.predict(frame) == 1
    hits, costs = {}, {}
    for p, pvals in enumerate(auditor.subgroups_.values):
        inside = ~positive
        for j, code in enumerate(pvals):
            if code >= 0:
                inside &= space.codes[:, j] == code
        members = np.flatnonzero(inside)
        seen = set()
        for a, avals in enumerate(auditor.actions_.values):
            fixed = np.flatnonzero(avals >= 0)
            if auditor.actions == "same_features" and set(fixed) != set(np.flatnonzero(pvals >= 0)):
                continue
            if not all(pvals[j] >= 0 for j in fixed):
                continue
            if not any(avals[j] != pvals[j] for j in fixed):
                continue
            if not all(space.allowed[j][pvals[j], avals[j]] or avals[j] == pvals[j] for j in fixed):
                continue
            cost = sum(space.costs[j][pvals[j], avals[j]] for j in fixed)
            changed = frame.iloc[members].copy()
            for j in fixed:
                changed[features[j]] = space.values[j][avals[j]]
            works = model.predict(changed) == 1
            group = (frame["s"].iloc[members] == auditor.group_names_[1]).to_numpy()
            effect = tuple((int(j), int(avals[j])) for j in fixed if avals[j] != pvals[j])
            if effect not in seen:
                seen.add(effect)
                hits[(p, a)] = (int((works & ~group).sum()), int((works & group).sum()))
            for i, ok in zip(members, works, strict=True):
                if ok:
                    costs[(p, i)] = min(costs.get((p, i), math.inf), cost)
    return hits, costs


def check_against_brute_force(auditor, frame, model):
    hits, costs = brute_force(auditor, frame, model)
    ev = auditor.evaluation_
    got = {
        (int(p), int(a)): (int(h[0]), int(h[1]))
        for p, a, h in zip(ev.pair_subgroup, ev.pair_action, ev.pair_hits, strict=True)
    }
    assert got == hits
    affected = np.flatnonzero(model.predict(frame) == 0)
    for p in range(len(ev.sizes)):
        lo, hi = ev.member_indptr[p], ev.member_indptr[p + 1]
        for i, cost in zip(ev.member_index[lo:hi], ev.member_cost[lo:hi], strict=True):
            assert cost == costs.get((p, int(affected[i])), math.inf)


@pytest.mark.parametrize("rule", ["same_features", "subsets"])
def test_fixed_model_matches_brute_force_and_calls_model_few_times(rule):
    frame = tiny_frame(np.random.default_rng(0), n=120)
    model = TableModel(FIXED.positive)
    auditor = FactsAuditor(min_support=0.1, actions=rule, config=CONFIG).fit(frame, model, "s")
    # One call for the predictions and one batch of de-duplicated counterfactuals.
    assert model.calls == 2
    assert auditor.summary_["model_calls"] == 2
    assert auditor.summary_["common_subgroups"] > 5 and auditor.summary_["valid_pairs"] > 0
    check_against_brute_force(auditor, frame, TableModel(FIXED.positive))
    # A non-additive model separates the viewpoints (micro > macro somewhere) when a subgroup has
    # several actions to choose from, which the subset rule gives here.
    ev = auditor.evaluation_
    if rule == "subsets":
        assert any((fm.micro_effectiveness(ev, g) > fm.macro_effectiveness(ev, g) + 1e-9).any() for g in (0, 1))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    table=st.sets(st.sampled_from(COMBOS), min_size=3, max_size=12),
    rule=st.sampled_from(["same_features", "subsets"]),
)
def test_invariants_on_random_models(seed, table, rule):
    frame = tiny_frame(np.random.default_rng(seed), n=60)
    model = TableModel(table)
    positive = model.predict(frame) == 1
    groups_affected = {frame["s"][~positive].nunique()}
    if groups_affected != {2} or positive.sum() == 0:
        return
    auditor = FactsAuditor(min_support=0.15, actions=rule, config=CONFIG, budgets=(1.0, 3.0)).fit(frame, model, "s")
    table_ = auditor.ranking_
    assert not table_.duplicated(["key", "subgroup_id"]).any()
    assert (table_["score"] >= 0).all()
    assert (table_["rank"].isna() == (table_["score"] == 0)).all()
    ev = auditor.evaluation_
    budgets = [0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, math.inf]
    for g in (0, 1):
        assert (fm.micro_effectiveness(ev, g) >= fm.macro_effectiveness(ev, g) - 1e-12).all()
        for fn in (fm.micro_within_budget, fm.macro_within_budget):
            curve = np.array([fn(ev, g, c) for c in budgets])
            assert (np.diff(curve, axis=0) >= -1e-12).all()
        assert (fm.choice_count(ev, g, 0.3) >= 0).all()
    # Choice for Recourse never counts two actions with the same effect: within a subgroup, the
    # post-action values on its features (subgroup values overridden by the action) all differ.
    targets = np.where(
        auditor.actions_.values[ev.pair_action] >= 0,
        auditor.actions_.values[ev.pair_action],
        auditor.subgroups_.values[ev.pair_subgroup],
    )
    rows = pd.DataFrame(targets).assign(subgroup=ev.pair_subgroup)
    assert not rows.duplicated().any()
    if len(ev.sizes) and len(ev.sizes) < 40:
        check_against_brute_force(auditor, frame, model)


def test_budgets_follow_appendix_a_rule():
    frame = tiny_frame(np.random.default_rng(1), n=120)
    auditor = FactsAuditor(min_support=0.1, config=CONFIG).fit(frame, TableModel(FIXED.positive), "s")
    ev = auditor.evaluation_
    both = np.maximum(fm.micro_cost_of_effectiveness(ev, 0, 0.5), fm.micro_cost_of_effectiveness(ev, 1, 0.5))
    expected = np.unique(np.percentile(both[np.isfinite(both)], [30, 60, 90]))
    assert auditor.budgets_ == pytest.approx(tuple(expected))
    assert auditor.summary_["budget_rule"] == "micro_cost_of_effectiveness[phi=0.5]"


def test_csc_renders_text_markdown_html():
    frame = tiny_frame(np.random.default_rng(2), n=120)
    auditor = FactsAuditor(min_support=0.1, config=CONFIG).fit(frame, TableModel(FIXED.positive), "s")
    key = "equal_cost_of_effectiveness[macro, phi=0.3]"
    top = auditor.ranking(key, top=1).iloc[0]
    csc = comparative_counterfactual(auditor, int(top["subgroup_id"]), key)
    text = csc.to_text()
    assert text.startswith(f"If {top['subgroup']}:")
    assert "Protected Subgroup = 'M'" in text and "covered" in text
    assert ("Bias against" in text) == (not bool(top["fair"]))
    assert csc.to_markdown().startswith("**If**")
    assert "<div class='csc'>" in csc.to_html()
    ks = comparative_counterfactual(auditor, 0, "fair_effectiveness_cost_tradeoff[macro]")
    assert "critical value" in ks.to_text()


def test_ranking_table_is_tidy_and_sorted():
    frame = tiny_frame(np.random.default_rng(3), n=120)
    auditor = FactsAuditor(min_support=0.1, config=CONFIG).fit(frame, TableModel(FIXED.positive), "s")
    table = auditor.ranking("equal_effectiveness")
    assert set(table["viewpoint"]) == {"micro", "macro"}
    assert {"value_0", "value_1", "score", "rank", "bias_against", "coverage_0", "coverage_1"} <= set(table.columns)
    micro = table[table["viewpoint"] == "micro"]
    ranks = micro["rank"].fillna(10**9).to_numpy()
    assert (np.diff(ranks) >= 0).all()
    with pytest.raises(ConfigError, match="--metric"):
        auditor.ranking("no_such_metric")


def test_bad_inputs():
    frame = tiny_frame(np.random.default_rng(4), n=60)
    model = TableModel(FIXED.positive)
    with pytest.raises(DataError, match="protected"):
        FactsAuditor(config=CONFIG).fit(frame, model, "sex")
    with pytest.raises(DataError, match="1 distinct"):
        FactsAuditor(config=CONFIG).fit(frame.assign(s="F"), model, "s")
    for support in (0, -0.1, 1.5):
        with pytest.raises(ConfigError, match="min_support"):
            FactsAuditor(min_support=support, config=CONFIG).fit(frame, model, "s")

    class ThreeClasses:
        def predict(self, data):
            return np.arange(len(data)) % 3

    with pytest.raises(DataError, match="not binary"):
        FactsAuditor(config=CONFIG).fit(frame, ThreeClasses(), "s")

    class Labels:
        def predict(self, data):
            return np.where(np.arange(len(data)) % 2 == 0, "yes", "no")

    with pytest.raises(DataError, match="not binary"):
        FactsAuditor(config=CONFIG).fit(frame, Labels(), "s")
    FactsAuditor(min_support=0.2, config=CONFIG).fit(frame, Labels(), "s", positive_label="yes")
