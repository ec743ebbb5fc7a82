"""Row keys and the logistic model's exact code-space scoring (same predictions as the model)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from recoursesim.auditors.facts import FactsAuditor, FactsConfig
from recoursesim.auditors.facts.encoding import build_item_space
from recoursesim.auditors.facts.inputs import BinaryPredictor
from recoursesim.auditors.facts.keys import MixedRadix, code_radix
from recoursesim.auditors.facts.lattice import membership
from recoursesim.auditors.facts.linear import LinearScorer, linear_codes
from recoursesim.auditors.facts.mining import Itemsets, feature_masks, frequent_itemsets, mask_columns
from recoursesim.auditors.facts.models import FrameEncoder, audit_pipeline
from recoursesim.auditors.facts.pricing import distinct_rows


def test_mixed_radix_packs_by_hand():
    radix = MixedRadix([3, 4, 2])
    assert radix.mult.tolist() == [1, 3, 12]
    # (2, 1, 1) -> 2*1 + 1*3 + 1*12 = 17; (0, 3, 1) -> 0 + 9 + 12 = 21; the last row of the space is 23.
    keys = radix.pack(np.array([[2, 1, 1], [0, 3, 1], [2, 3, 1]]))
    assert keys.tolist() == [17, 21, 23]
    assert radix.unpack(keys).tolist() == [[2, 1, 1], [0, 3, 1], [2, 3, 1]]
    # Only columns 1 and 2 given: (1, 1) -> 3 + 12 = 15.
    assert radix.pack(np.array([[1, 1]]), [1, 2]).tolist() == [15]


def test_mixed_radix_refuses_rows_past_int64():
    assert MixedRadix([2**31, 2**31 - 1]).fits
    wide = MixedRadix([2**31, 2**31])  # product 2**62: no longer exact in int64 with room to add
    assert not wide.fits
    with pytest.raises(ValueError, match="int64"):
        wide.pack(np.zeros((1, 2), dtype=np.int64))


def test_code_radix_leaves_digit_zero_for_blank():
    radix = code_radix((np.array(["x", "y"]), np.array([1.0, 2.0, 3.0])))
    assert radix.radix.tolist() == [3, 4]
    # Codes (1, 2) stored as (2, 3): 2 + 3 * 3 = 11; a blank first column: 0 + 9 = 9.
    assert radix.pack(np.array([[2, 3], [0, 3]])).tolist() == [11, 9]


def test_distinct_rows_by_hand():
    values = np.array([[1, 0], [0, 2], [1, 0], [0, 2], [1, 1]])
    distinct, inverse = distinct_rows(values)
    # Radices (2, 3), place values (1, 2): keys 1, 4, 1, 4, 3 -> distinct keys 1, 3, 4 in order.
    assert distinct.tolist() == [[1, 0], [1, 1], [0, 2]]
    assert inverse.tolist() == [0, 2, 0, 2, 1]


def _frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], size=n),
            "size": rng.choice([1.0, 2.5, 4.0, 10.0], size=n),
            "grade": rng.choice(["a", "b"], size=n),
        }
    )


def test_linear_terms_reproduce_the_models_predictions():
    rng = np.random.default_rng(3)
    frame = _frame(rng, 300)
    y = ((frame["colour"] == "red") & (frame["size"] > 2) | (frame["grade"] == "b")).astype(int)
    model = audit_pipeline("logistic").fit(frame, y)
    space = build_item_space(frame, FactsConfig(), set())
    linear = linear_codes(model, space, 1)
    assert linear is not None and linear.favourable_above
    every = np.array(np.meshgrid(*[np.arange(len(v)) for v in space.values])).reshape(3, -1).T.astype(np.int32)
    value = linear.sum(every, [0, 1, 2])
    decision = model.decision_function(space.frame(every))
    assert np.allclose(value + linear.intercept, decision, rtol=0, atol=1e-12)
    assert np.array_equal(linear.row_terms(every).sum(axis=1), value)
    # The terms are the encoder's reading of the coefficients: a category's coefficient, a number's
    # slope per raw unit (coefficient / scale) times its value; the intercept absorbs slope * mean.
    encoder, classifier = model.steps[0][1], model.steps[1][1]
    slope = classifier.coef_[0][encoder.starts_[1]] / encoder.scale_[0]
    assert np.allclose(linear.terms[1], slope * np.asarray(space.values[1], dtype=float), rtol=1e-12)
    assert linear.intercept == pytest.approx(classifier.intercept_[0] - slope * encoder.mean_[0], rel=1e-12)
    # The bound is the larger of |intercept| and the magnitudes it was formed from, plus each
    # feature's largest absolute term.
    parts = abs(classifier.intercept_[0]) + abs(slope * encoder.mean_[0])
    assert linear.intercept_parts == pytest.approx(parts, rel=1e-12)
    biggest = sum(np.abs(t).max() for t in linear.terms)
    assert linear.bound == max(abs(linear.intercept), linear.intercept_parts) + biggest >= np.abs(decision).max()
    # With 0 as the favourable label the decision flips.
    assert not linear_codes(model, space, 0).favourable_above
    # Anything else is scored by calling the model.
    assert linear_codes(audit_pipeline("random_forest").fit(frame, y), space, 1) is None
    assert linear_codes(model, space, 7) is None


def test_linear_scorer_asks_the_model_at_an_exact_tie():
    # One feature "x" in {0, 1, 2} (numeric, standardised) and a hand-set model: decision = w * z(x) + b
    # with b = -w * z(1), so x = 1 is exactly on the boundary: the model predicts class 0 there.
    frame = pd.DataFrame({"x": [0.0, 1.0, 2.0] * 10})
    model = Pipeline([("encode", FrameEncoder()), ("model", LogisticRegression())]).fit(frame, [0, 0, 1] * 10)
    encoder, classifier = model.steps[0][1], model.steps[1][1]
    mean, scale = float(encoder.mean_[0]), float(encoder.scale_[0])
    classifier.coef_ = np.array([[2.0]])
    classifier.intercept_ = np.array([-2.0 * ((1.0 - mean) / scale)])
    space = build_item_space(frame, FactsConfig(), set())
    linear = linear_codes(model, space, 1)
    binary = BinaryPredictor(model, 1)
    predictor = lambda codes: binary(space.frame(codes))  # noqa: E731
    codes = np.array([[0]], dtype=np.int32)  # one individual at x = 0
    scorer = LinearScorer(linear, codes, predictor)
    scorer.add(1, np.array([[1], [2]], dtype=np.int32), np.array([0]))  # actions x = 1 (tie), x = 2
    scorer.run()
    works = scorer.result(0)
    assert works.tolist() == [[False, True]]
    assert model.predict(pd.DataFrame({"x": [1.0, 2.0]})).tolist() == [0, 1]
    assert scorer.n_rows == 1 and scorer.n_calls == 1  # only the tie went to the model


def test_audit_with_linear_terms_equals_audit_calling_the_model():
    rng = np.random.default_rng(11)
    frame = _frame(rng, 400)
    frame["s"] = rng.choice(["F", "M"], size=len(frame))
    y = ((frame["colour"] == "red") | (frame["size"] > 3)).astype(int) * (rng.random(len(frame)) < 0.8)
    model = audit_pipeline("logistic").fit(frame, y)

    class Wrapped:  # the same model, hidden from the code-space scorer
        def predict(self, X: pd.DataFrame) -> np.ndarray:
            return model.predict(X)

    fast = FactsAuditor(min_support=0.05).fit(frame, model, "s")
    slow = FactsAuditor(min_support=0.05).fit(frame, Wrapped(), "s")
    assert fast.summary_["counterfactual_rows"] == 0 and slow.summary_["counterfactual_rows"] > 0
    assert fast.summary_["valid_pairs"] > 0
    pd.testing.assert_frame_equal(fast.ranking_, slow.ranking_)
    for name in ("pair_subgroup", "pair_action", "pair_cost", "pair_hits", "member_cost"):
        assert np.array_equal(getattr(fast.evaluation_, name), getattr(slow.evaluation_, name)), name


def test_membership_by_hand():
    # Rows (a, b): (0, 1), (1, 1), (0, -1 missing), (0, 0); subgroups {a=0}, {b=1}, {a=0, b=1}, {b=0}.
    codes = np.array([[0, 1], [1, 1], [0, -1], [0, 0]], dtype=np.int32)
    values = np.array([[0, -1], [-1, 1], [0, 1], [-1, 0]], dtype=np.int32)
    member = membership(Itemsets(values, feature_masks(values >= 0)), codes, chunk=3)
    assert member.dtype == np.float32 and member.has_sorted_indices
    assert member.toarray().tolist() == [[1, 0, 1, 1], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]]


def test_membership_past_one_word_of_rows():
    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 3, size=(131, 3)).astype(np.int32)  # 131 rows: three 64-bit words
    values = rng.integers(-1, 3, size=(40, 3)).astype(np.int32)
    values[values.max(axis=1) < 0, 0] = 1
    member = membership(Itemsets(values, feature_masks(values >= 0)), codes, chunk=7).toarray()
    expected = np.ones((40, 131), dtype=bool)
    for j in range(3):
        fixed = values[:, j][:, None]
        expected &= (fixed < 0) | (fixed == codes[:, j][None, :])
    assert (member == expected).all()


def _mlxtend_itemsets(space, rows, features, min_support):
    """The reference: mlxtend's fp-growth on the same items, as a set of (feature, code) tuples."""
    from mlxtend.frequent_patterns import fpgrowth

    columns, names = [], []
    for j in features:
        column = space.codes[rows, j]
        counts = np.bincount(column[column >= 0], minlength=len(space.values[j]))
        for code in np.flatnonzero(counts >= min_support * len(rows) - 1e-9):
            columns.append(column == code)
            names.append((j, int(code)))
    if not columns:
        return set()
    found = fpgrowth(pd.DataFrame(np.column_stack(columns), columns=range(len(names))), min_support=min_support)
    return {tuple(sorted(names[i] for i in itemset)) for itemset in found["itemsets"]}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("min_support", [0.02, 0.05, 0.1, 0.25])
