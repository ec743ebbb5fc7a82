import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recoursesim.auditors.ccm import jscd, klcd, rmscd
from recoursesim.errors import DataError

S = [0.05, 0.15, 0.65, 0.95]
S_CF = [0.05, 0.45, 0.45, 0.75]


def test_rmscd_vector():
    assert rmscd(S, S_CF) == pytest.approx(math.sqrt(0.0425), abs=1e-6)
    assert rmscd(S, S_CF) == pytest.approx(0.206155, abs=1e-6)


def test_jscd_vector_nats_and_bits():
    assert jscd(S, S_CF) == pytest.approx(0.75 * math.log(2), abs=1e-6)
    assert jscd(S, S_CF) == pytest.approx(0.519860, abs=1e-6)
    assert jscd(S, S_CF, base=2) == pytest.approx(0.75, abs=1e-9)


def test_klcd_infinite_when_support_missing():
    assert klcd(S, S_CF) == math.inf
    assert math.isfinite(klcd(S, S_CF, eps=1e-3))


def test_second_vector():
    s, s_cf = [0.05, 0.05, 0.15, 0.15], [0.05, 0.15, 0.15, 0.15]
    assert klcd(s, s_cf) == pytest.approx(0.5 * math.log(4 / 3), abs=1e-6)
    assert klcd(s, s_cf) == pytest.approx(0.143841, abs=1e-6)
    assert jscd(s, s_cf) == pytest.approx(0.0338221, abs=1e-6)


scores = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30)


@given(scores, st.randoms())
def test_divergence_bounds(values, random):
    s = np.array(values)
    s_cf = np.array(random.sample(values, len(values)))
    assert 0 <= jscd(s, s_cf) <= math.log(2) + 1e-12
    assert rmscd(s, s_cf) >= 0
    assert jscd(s, s) == pytest.approx(0.0, abs=1e-12)
    assert klcd(s, s) == pytest.approx(0.0, abs=1e-12)
    assert klcd(s, s_cf) >= -1e-12


def test_unscaled_scores_are_min_max_scaled():
    assert jscd([-3.0, 3.0], [-3.0, 3.0]) == pytest.approx(0.0)


def test_bad_score_inputs():
    with pytest.raises(DataError):
        rmscd([0.1, 0.2], [0.1])
    with pytest.raises(DataError):
        jscd([], [])
    with pytest.raises(DataError):
        klcd([np.nan], [0.1])
