"""The one encoding of the package's models, by hand: layouts, unknown categories, sparse output, terms."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

import recoursesim
from recoursesim.auditors.facts.models import FrameEncoder
from recoursesim.features import Feature, FeatureSchema
from recoursesim.scoring.encoding import CodeEncoder, OneHotStandardiser

# x: numbers 0, 2, 4 (mean 2, population sd sqrt(8/3)); c: categories a, b, c; g: categories p, q.
SCHEMA = FeatureSchema(
    [
        Feature("c", "categorical", ("a", "b", "c"), 0.0, 2.0),
        Feature("x", "numeric", (), 0.0, 4.0),
        Feature("g", "categorical", ("p", "q"), 0.0, 1.0),
    ]
)
CODES = np.array([[0.0, 0.0, 1.0], [2.0, 2.0, 0.0], [1.0, 4.0, 1.0]])
FRAME = pd.DataFrame({"c": ["a", "c", "b"], "x": [0.0, 2.0, 4.0], "g": ["q", "p", "q"]})
Z = np.array([-2.0, 0.0, 2.0]) / np.sqrt(8 / 3)


def test_code_encoder_puts_every_block_first() -> None:
    encoder = CodeEncoder(SCHEMA).fit(CODES)
    expected = np.column_stack([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 0], [1, 0, 1], Z])
    np.testing.assert_allclose(encoder.transform(CODES), expected, rtol=1e-15)
    assert encoder.starts_.tolist() == [0, 5, 3] and encoder.n_features_out_ == 6


def test_frame_encoder_keeps_the_column_order_and_learns_sorted_categories() -> None:
    encoder = FrameEncoder(dense=True).fit(FRAME)
    expected = np.column_stack([[1, 0, 0], [0, 0, 1], [0, 1, 0], Z, [0, 1, 0], [1, 0, 1]])
    np.testing.assert_allclose(encoder.transform(FRAME), expected, rtol=1e-15)
    assert encoder.starts_.tolist() == [0, 3, 4] and list(encoder.categories_["g"]) == ["p", "q"]


def test_unknown_categories_and_codes_out_of_range_encode_as_zeros() -> None:
    frame = FrameEncoder(dense=True).fit(FRAME).transform(pd.DataFrame({"c": ["z"], "x": [2.0], "g": ["p"]}))
    np.testing.assert_array_equal(frame, [[0, 0, 0, 0, 1, 0]])
    codes = CodeEncoder(SCHEMA).fit(CODES).transform(np.array([[3.0, 2.0, -1.0], [np.nan, 2.0, 0.0]]))
    np.testing.assert_array_equal(codes, [[0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0]])


def test_a_constant_number_is_only_centred() -> None:
    encoder = CodeEncoder(SCHEMA).fit(np.array([[0.0, 3.0, 0.0], [1.0, 3.0, 1.0]]))
    assert encoder.scale_.tolist() == [1.0] and encoder.mean_.tolist() == [3.0]
    assert encoder.transform(np.array([[0.0, 5.0, 0.0]]))[0, -1] == 2.0


def test_sparse_output_equals_dense_and_stores_only_known_categories() -> None:
    rows = pd.concat([FRAME, pd.DataFrame({"c": ["z"], "x": [1.0], "g": ["q"]})], ignore_index=True)
    dense = FrameEncoder(dense=True).fit(FRAME).transform(rows)
    csr = FrameEncoder().fit(FRAME).transform(rows)
    assert sparse.isspmatrix_csr(csr) and csr.has_sorted_indices
    np.testing.assert_array_equal(csr.toarray(), dense)
    assert csr.nnz == 3 * 4 - 1  # per row: one per number and per known category; 'z' is unknown


def test_column_terms_by_hand() -> None:
    encoder = FrameEncoder(dense=True).fit(FRAME)  # layout: c (3) | x | g (2)
    coef = np.array([1.0, 2.0, 3.0, 0.5, -1.0, 4.0])
    terms = encoder.column_terms(coef, np.array([0.25]))
    slope = 0.5 / np.sqrt(8 / 3)
    assert [b.tolist() for b in terms.blocks] == [[1.0, 2.0, 3.0], [], [-1.0, 4.0]]
    np.testing.assert_allclose(terms.slopes, [0.0, slope, 0.0], rtol=1e-15)
    assert terms.constant == pytest.approx(0.25 - slope * 2.0, rel=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-5, 5), min_size=6, max_size=6),
    st.floats(-3, 3),
    st.lists(st.tuples(st.integers(0, 3), st.floats(-10, 10), st.integers(0, 2)), min_size=1, max_size=8),
)
def test_column_terms_add_up_to_the_linear_margin(coef: list[float], intercept: float, rows: list) -> None:
    encoder = CodeEncoder(SCHEMA).fit(CODES)
    X = np.array(rows, dtype=float)  # codes 3 and 2 are out of range: zero blocks, zero terms
    terms = encoder.column_terms(np.array(coef), intercept)
    total = np.full(len(X), terms.constant) + terms.slopes[1] * X[:, 1]
    for j in (0, 2):
        code = X[:, j].astype(int)
        known = code < SCHEMA.n_categories[j]
        total += np.where(known, terms.blocks[j][np.minimum(code, SCHEMA.n_categories[j] - 1)], 0.0)
    np.testing.assert_allclose(total, encoder.transform(X) @ np.array(coef) + intercept, rtol=1e-9, atol=1e-9)


def test_the_package_has_one_encoder() -> None:
    """The only class in the package that transforms rows for a model is :class:`OneHotStandardiser`."""
    root = Path(recoursesim.__file__).parent
    transformers = {
        (path.relative_to(root).as_posix(), node.name)
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any(isinstance(item, ast.FunctionDef) and item.name == "transform" for item in node.body)
    }
    assert transformers == {("scoring/encoding.py", "OneHotStandardiser")}
    assert issubclass(CodeEncoder, OneHotStandardiser) and issubclass(FrameEncoder, OneHotStandardiser)


def test_a_text_column_without_categories_encodes_as_nothing() -> None:
    """A non-numeric column with no value seen at fit time has an empty block, not a number's column."""
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "c": [None, None, None]})
    encoder = FrameEncoder(dense=True).fit(frame)
    assert encoder.n_features_out_ == 1 and encoder.numeric_.tolist() == [True, False]
    np.testing.assert_allclose(encoder.transform(frame)[:, 0], [-1.224744871391589, 0.0, 1.224744871391589])
    assert encoder.column_terms(np.array([2.0]), 0.0).blocks[1].size == 0
    empty = FrameEncoder(dense=True).fit(FRAME.iloc[:0])  # no rows: no categories, numbers centred on 0
    assert empty.n_features_out_ == 1 and empty.transform(FRAME).shape == (3, 1)


def test_column_terms_refuses_coefficients_of_another_width() -> None:
    encoder = CodeEncoder(SCHEMA).fit(CODES)
    with pytest.raises(ValueError, match="coef has 5 entries; one row of 6"):
        encoder.column_terms(np.ones(5), 0.0)
    with pytest.raises(ValueError, match="coef has 12 entries"):
        encoder.column_terms(np.ones((2, 6)), 0.0)