def test_frequent_itemsets_equal_mlxtend_fpgrowth(seed, min_support):
    rng = np.random.default_rng(seed)
    n = 200 if seed != 2 else 128  # 128 rows: supports such as 0.25 * 128 = 32 fall exactly on a count
    frame = pd.DataFrame({f"f{j}": rng.choice(range(2 + j % 3), size=n, p=None) for j in range(7)})
    frame.loc[rng.random(n) < 0.05, "f3"] = np.nan  # missing values are no item
    frame["f0"] = np.where(rng.random(n) < 0.7, 0, frame["f0"])  # a dominant value: long itemsets
    space = build_item_space(frame, FactsConfig(), set())
    rows = np.flatnonzero(rng.random(n) < 0.9)
    features = [0, 1, 2, 3, 5, 6]
    mined = frequent_itemsets(space, rows, features, min_support)
    ours = {tuple((j, int(v[j])) for j in range(len(v)) if v[j] >= 0) for v in mined.values}
    assert len(ours) == len(mined) > 0
    assert ours == _mlxtend_itemsets(space, rows, features, min_support)


def test_frequent_itemsets_by_hand():
    # Six rows of (x, y): itemsets with >= 50% support (3 rows).
    frame = pd.DataFrame({"x": ["a", "a", "a", "b", "b", "a"], "y": ["u", "u", "v", "u", "v", "u"]})
    space = build_item_space(frame, FactsConfig(), set())
    mined = frequent_itemsets(space, np.arange(6), [0, 1], 0.5)
    # x=a: 4 rows, x=b: 2, y=u: 4, y=v: 2, {x=a, y=u}: 3 -> frequent: {x=a}, {y=u}, {x=a, y=u}.
    assert sorted(mined.values.tolist()) == [[-1, 0], [0, -1], [0, 0]]


def test_sorted_members_by_subgroup_then_cost():
    from recoursesim.auditors.facts.effects import Evaluation

    # Subgroup 0 has members with costs (3, inf, 1) in group 0 and 2 in group 1; subgroup 1: (1, 1) in group 0.
    ev = Evaluation(
        pair_subgroup=np.zeros(0, dtype=np.int32),
        pair_action=np.zeros(0, dtype=np.int32),
        pair_cost=np.zeros(0),
        pair_hits=np.zeros((0, 2), dtype=np.int32),
        sizes=np.array([[3, 1], [2, 0]]),
        member_indptr=np.array([0, 4, 6]),
        member_index=np.array([0, 1, 2, 3, 0, 2], dtype=np.int32),
        member_group=np.array([0, 0, 0, 1, 0, 0], dtype=np.int8),
        member_cost=np.array([3.0, np.inf, 1.0, 2.0, 1.0, 1.0]),
        n_counterfactuals=0,
        n_applications=0,
        n_model_calls=0,
    )
    rows, costs = ev.sorted_members(0)
    assert rows.tolist() == [0, 0, 0, 1, 1] and costs.tolist() == [1.0, 3.0, np.inf, 1.0, 1.0]
    rows, costs = ev.sorted_members(1)
    assert rows.tolist() == [0] and costs.tolist() == [2.0]


def test_costs_sorted_within_runs_across_chunks():
    from recoursesim.auditors.facts.effects import _sort_costs_within

    rows = np.array([0, 0, 0, 2, 2, 5, 5, 5, 5], dtype=np.int32)
    cost = np.array([3.0, np.inf, 1.0, 2.0, 0.5, 4.0, 4.0, 0.0, np.inf])
    for chunk in (1, 2, 4, 100):  # chunks of whole runs: the result must not depend on the chunking
        r, c = _sort_costs_within(rows, cost, chunk)
        assert r.tolist() == rows.tolist()
        assert c.tolist() == [1.0, 3.0, np.inf, 0.5, 2.0, 0.0, 4.0, 4.0, np.inf]


def test_action_groups_by_hand():
    from recoursesim.auditors.facts.effects import _action_groups

    masks = np.array([3, 1, 3, 0, 2, 1], dtype=np.int64)
    actions = Itemsets(np.zeros((len(masks), 2), dtype=np.int32), masks)
    groups = _action_groups(actions, {1: 0, 3: 1})  # mask 2 has no subgroup; mask 0 is never an action
    assert [mask for mask, _ in groups] == [1, 3]
    assert [index.tolist() for _, index in groups] == [[1, 5], [0, 2]]


def test_feature_masks_by_hand():
    fixed = np.array([[True, False, True], [False, False, False], [False, True, True]])
    assert feature_masks(fixed).tolist() == [0b101, 0, 0b110]
    assert feature_masks(fixed).dtype == np.int64


def test_mask_columns_by_hand_and_inverts_feature_masks():
    assert mask_columns(0b101, 3) == [0, 2]
    assert mask_columns(0, 3) == []
    assert mask_columns(0b110, 2) == [1]  # bits beyond d are not columns
    fixed = np.array([[True, False, True, True], [False, True, False, False]])
    assert [mask_columns(int(m), 4) for m in feature_masks(fixed)] == [[0, 2, 3], [1]]


def test_lex_keys_by_hand_and_order_equals_column_lexsort():
    from recoursesim.auditors.facts import mining

    values = np.array([[1, -1], [0, 2], [-1, 0], [0, -1]])
    # digits value + 1 with radices (3, 4): key = 4 * (v0 + 1) + (v1 + 1)
    assert [k.tolist() for k in mining.lex_keys(values)] == [[8, 7, 1, 4]]
    rng = np.random.default_rng(3)
    wide = rng.integers(-1, 40, size=(500, 15))  # radix 42 ** 15 > 2 ** 62: several keys
    keys = mining.lex_keys(wide)
    assert len(keys) > 1
    expected = np.lexsort(tuple(wide[:, j] for j in range(14, -1, -1)))
    assert np.array_equal(np.lexsort(tuple(reversed(keys))), expected)
